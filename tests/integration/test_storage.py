"""The storage layer against a real database, on every backend (``database_url``).

Warriors and names, the hash-chained BP ledger and ``verify``, fights recorded command by
command (one transaction each), undo, recovery by replay, the database's own guard
against a warrior or a channel in two fights (R3.3), tamper evidence, migrations, and
SQLite's durability settings.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from replays import as_json, ledger_matches_replays, replay_stored
from sqlalchemy import (
    JSON,
    Column,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.orm import Session
from transcript import command, warrior  # tests/unit, put on the path by conftest.py

from bot.systems.registry import SYSTEMS
from rules.ancath.commands import Roll
from rules.ancath.state import Ending, Need
from rules.ancath.stored import buy, mod_bp, mod_skill
from rules.ancath.system import AN_CATH
from rules.ancath.tables import Skill
from rules.codec import encode
from rules.errors import RulesError
from storage import ledger
from storage.db import open_database
from storage.db_engines import make_engine
from storage.models import FightCommand, LedgerRow, Setting
from storage.schema_revision import head_revision, upgrade
from storage.store import (
    UNDO,
    Busy,
    DuplicateName,
    OpenFight,
    StaleFight,
    StorageError,
    Store,
    UnknownWarrior,
)
from storage.warrior_totals import derived_totals

TABLES = ("warriors", "ledger", "fights", "fight_sides", "fight_commands", "fight_events")

START = """
    Olaf rolls 50          # initiative (equal BP)
    Gorbag rolls 20
    Olaf: first
"""
KILL = """
    Olaf: attack
    Olaf rolls 23          # broadsword 30 - 5 (length 2 vs spear 3): hit
    Gorbag: dodge
    Gorbag rolls 80        # leather dodge 30: fails
    Olaf rolls 5           # kill on leather
"""


# -- helpers ----------------------------------------------------------------------------


def counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as connection:
        return {
            table: connection.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one()
            for table in TABLES
        }


def ledger_rows(engine: Engine) -> list[tuple[Any, ...]]:
    with engine.connect() as connection:
        return [tuple(r) for r in connection.execute(text(
            "SELECT id, warrior_id, entry, bp, spent, status, fight_id, command_seq, hash "
            "FROM ledger ORDER BY id"
        ))]


def add_pair(store: Store, a: str = "Olaf", b: str = "Gorbag") -> None:
    store.create_warrior(warrior(a, "free-clans", "broadsword", "shield"), f"{a.lower()}_acct")
    store.create_warrior(warrior(b, "goblin", "club", "spear"), f"{b.lower()}_acct")


def open_pair(
    store: Store, kind: str = "practice", channel: str = "#arena",
    a: str = "Olaf", b: str = "Gorbag",
) -> OpenFight:
    fight, _ = store.open_fight(
        channel, AN_CATH, kind, [(a, f"{a.lower()}_acct"), (b, f"{b.lower()}_acct")],
        f"{a.lower()}_acct",
    )
    return fight


def play(store: Store, fight: OpenFight, script: str) -> tuple[OpenFight, list[Any]]:
    """Apply and record each transcript line, one transaction per command."""
    events: list[Any] = []
    for line in script.strip().splitlines():
        if not line.split("#", 1)[0].strip():
            continue
        cmd = command(fight.state, line)
        state, new = AN_CATH.apply(fight.state, cmd)
        fight = store.record(fight, cmd, "referee", state, new)
        events.extend(new)
    return fight, events


def entries(store: Store, name: str) -> list[tuple[str, float]]:
    return [(r["entry"], r["bp"]) for r in store.ledger(name)]


# -- warriors, skills, moderators, prisoners ----------------------------------------------


def test_create_warrior_writes_created_row_and_names_are_unique_case_insensitively(
    store: Store,
) -> None:
    record = store.create_warrior(warrior("Olaf", "free-clans", "broadsword", "shield"), "olaf")
    assert (record.sheet.name, record.owner, record.sheet.bp, record.in_fight) == (
        "Olaf", "olaf", 0, False)
    before = counts(store.engine)
    for clash in ("Olaf", "OLAF", "olaf"):
        with pytest.raises(DuplicateName):
            store.create_warrior(warrior(clash, "goblin", "club", "spear"), "someone")
    assert counts(store.engine) == before
    assert store.warrior("oLAF").sheet.culture.value == "free-clans"
    with pytest.raises(UnknownWarrior):
        store.warrior("Nobody")
    (row,) = store.ledger()
    assert (row["warrior"], row["entry"], row["bp"], row["actor"]) == ("Olaf", "created", 0, "olaf")
    assert row["reason"] and row["at"]
    assert store.verify() == []


def test_buy_skill_appends_spend_rows_and_totals_follow(store: Store) -> None:
    add_pair(store)
    with pytest.raises(RulesError):  # no BP to spend: refused, nothing written
        store.change_sheet("Olaf", buy(Skill.BROADSWORD, "olaf_acct"))
    assert len(store.ledger("Olaf")) == 1
    store.change_sheet("Olaf", mod_bp(50, "mod", "test grant"))
    olaf, _ = store.change_sheet("olaf", buy(Skill.BROADSWORD, "olaf_acct"))   # 30 -> 40: 1 BP
    assert olaf.sheet.skills[Skill.BROADSWORD] == 40
    olaf, _ = store.change_sheet("Olaf", buy(Skill.GREATSWORD, "olaf_acct"))   # new skill: 3 BP
    assert olaf.sheet.skills[Skill.GREATSWORD] == 30
    assert (olaf.sheet.bp, olaf.sheet.bp_spent) == (50, 4)           # spending keeps the total
    spends = [r for r in store.ledger("Olaf") if r["entry"] == "spend"]
    assert [(r["skill"], r["skill_value"], r["spent"], r["actor"]) for r in spends] == [
        ("broadsword", 40, 1, "olaf_acct"), ("greatsword", 30, 3, "olaf_acct")]
    with pytest.raises(RulesError):  # 1 BP left, a new skill costs 3
        store.change_sheet("Olaf", buy(Skill.AXE, "olaf_acct"))
    assert len(store.ledger("Olaf")) == 4
    totals = derived_totals(_all_rows(store.engine))[olaf.id]
    assert totals["bp"] == 50 and totals["bp_spent"] == 4
    assert totals["skills"] == {s.value: v for s, v in olaf.sheet.skills.items()}
    assert store.verify() == []


def _all_rows(engine: Engine) -> list[LedgerRow]:
    with Session(engine) as session:
        return list(session.scalars(select(LedgerRow).order_by(LedgerRow.id)))


def test_buy_skill_is_refused_during_a_fight(store: Store) -> None:
    add_pair(store)
    store.change_sheet("Olaf", mod_bp(30, "mod", "grant"))
    open_pair(store)
    before = counts(store.engine)
    with pytest.raises(Busy):
        store.change_sheet("Olaf", buy(Skill.BROADSWORD, "olaf_acct"), between="buy after it")
    assert counts(store.engine) == before


def test_moderator_bp_and_skill_changes_are_ledger_rows(store: Store) -> None:
    add_pair(store)

    def applied(name: str, tenths: int, reason: str) -> int:
        return int(store.change_sheet(name, mod_bp(tenths, "mod_anna", reason))[1]["bp"])
    assert applied("Olaf", 405, "tournament prize") == 400   # capped, R2.6
    assert applied("Olaf", -25, "penalty") == -25
    assert applied("Gorbag", -10, "nothing to take") == 0
    store.change_sheet("Olaf", mod_skill(Skill.SHIELD, 55, "mod_bob", "correction"))
    store.change_sheet("Olaf", mod_skill(Skill.MOVE, 0, "mod_bob", "removed"))
    olaf = store.warrior("Olaf")
    assert olaf.sheet.bp == 375
    assert olaf.sheet.skills[Skill.SHIELD] == 55 and Skill.MOVE not in olaf.sheet.skills
    rows = store.ledger("Olaf")[1:]
    assert [(r["entry"], r["bp"], r["skill"], r["skill_value"], r["moderator"], r["reason"])
            for r in rows] == [
        ("moderator-bp", 40.0, None, None, "mod_anna", "tournament prize"),
        ("moderator-bp", -2.5, None, None, "mod_anna", "penalty"),
        ("moderator-skill", 0.0, "shield", 55, "mod_bob", "correction"),
        ("moderator-skill", 0.0, "move", 0, "mod_bob", "removed"),
    ]
    assert store.verify() == []


def test_settings_round_trip(store: Store) -> None:
    assert store.setting("fairy_open", False) is False
    store.set_setting("fairy_open", True, "admin")
    store.set_setting("time_limit", {"#arena": 600}, "admin")
    assert store.setting("fairy_open") is True
    assert store.setting("time_limit") == {"#arena": 600}
    store.set_setting("fairy_open", False, "admin2")
    assert store.setting("fairy_open", True) is False


def test_prisoner_taken_in_a_mortal_fight_then_freed(store: Store) -> None:
    add_pair(store)
    fight = open_pair(store, "mortal")
    fight, _ = play(store, fight, START + """
        Olaf: yield
        Gorbag: accept prisoner ransom ten goats
    """)
    assert fight.state.outcome.ending is Ending.YIELD and fight.state.outcome.winner == 1
    olaf = store.warrior("Olaf")
    assert (olaf.sheet.status.value, olaf.captor, olaf.in_fight) == ("prisoner", "Gorbag", False)
    assert store.captor_account("Olaf") == "gorbag_acct"
    taken = [r for r in store.ledger("Olaf") if r["entry"] == "prisoner-taken"]
    assert len(taken) == 1 and taken[0]["fight"] == fight.id and taken[0]["status"] == "prisoner"
    assert sorted(entries(store, "Gorbag")) == [("award", 0.5), ("award", 1.0), ("created", 0.0)]
    assert store.verify() == []
    assert ledger_matches_replays(store.engine) == []

    before = counts(store.engine)
    with pytest.raises(RulesError):    # a prisoner cannot fight (R4.6): nothing written
        open_pair(store, channel="#other")
    assert counts(store.engine) == before

    store.free("Olaf", "gorbag_acct", "ransom paid")
    olaf = store.warrior("Olaf")
    assert (olaf.sheet.status.value, olaf.captor) == ("free", None)
    freed = store.ledger("Olaf")[-1]
    assert (freed["entry"], freed["status"], freed["actor"], freed["reason"]) == (
        "prisoner-freed", "free", "gorbag_acct", "ransom paid")
    with pytest.raises(StorageError):
        store.free("Olaf", "gorbag_acct", "again")
    assert store.verify() == []
    open_pair(store, channel="#other")   # free again: may fight


def test_mortal_kill_is_a_death_row_and_the_dead_cannot_fight(store: Store) -> None:
    add_pair(store)
    fight = open_pair(store, "mortal")
    fight, _ = play(store, fight, START + KILL)
    assert fight.state.outcome.ending is Ending.KILL
    gorbag = store.warrior("Gorbag")
    assert gorbag.sheet.status.value == "dead"
    death = [r for r in store.ledger("Gorbag") if r["entry"] == "death"]
    assert len(death) == 1 and death[0]["fight"] == fight.id
    assert sorted(entries(store, "Olaf")) == [("award", 0.5), ("award", 1.0), ("created", 0.0)]
    assert store.warrior("Olaf").sheet.bp == 15
    assert ledger_matches_replays(store.engine) == []
    before = counts(store.engine)
    with pytest.raises(RulesError):
        open_pair(store, "practice", "#elsewhere")
    assert counts(store.engine) == before
    assert store.verify() == []


# -- fights, one transaction per command ------------------------------------------------------


def test_practice_fight_recorded_command_by_command(store: Store) -> None:
    add_pair(store)
    fight, start_events = store.open_fight(
        "#arena", AN_CATH, "practice", [("Olaf", "olaf_acct"), ("gorbag", "gorbag_acct")],
        "olaf_acct")
    assert store.warrior("Olaf").in_fight and store.warrior("Gorbag").in_fight
    all_events = list(start_events)
    lines = [ln for ln in (START + KILL).strip().splitlines() if ln.strip()]
    for number, line in enumerate(lines, start=1):
        before = counts(store.engine)
        fight, new = play(store, fight, line)
        after = counts(store.engine)
        all_events += new
        assert fight.seq == number
        assert after["fight_commands"] == before["fight_commands"] + 1
        assert after["fight_events"] == before["fight_events"] + len(new)
        if number < len(lines):
            assert after["ledger"] == before["ledger"]     # no awards while it goes on
    assert fight.state.outcome.ending is Ending.KILL and fight.state.outcome.winner == 0

    awards = [r for r in store.ledger() if r["entry"] == "award"]
    assert [(r["warrior"], r["bp"], r["fight"], r["actor"]) for r in awards] == [
        ("Olaf", 0.2, fight.id, "referee"), ("Gorbag", 0.1, fight.id, "referee")]
    assert all("practice" in r["reason"] for r in awards)
    with store.engine.connect() as connection:
        seqs = {r.command_seq for r in connection.execute(
            text("SELECT command_seq FROM ledger WHERE entry = 'award'"))}
        row = connection.execute(text(
            "SELECT active, ending, winner, ended_at FROM fights WHERE id = :id"),
            {"id": fight.id}).one()
    assert seqs == {len(lines)}
    assert (bool(row.active), row.ending, row.winner) == (False, "kill", 0) and row.ended_at
    assert store.warrior("Olaf").sheet.bp == 2 and store.warrior("Gorbag").sheet.bp == 1
    assert not store.warrior("Olaf").in_fight
    assert store.fight_events(fight.id) == all_events
    assert replay_stored(store.engine, fight.id)[2] == all_events
    assert ledger_matches_replays(store.engine) == []
    assert store.open_fights() == ([], [])
    assert store.verify() == []
    open_pair(store, channel="#again")   # both are free to fight again


def test_refused_command_writes_nothing(store: Store) -> None:
    add_pair(store)
    fight = open_pair(store)
    fight, _ = play(store, fight, START)
    before = counts(store.engine)
    for bad in ("Gorbag: attack", "Olaf rolls 50", "Olaf: dodge"):
        with pytest.raises(RulesError):
            AN_CATH.apply(fight.state, command(fight.state, bad))
    # A refused command never reaches ``record``: the database is as it was.
    assert counts(store.engine) == before
    assert store.fight(fight.id).state == fight.state


def test_record_that_fails_on_a_duplicate_seq_leaves_no_partial_rows(store: Store) -> None:
    add_pair(store)
    fight = open_pair(store)
    fight, _ = play(store, fight, START + "\n".join(KILL.strip().splitlines()[:4]))
    assert fight.state.awaiting.need is Need.ROLL                 # the damage roll is next
    moved_on, _ = play(store, fight, "Olaf rolls 90")             # no effect on leather
    before, rows_before = counts(store.engine), ledger_rows(store.engine)

    kill = Roll(0, 5)
    state, events = AN_CATH.apply(fight.state, kill)              # would end it, with awards
    assert state.outcome is not None
    with pytest.raises(StaleFight):
        store.record(fight, kill, "referee", state, events)       # stale: seq already taken
    assert counts(store.engine) == before
    assert ledger_rows(store.engine) == rows_before
    assert store.warrior("Olaf").sheet.bp == 0 and store.warrior("Olaf").in_fight
    assert store.fight(fight.id).state == moved_on.state
    assert store.verify() == []


def test_record_that_fails_after_writing_ledger_rows_rolls_back_whole(
    store: Store, monkeypatch: pytest.MonkeyPatch,
) -> None:
    add_pair(store)
    fight = open_pair(store, "mortal")
    fight, _ = play(store, fight, START + "\n".join(KILL.strip().splitlines()[:4]))
    before, rows_before = counts(store.engine), ledger_rows(store.engine)
    kill = Roll(0, 5)
    state, events = AN_CATH.apply(fight.state, kill)

    def broken_close(*_args: Any) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(Store, "_close", staticmethod(broken_close))
    with pytest.raises(RuntimeError):
        store.record(fight, kill, "referee", state, events)
    monkeypatch.undo()
    assert counts(store.engine) == before
    assert ledger_rows(store.engine) == rows_before
    assert store.warrior("Gorbag").sheet.status.value == "free"
    assert store.verify() == []
    fight = store.record(fight, kill, "referee", state, events)   # the retry goes through
    assert store.warrior("Gorbag").sheet.status.value == "dead"
    assert store.verify() == []


def test_undo_of_a_finished_fight_reverses_awards_and_reopens_it(store: Store) -> None:
    add_pair(store)
    fight = open_pair(store, "mortal")
    fight, _ = play(store, fight, START + KILL)
    assert store.warrior("Gorbag").sheet.status.value == "dead"
    rows_before = ledger_rows(store.engine)
    commands_before = counts(store.engine)["fight_commands"]

    reopened = store.undo(fight.id, "mod_anna", "misclicked dodge")
    assert reopened.state.outcome is None
    # One decision taken back (R8.1): Gorbag's dodge and its two rolls; the hit stands.
    assert reopened.state.awaiting.need is Need.DEFENCE and reopened.state.awaiting.side == 1
    assert len(reopened.commands) == 5 and reopened.seq == fight.seq + 1
    # Appended, never deleted: old rows unchanged, reversal rows after them.
    rows_after = ledger_rows(store.engine)
    assert rows_after[: len(rows_before)] == rows_before
    reversals = [r for r in store.ledger() if r["entry"] == "reversal"]
    assert sorted((r["warrior"], r["bp"]) for r in reversals) == [
        ("Gorbag", -0.5), ("Gorbag", 0.0), ("Olaf", -1.0), ("Olaf", -0.5)]
    assert all(r["moderator"] == "mod_anna" and "misclicked" in r["reason"] for r in reversals)
    assert counts(store.engine)["fight_commands"] == commands_before + 1
    with store.engine.connect() as connection:
        last = connection.execute(text(
            "SELECT command FROM fight_commands WHERE fight_id = :id ORDER BY seq DESC"),
            {"id": fight.id}).scalars().first()
    assert as_json(last)["type"] == UNDO
    olaf, gorbag = store.warrior("Olaf"), store.warrior("Gorbag")
    assert (olaf.sheet.bp, gorbag.sheet.bp, gorbag.sheet.status.value) == (0, 0, "free")
    assert olaf.in_fight and gorbag.in_fight
    (open_one,), problems = store.open_fights()
    assert problems == [] and open_one.id == fight.id and open_one.state == reopened.state
    assert store.verify() == []

    # The fight goes on to a different end; only the new awards count.
    fight, _ = play(store, reopened, """
        Gorbag: parry
        Gorbag rolls 10        # parry 25: saved
        Gorbag: attack
        Gorbag rolls 10        # spear hits
        Olaf: parry
        Olaf rolls 99
        Gorbag rolls 3         # kill on highlander
    """)
    assert fight.state.outcome.winner == 1
    assert store.warrior("Olaf").sheet.status.value == "dead"
    assert (store.warrior("Olaf").sheet.bp, store.warrior("Gorbag").sheet.bp) == (5, 15)
    assert store.verify() == []
    assert ledger_matches_replays(store.engine) == []


def test_undo_does_not_reopen_a_fight_whose_warrior_died_since(store: Store) -> None:
    add_pair(store)
    first = open_pair(store, "practice", "#one")
    first, _ = play(store, first, START + KILL)            # a practice "kill": no death
    second = open_pair(store, "mortal", "#two")
    play(store, second, "Olaf: first\n" + KILL)          # Olaf has more BP: chooses
    assert store.warrior("Gorbag").sheet.status.value == "dead"
    before, rows_before = counts(store.engine), ledger_rows(store.engine)
    with pytest.raises(StorageError, match="Gorbag is dead"):
        store.undo(first.id, "mod", "too late")
    assert counts(store.engine) == before and ledger_rows(store.engine) == rows_before
    assert store.open_fights() == ([], [])
    assert store.verify() == []


def test_undoing_a_capture_does_not_raise_a_warrior_killed_since(store: Store) -> None:
    add_pair(store)
    first = open_pair(store, "mortal", "#one")
    first, _ = play(store, first, START + "Olaf: yield\nGorbag: accept prisoner")
    store.free("Olaf", "gorbag_acct", "released")
    second = open_pair(store, "mortal", "#two", "Gorbag", "Olaf")
    play(store, second, """
        Gorbag: first          # 1.5 BP against 0.5
        Gorbag: attack
        Gorbag rolls 10        # club 30 - 5 (length 1 vs 2): hit
        Olaf: dodge
        Olaf rolls 99
        Gorbag rolls 3         # kill on highlander
    """)
    assert store.warrior("Olaf").sheet.status.value == "dead"
    with pytest.raises(StorageError, match="Olaf is dead"):
        store.undo(first.id, "mod", "a capture long ago")
    assert store.warrior("Olaf").sheet.status.value == "dead"
    assert store.verify() == []
    assert ledger_matches_replays(store.engine) == []


def test_undoing_a_capture_after_the_release_keeps_the_warrior_free(store: Store) -> None:
    add_pair(store)
    first = open_pair(store, "mortal", "#one")
    first, _ = play(store, first, START + "Olaf: yield\nGorbag: accept prisoner")
    store.free("Olaf", "gorbag_acct", "released")
    reopened = store.undo(first.id, "mod", "the yield was a typo")
    assert reopened.state.outcome is None
    olaf = store.warrior("Olaf")
    assert (olaf.sheet.status.value, olaf.captor, olaf.in_fight) == ("free", None, True)
    assert store.verify() == []


def test_undo_takes_back_no_more_bp_than_the_warrior_has(store: Store) -> None:
    add_pair(store)
    fight = open_pair(store)
    fight, _ = play(store, fight, START + KILL)
    store.change_sheet("Olaf", mod_bp(-1, "mod", "a tenth off"))
    store.undo(fight.id, "mod", "redo")
    assert store.warrior("Olaf").sheet.bp == 0
    reversal = [r for r in store.ledger("Olaf") if r["entry"] == "reversal"]
    assert [r["bp"] for r in reversal] == [-0.1]
    assert store.verify() == []


def test_undo_inside_an_open_fight_and_nothing_to_undo(store: Store) -> None:
    add_pair(store)
    fight = open_pair(store)
    before = counts(store.engine)
    with pytest.raises(RulesError):
        store.undo(fight.id, "mod", "nothing yet")
    assert counts(store.engine) == before
    fight, _ = play(store, fight, START + "Olaf: attack\nOlaf rolls 23")
    undone = store.undo(fight.id, "mod", "wrong action")
    assert undone.commands == fight.commands[:3]
    assert undone.state == replay_stored(store.engine, fight.id)[0]
    fight, _ = play(store, undone, "Olaf: attack\nOlaf rolls 99")
    assert store.fight(fight.id).state == fight.state
    assert store.fight(fight.id).commands == fight.commands
    assert store.verify() == []


def test_open_fights_rebuilds_unfinished_fights_equal_to_the_live_state(
    store: Store, database_url: str,
) -> None:
    add_pair(store)
    add_pair(store, "Brigid", "Snaga")
    add_pair(store, "Cormac", "Ugluk")
    one = open_pair(store, "practice", "#one")
    one, _ = play(store, one, START + "Olaf: attack\nOlaf rolls 23\nGorbag: dodge")
    two = open_pair(store, "mortal", "#two", "Brigid", "Snaga")
    two, _ = play(store, two, START.replace("Olaf", "Brigid").replace("Gorbag", "Snaga"))
    two, _ = play(store, two, "Brigid: attack\nBrigid rolls 99")
    two = store.undo(two.id, "mod", "redo that")
    three = open_pair(store, "duel", "#three", "Cormac", "Ugluk")
    three, _ = play(store, three, (START + KILL).replace("Olaf", "Cormac")
                    .replace("Gorbag", "Ugluk"))
    assert three.state.outcome is not None

    restarted = Store(make_engine(database_url), systems=SYSTEMS.rules)    # as after a restart
    try:
        fights, problems = restarted.open_fights()
        assert problems == []
        assert [f.id for f in fights] == [one.id, two.id]
        for live, rebuilt in zip((one, two), fights, strict=True):
            assert rebuilt.state == live.state
            assert rebuilt.commands == live.commands
            assert (rebuilt.seq, rebuilt.channel, rebuilt.kind, rebuilt.accounts) == (
                live.seq, live.channel, live.kind, live.accounts)
            assert rebuilt.state == replay_stored(restarted.engine, live.id)[0]
        # The rebuilt fight carries on where the live one stopped.
        done, _ = play(restarted, fights[0], "Gorbag rolls 80\nOlaf rolls 5")
        assert done.state.outcome is not None
        assert restarted.verify() == []
    finally:
        restarted.engine.dispose()


def test_open_fights_reports_a_disagreeing_replay_and_patches_nothing(store: Store) -> None:
    add_pair(store)
    add_pair(store, "Brigid", "Snaga")
    broken = open_pair(store, "practice", "#one")
    broken, _ = play(store, broken, START + "Olaf: attack")
    ended = open_pair(store, "practice", "#two", "Brigid", "Snaga")
    ended, _ = play(store, ended, START.replace("Olaf", "Brigid").replace("Gorbag", "Snaga"))
    with store.engine.begin() as connection:
        # A command the rules now refuse, and a fight whose replay ends it though the
        # row says it is open (as if the closing write had been lost).
        connection.execute(
            FightCommand.__table__.update()
            .where(FightCommand.fight_id == broken.id, FightCommand.seq == broken.seq)
            .values(command=encode(command(broken.state, "Gorbag: dodge")))
        )
        connection.execute(FightCommand.__table__.insert().values(
            fight_id=ended.id, seq=ended.seq + 1, actor="x", created_at="now",
            command=encode(command(ended.state, "mod: end draw"))))
    before = counts(store.engine)
    with store.engine.connect() as connection:
        snapshot = connection.execute(text(
            "SELECT id, active, ending FROM fights ORDER BY id")).all()
    fights, problems = store.open_fights()
    assert fights == []
    assert len(problems) == 2
    assert f"fight {broken.id} in #one: replay failed" in problems[0]
    assert f"fight {ended.id} in #two: replay ends the fight" in problems[1]
    assert counts(store.engine) == before
    with store.engine.connect() as connection:
        assert connection.execute(text(
            "SELECT id, active, ending FROM fights ORDER BY id")).all() == snapshot


def test_open_fights_reports_a_replay_whose_events_differ_from_the_log(store: Store) -> None:
    add_pair(store)
    add_pair(store, "Brigid", "Snaga")
    edited = open_pair(store, "practice", "#one")
    edited, _ = play(store, edited, START + "Olaf: attack\nOlaf rolls 99")
    fine = open_pair(store, "practice", "#two", "Brigid", "Snaga")
    fine, _ = play(store, fine, START.replace("Olaf", "Brigid").replace("Gorbag", "Snaga"))
    with store.engine.begin() as connection:   # still a miss, so the replay goes through
        connection.execute(
            FightCommand.__table__.update()
            .where(FightCommand.fight_id == edited.id, FightCommand.seq == edited.seq)
            .values(command=encode(Roll(0, 98))))
    fights, problems = store.open_fights()
    assert [f.id for f in fights] == [fine.id]
    assert problems == [
        f"fight {edited.id} in #one: replay of command {edited.seq} differs from the event log"]


# -- one fight per warrior and per channel, in the database ---------------------------------


def _at_once(url: str, *jobs: Callable[[Store], Any]) -> list[Any]:
    """Run each job on its own engine and thread, all released at the same moment;
    the results, or the exceptions raised."""
    barrier = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)

    def run(index: int, job: Callable[[Store], Any]) -> None:
        racer = Store(make_engine(url), systems=SYSTEMS.rules)
        try:
            racer.verify()                   # connected and warm before the start
            barrier.wait(timeout=30)
            results[index] = job(racer)
        except Exception as error:           # handed to the test thread
            results[index] = error
        finally:
            racer.engine.dispose()

    threads = [threading.Thread(target=run, args=item) for item in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def _open(channel: str, sides: list[tuple[str, str]], racer: Store) -> int:
    fight, _ = racer.open_fight(channel, AN_CATH, "practice", sides, "racer")
    return fight.id


def _race(url: str, *fights: tuple[str, list[tuple[str, str]]]) -> list[Any]:
    return _at_once(url, *(partial(_open, channel, sides) for channel, sides in fights))


def _one_won(results: list[Any]) -> None:
    won = [r for r in results if isinstance(r, int)]
    lost = [r for r in results if not isinstance(r, int)]
    assert len(won) == 1, results
    assert all(isinstance(r, Busy) for r in lost), results


def _seats(engine: Engine, name: str) -> int:
    with engine.connect() as connection:
        return connection.execute(text(
            "SELECT COUNT(*) FROM fight_sides s JOIN warriors w ON w.id = s.warrior_id "
            "WHERE s.active AND w.name_key = :key"), {"key": name.casefold()}).scalar_one()


def test_same_warrior_challenged_in_two_channels_at_once(store: Store, database_url: str) -> None:
    for round_ in range(4):
        a, b, c = f"Aed{round_}", f"Bran{round_}", f"Conn{round_}"
        for name in (a, b, c):
            store.create_warrior(warrior(name, "free-clans", "axe", "shield"), name)
        results = _race(database_url,
                        (f"#north{round_}", [(a, a), (b, b)]),
                        (f"#south{round_}", [(c, c), (a, a)]))
        _one_won(results)
        assert _seats(store.engine, a) == 1
    assert store.verify() == []


def test_crossed_challenges_at_once_do_not_deadlock(store: Store, database_url: str) -> None:
    """A challenges B in one channel while B challenges A in another."""
    for round_ in range(8):
        a, b = f"Aed{round_}", f"Bran{round_}"
        for name in (a, b):
            store.create_warrior(warrior(name, "goblin", "club", "spear"), name)
        results = _race(database_url,
                        (f"#north{round_}", [(a, a), (b, b)]),
                        (f"#south{round_}", [(b, b), (a, a)]))
        _one_won(results)
        assert _seats(store.engine, a) == 1 and _seats(store.engine, b) == 1


def test_undo_racing_the_end_of_another_fight_of_the_same_warrior(
    store: Store, database_url: str,
) -> None:
    """A moderator undoes B's win over A just as A's next fight, against C, ends: both
    transactions want A's row and the ledger head; neither may deadlock."""
    for round_ in range(6):
        a, b, c = f"Aed{round_}", f"Bran{round_}", f"Conn{round_}"
        store.create_warrior(warrior(a, "goblin", "club", "spear"), f"{a.lower()}_acct")
        for name in (b, c):   # each owned by the account open_pair seats it with
            store.create_warrior(warrior(name, "free-clans", "broadsword", "shield"),
                                 f"{name.lower()}_acct")
        first = open_pair(store, "practice", f"#one{round_}", b, a)
        first, _ = play(store, first, (START + KILL).replace("Olaf", b).replace("Gorbag", a))
        assert first.state.outcome.winner == 0
        second = open_pair(store, "practice", f"#two{round_}", c, a)
        second, _ = play(store, second, (  # A has more BP now, and lets C begin
            "Gorbag: second\n" + "\n".join(KILL.strip().splitlines()[:4])
        ).replace("Olaf", c).replace("Gorbag", a))
        kill = Roll(0, 5)
        state, events = AN_CATH.apply(second.state, kill)
        undone, recorded = _at_once(
            database_url,
            partial(Store.undo, fight_id=first.id, moderator="mod", reason="race"),
            partial(Store.record, fight=second, command=kill, actor="referee", state=state,
                    events=events),
        )
        results = {"undo": undone, "record": recorded}
        assert isinstance(results["record"], OpenFight), results
        assert isinstance(results["undo"], OpenFight | Busy), results
        assert store.verify() == []


def test_one_open_fight_per_channel(store: Store, database_url: str) -> None:
    for round_ in range(4):
        names = [f"W{round_}x{i}" for i in range(4)]
        for name in names:
            store.create_warrior(warrior(name, "goblin", "axe", "club"), name)
        results = _race(database_url,
                        ("#arena", [(names[0], "p0"), (names[1], "p1")]),
                        ("#arena", [(names[2], "p2"), (names[3], "p3")]))
        _one_won(results)
        winner = results[0] if isinstance(results[0], int) else results[1]
        with store.engine.begin() as connection:   # end it so the next round can race
            connection.execute(text("UPDATE fight_sides SET active = false WHERE fight_id = :id"),
                               {"id": winner})
            connection.execute(text("UPDATE fights SET active = false WHERE id = :id"),
                               {"id": winner})


def test_busy_when_already_fighting_writes_nothing(store: Store) -> None:
    add_pair(store)
    store.create_warrior(warrior("Brigid", "invaders", "spear"), "brigid_acct")
    open_pair(store)
    before = counts(store.engine)
    with pytest.raises(Busy):
        open_pair(store, channel="#other", a="Brigid", b="Gorbag")
    with pytest.raises(Busy):
        open_pair(store, channel="#arena", a="Brigid", b="Olaf")
    assert counts(store.engine) == before


# -- tamper evidence ------------------------------------------------------------------------


def _filled(store: Store) -> list[int]:
    add_pair(store)
    fight = open_pair(store)
    play(store, fight, START + KILL)
    store.change_sheet("Olaf", mod_bp(30, "mod", "grant"))
    store.change_sheet("Olaf", buy(Skill.BROADSWORD, "olaf_acct"))
    ids = [r["id"] for r in store.ledger()]
    assert len(ids) >= 6 and store.verify() == []
    return ids


def test_an_amount_edited_by_hand_is_named(store: Store) -> None:
    ids = _filled(store)
    target = ids[3]
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE ledger SET bp = bp + 10 WHERE id = :id"), {"id": target})
    problems = store.verify()
    assert any(f"ledger row {target}:" in p and "edited" in p for p in problems), problems
    assert not any(f"ledger row {i}:" in p for i in ids if i != target for p in problems)


def test_an_edited_reason_is_named_though_totals_still_agree(store: Store) -> None:
    _filled(store)
    with store.engine.begin() as connection:
        row = connection.execute(text(
            "SELECT id FROM ledger WHERE entry = 'award' ORDER BY id")).first()
        assert row is not None
        connection.execute(text("UPDATE ledger SET reason = 'forged' WHERE id = :id"),
                           {"id": row.id})
    assert store.verify() == [
        f"ledger row {row.id}: content does not match its hash (edited)"]


def test_a_deleted_middle_row_is_detected(store: Store) -> None:
    ids = _filled(store)
    gone = ids[len(ids) // 2]
    with store.engine.begin() as connection:
        connection.execute(text("DELETE FROM ledger WHERE id = :id"), {"id": gone})
    problems = store.verify()
    assert any(f"{gone}" in p and "missing" in p for p in problems), problems
    assert any(f"ledger row {gone + 1}:" in p and "chain" in p for p in problems), problems


def test_a_deleted_last_row_is_detected(store: Store) -> None:
    ids = _filled(store)
    with store.engine.begin() as connection:
        connection.execute(text("DELETE FROM ledger WHERE id = :id"), {"id": ids[-1]})
    problems = store.verify()
    assert any("head" in p and "removed" in p for p in problems), problems


def test_a_changed_cached_total_is_detected(store: Store) -> None:
    _filled(store)
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE warriors SET bp = 400 WHERE name_key = 'olaf'"))
    assert store.verify() == ["warrior Olaf: BP is 40.0, ledger says 3.2"]


# -- migrations -----------------------------------------------------------------------------


def test_first_schema_filled_then_upgraded_to_head(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        upgrade(engine, "0001")
        tables = set(inspect(engine).get_table_names())
        assert {"warriors", "ledger", "ledger_head", "settings"} <= tables
        assert "fights" not in tables and "fight_sides" not in tables
        with Session(engine) as session, session.begin():     # as revision 0001's code did
            warriors = WARRIORS_0001  # 0001's columns: no ORM select of later ones
            ids = {}
            for name, culture, skills in (("Olaf", "free-clans", {"move": 30, "axe": 30}),
                                          ("Gorbag", "goblin", {"move": 30, "club": 30,
                                                                "spear": 30})):
                created = "2024-01-01T00:00:00+00:00"
                ids[name] = session.execute(insert(warriors).values(
                    name=name, name_key=name.casefold(), owner=name.lower(), system="ancath",
                    culture=culture,
                    armour="highlander" if culture == "free-clans" else "leather",
                    skills=skills, bp=0, bp_spent=0, status="free", created_at=created,
                )).inserted_primary_key[0]
                legacy_append(session, warrior_id=ids[name], entry="created",
                              detail={"skills": skills}, actor=name.lower(),
                              reason="warrior created", created_at=created)
            session.execute(update(warriors).where(warriors.c.id == ids["Olaf"]).values(bp=25))
            legacy_append(session, warrior_id=ids["Olaf"], entry="moderator-bp", bp=25,
                          actor="mod", moderator="mod", reason="old grant",
                          created_at="2024-01-02T00:00:00+00:00")
            session.execute(insert(Setting).values(key="fairy_open", value={"value": True},
                                                   updated_by="admin", updated_at="x"))
        columns = ", ".join(LEDGER_0001)
        with engine.connect() as connection:
            before = connection.execute(text(f"SELECT {columns} FROM ledger ORDER BY id")).all()

        upgrade(engine)

        with engine.connect() as connection:
            assert connection.execute(text("SELECT version_num FROM alembic_version")
                                      ).scalar_one() == head_revision()
            assert connection.execute(text(f"SELECT {columns} FROM ledger ORDER BY id")
                                      ).all() == before
            assert connection.execute(text("SELECT COUNT(*) FROM ledger WHERE key_id IS NULL")
                                      ).scalar_one() == len(before)   # legacy rows
        assert {"fights", "fight_sides", "fight_commands", "fight_events"} <= set(
            inspect(engine).get_table_names())
        store = Store(engine, systems=SYSTEMS.rules)
        # legacy rows are sealed only by the operator's ancath-bot db seal-legacy
        (unsealed,) = store.verify()
        assert "no signed row seals" in unsealed and "db seal-legacy" in unsealed
        assert store.seal_legacy(legacy=True) == 3   # ledger-keyed, two attested rows
        assert store.verify() == []
        assert store.warrior("OLAF").sheet.bp == 25
        assert store.setting("fairy_open") is True
        fight, _ = store.open_fight("#arena", AN_CATH, "practice",
                                    [("Olaf", "olaf"), ("Gorbag", "gorbag")], "olaf")
        fight, _ = play(store, fight, """
            Olaf: first
            Olaf: attack
            Olaf rolls 10
            Gorbag: dodge
            Gorbag rolls 99
            Olaf rolls 5
        """)
        assert fight.state.outcome is not None
        assert store.warrior("Olaf").sheet.bp == 27
        assert store.verify() == []
        # the first signed row seals the legacy rows; an attested row for each warrior
        assert [r["entry"] for r in store.ledger()][len(before):len(before) + 3] == [
            "ledger-keyed", "attested", "attested"]
        upgrade(engine)          # at head already: nothing to do
    finally:
        engine.dispose()


WARRIORS_0001 = Table(
    "warriors", MetaData(), Column("id", Integer, primary_key=True),
    *(Column(name, String) for name in ("name", "name_key", "owner", "system", "culture",
                                        "armour", "status", "created_at")),
    Column("skills", JSON), Column("bp", Integer), Column("bp_spent", Integer),
)
"""The warriors table of revision 0001, as its code wrote rows."""
LEDGER_0001 = ("id", "warrior_id", "entry", "bp", "spent", "skill", "skill_value", "status",
               "captor_id", "detail", "actor", "moderator", "fight_id", "command_seq", "reason",
               "created_at", "prev_hash", "hash")


def legacy_append(session: Session, **fields: Any) -> None:
    """A ledger row as revision 0001's code wrote it: plain SHA-256, no key id."""
    head = session.execute(text("SELECT last_id, last_hash FROM ledger_head WHERE id = 1")).one()
    fields = {"bp": 0, "spent": 0, "skill": None, "skill_value": None, "status": None,
              "captor_id": None, "detail": None, "moderator": None, "fight_id": None,
              "command_seq": None,
              **fields, "id": head.last_id + 1, "prev_hash": head.last_hash}
    fields["hash"] = ledger.row_hash(head.last_hash, LedgerRow(**fields))
    session.execute(insert(LedgerRow.__table__).values(
        {LedgerRow.__table__.c[name]: fields[name] for name in LEDGER_0001}))
    session.execute(text("UPDATE ledger_head SET last_id = :id, last_hash = :hash"), fields)


# -- SQLite's durability settings -------------------------------------------------------------


def test_sqlite_connection_pragmas(tmp_path: Path) -> None:
    engine = open_database(str(tmp_path / "bot.sqlite3"))   # a bare path is a SQLite file
    try:
        with engine.connect() as connection:

            def pragma(name: str) -> Any:
                return connection.exec_driver_sql(f"PRAGMA {name}").scalar()

            assert pragma("journal_mode") == "wal"
            assert pragma("synchronous") == 2          # FULL
            assert pragma("foreign_keys") == 1
            assert pragma("busy_timeout") >= 5000
        with pytest.raises(Exception, match=r"(?i)foreign key"), engine.begin() as connection:
            connection.execute(text(
                "INSERT INTO fight_sides (fight_id, side, warrior_id, account, active) "
                "VALUES (999, 0, 999, 'x', 1)"))
    finally:
        engine.dispose()


def test_sqlite_writers_wait_for_each_other(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
    first = Store(open_database(url), systems=SYSTEMS.rules)
    second = Store(make_engine(url), systems=SYSTEMS.rules)
    try:
        add_pair(first)
        held = threading.Event()

        def hold_the_write_lock() -> None:
            with first.engine.begin() as connection:
                connection.execute(text("UPDATE settings SET updated_by = 'x'"))
                held.set()
                time.sleep(0.5)

        thread = threading.Thread(target=hold_the_write_lock)
        thread.start()
        assert held.wait(10)
        started = time.monotonic()
        _, row = second.change_sheet("Olaf", mod_bp(5, "mod", "queued behind a writer"))
        assert row["bp"] == 5
        assert time.monotonic() - started >= 0.3     # it waited instead of failing
        thread.join()
        assert second.verify() == []
    finally:
        first.engine.dispose()
        second.engine.dispose()
