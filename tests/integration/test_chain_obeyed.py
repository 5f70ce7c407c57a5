"""Issue 31, items 5-8: what a database writer without the key still got from the bot,
made with raw SQL as such a writer would, against a club played through the bot
(``club.Club``: a real SQLite file, scripted dice). The rule behind each: the bot trusts
only what the chain proves; the stored columns (BP, skills, owner, settings, pending
challenges) are a cache.

5. the whole chain rewritten as legacy rows (plain SHA-256, key ids cleared): a failure
   for ``audit verify`` with the key, never sealed by the bot (``db seal-legacy`` is the
   operator's, and refuses a chain the bot proved signed);
6. laundering through the bot: a command that writes from a stored value checks the
   warrior against its ledger rows first; ``audit verify`` checks each fight's setup
   and sides against the warriors the chain gave then, and each purchase's old value;
7. a pending challenge retargeted, and settings forged, in SQL: not obeyed;
8. the ``moderator-removed`` row deleted while the bot runs: no chat-named moderator
   counts until the chain is whole again.
"""

from __future__ import annotations

import io
import json
import logging
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from club import Club
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session
from transcript import warrior  # tests/unit, put on the path by conftest.py

from bot.systems.registry import SYSTEMS
from rules.ancath.stored import mod_bp
from rules.ancath.system import AN_CATH
from rules.codec import encode
from storage import ledger
from storage.audit_export import verify_export
from storage.chain import row_hash
from storage.chained import Chained
from storage.db import open_database
from storage.errors import StorageError
from storage.keys import Keyring, load_keyring
from storage.ledger import LegacyRows
from storage.store import Store

CREATE = ["gob !create Gorbag goblin club spear",
          "olaf !create Olaf free-clans broadsword shield"]
DUEL = [
    ("olaf !challenge Gorbag", ()),
    ("gob !accept", (50, 40)),      # Olaf wins the initiative
    ("olaf !first", ()),
    ("olaf !attack", (20,)),        # a hit
    ("gob !dodge", (80, 5)),        # the dodge fails; damage 5 kills on leather
]


def played(tmp_path: Path) -> Club:
    club = Club(tmp_path)
    for line in CREATE:
        club.say(line)
    for line, rolls in DUEL:
        club.dice.push(*rolls)
        club.say(line)
    assert "wins by a kill" in club.last()
    return club


def sql(club: Club | Path, statement: str, **values: object) -> list[Any]:
    """One statement on the club's file, as a writer without the key runs it."""
    engine = create_engine(f"sqlite:///{club.db if isinstance(club, Club) else club}")
    try:
        with engine.begin() as connection:
            result = connection.execute(text(statement), values)
            return list(result) if result.returns_rows else []
    finally:
        engine.dispose()


def keyring(club: Club) -> Keyring:
    return load_keyring(club.db, create=False)


def checker(club: Club) -> Store:
    """A store of its own on the club's file, with the club's key (audit verify's)."""
    return Store(open_database(club.db), systems=SYSTEMS.rules, keyring=keyring(club))


def naming(problems: list[str], *words: str) -> bool:
    return any(all(word in problem for word in words) for problem in problems)


def ledger_size(club: Club) -> int:
    return int(sql(club, "SELECT COUNT(*) FROM ledger")[0][0])


def bump_version(club: Club) -> None:
    """What makes a running bot read the settings and moderators again: the club's
    version moved (any process's change does it; so can the writer)."""
    sql(club, "UPDATE club_version SET version = version + 1")


# -- 5. the legacy back door -------------------------------------------------------------------


def rewrite_as_legacy(club: Club) -> None:
    """Every row rewritten as a legacy row: plain SHA-256 over the previous hash and its
    content, anyone can compute; key ids and signatures cleared, the head's too."""
    rows = sql(club, "SELECT * FROM ledger ORDER BY id")
    previous = "0" * 64
    engine = create_engine(f"sqlite:///{club.db}")
    with engine.begin() as connection:
        for found in rows:
            row = dict(found._mapping)
            row["detail"] = json.loads(row["detail"]) if row["detail"] else None
            row["prev_hash"] = previous
            row["hash"] = previous = row_hash(previous, SimpleNamespace(**row))
            connection.execute(text("UPDATE ledger SET prev_hash = :p, hash = :h, key_id = NULL, "
                                    "signature = NULL WHERE id = :id"),
                               {"p": row["prev_hash"], "h": row["hash"], "id": row["id"]})
        connection.execute(text("UPDATE ledger_head SET last_hash = :h, key_id = NULL"),
                           {"h": previous})
    engine.dispose()


def test_a_chain_rewritten_as_legacy_rows_fails_verify_and_is_never_sealed(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    club = played(tmp_path)
    club.restart()                          # the bot proves the signed chain and notes it
    before = ledger_size(club)
    sql(club, "UPDATE ledger SET bp = 400 WHERE entry = 'award' AND warrior_id = "
        "(SELECT id FROM warriors WHERE name = 'Olaf')")   # what the forgery is for
    sql(club, "UPDATE warriors SET bp = 400 WHERE name = 'Olaf'")
    rewrite_as_legacy(club)
    store = checker(club)
    try:
        problems = store.verify()           # with the key: a failure, naming the command
        assert naming(problems, "legacy rows", "no signed row seals",
                      "ancath-bot db seal-legacy"), problems
        with pytest.raises(LegacyRows, match=r"ancath-bot db seal-legacy \[--db X"):
            club.restart()                  # the bot does not sign the forgery on its start
        with pytest.raises(StorageError, match="proved this ledger signed through row"):
            store.seal_legacy(legacy=True)  # nor the operator's command: the bot's note
        with pytest.raises(StorageError):
            store.change_sheet("Olaf", mod_bp(1, "mod", "nor any append"))
        with pytest.raises(LegacyRows):
            store.set_setting("fairy_folk_open", True, "mod", "nor any append")
    finally:
        store.engine.dispose()
    assert ledger_size(club) == before and "ledger rows written at the start" not in caplog.text


# -- 6. laundering through the bot ----------------------------------------------------------------


def skill_of(club: Club, name: str, skill: str) -> object:
    (profile,) = sql(club, "SELECT profile FROM warriors WHERE name = :n", n=name)[0]
    return json.loads(profile)["skills"].get(skill)


def set_stored_skill(club: Club, name: str, skill: str, value: int) -> None:
    (profile,) = sql(club, "SELECT profile FROM warriors WHERE name = :n", n=name)[0]
    changed = json.loads(profile)
    changed["skills"][skill] = value
    sql(club, "UPDATE warriors SET profile = :p WHERE name = :n", p=json.dumps(changed), n=name)


def fresh(tmp_path: Path) -> Club:
    club = Club(tmp_path)
    for line in CREATE:
        club.say(line)
    return club


def granted(tmp_path: Path) -> Club:
    club = fresh(tmp_path)
    club.say("mod !mod bp Gorbag +10.0 a grant")
    return club


def test_buying_from_a_skill_raised_in_sql_is_refused(tmp_path: Path) -> None:
    club = granted(tmp_path)
    set_stored_skill(club, "Gorbag", "club", 60)
    before = ledger_size(club)
    assert club.say("gob !buy Gorbag club") == [
        "#arena gob: Gorbag's stored sheet differs from the ledger (club 60, ledger says 30): "
        "a moderator must look; ancath-bot audit verify"]
    assert ledger_size(club) == before and skill_of(club, "Gorbag", "club") == 60
    set_stored_skill(club, "Gorbag", "club", 30)          # put back: the bot buys again
    assert club.say("gob !buy Gorbag club")[0].startswith("#arena gob: bought: Gorbag")
    assert club.referee.store.ledger("Gorbag")[-1]["reason"] == "bought club 30->40"
    assert club.referee.store.verify() == []


@pytest.mark.parametrize("line", ["mod !mod bp Gorbag +1.0 prize",
                                  "mod !mod skill Gorbag spear 40 mended",
                                  "mod !mod armour Gorbag none captured"])
def test_a_moderator_ruling_from_laundered_columns_is_refused(tmp_path: Path, line: str) -> None:
    club = granted(tmp_path)
    sql(club, "UPDATE warriors SET bp = 350 WHERE name = 'Gorbag'")   # 10.0 -> 35.0
    before = ledger_size(club)
    (said,) = club.say(line)
    assert said.endswith("Gorbag's stored sheet differs from the ledger (BP 35.0, ledger says "
                         "10.0): a moderator must look; ancath-bot audit verify"), said
    assert ledger_size(club) == before


@pytest.mark.parametrize(("launder", "differs"), [
    ("club", "club 95, ledger says 30"),
    ("owner", "its owner differs"),
    ("status", "status free, ledger says dead"),
])
def test_a_challenge_from_laundered_columns_is_refused(
        tmp_path: Path, launder: str, differs: str) -> None:
    club = granted(tmp_path) if launder != "status" else fresh(tmp_path)
    if launder == "club":
        set_stored_skill(club, "Gorbag", "club", 95)
    elif launder == "owner":      # Gorbag made mallory's, to be fought as hers
        sql(club, "UPDATE warriors SET owner = 'mallory' WHERE name = 'Gorbag'")
    else:                         # Gorbag killed in a mortal fight, raised in SQL
        club.say("olaf !challenge Gorbag mortal")
        for line, rolls in DUEL[1:]:
            club.dice.push(*rolls)
            club.say(line)
        assert club.warrior("Gorbag")["status"] == "dead", club.sent[-2:]
        sql(club, "UPDATE warriors SET status = 'free' WHERE name = 'Gorbag'")
    before = ledger_size(club)
    assert club.say("olaf !challenge Gorbag") == [
        f"#arena olaf: Gorbag's stored sheet differs from the ledger ({differs}): a moderator "
        "must look; ancath-bot audit verify"]
    assert ledger_size(club) == before and club.referee.tables.table("#arena").challenge is None


def test_an_accept_after_the_columns_changed_since_the_challenge_is_refused(
        tmp_path: Path) -> None:
    club = granted(tmp_path)
    club.say("olaf !challenge Gorbag")
    set_stored_skill(club, "Gorbag", "club", 95)   # between the challenge and the accept
    club.dice.push(50, 40)
    assert club.say("gob !accept") == [
        "#arena gob: Gorbag's stored sheet differs from the ledger (club 95, ledger says 30): "
        "a moderator must look; ancath-bot audit verify"]
    assert club.referee.tables.table("#arena").fight is None and club.dice.left == 2
    assert sql(club, "SELECT COUNT(*) FROM fights")[0][0] == 0


def test_a_fight_set_up_from_columns_changed_in_sql_then_put_back_fails_verify(
        tmp_path: Path) -> None:
    """The fight's setup edited in SQL (Gorbag's spear 30 -> 95, its start events made
    again to match, his side's account -> mal2) after the accept: the bot resumes it,
    mal2 plays Gorbag, and the bot signs the fight's end with its setup's digest.
    ``audit verify`` (database and export) names the sheet and the account the chain
    never gave Gorbag."""
    club = fresh(tmp_path)
    club.say("olaf !challenge Gorbag")
    club.dice.push(50, 40)
    club.say("gob !accept")
    (setup,) = sql(club, "SELECT setup FROM fights")[0]
    sheets = json.loads(setup)
    sheets["sheets"][1]["skills"]["spear"] = 95
    sql(club, "UPDATE fights SET setup = :s", s=json.dumps(sheets))
    _, events = AN_CATH.start("practice", tuple(AN_CATH.codec.decode(sheet)
                                                for sheet in sheets["sheets"]))
    for idx, event in enumerate(events):         # the writer runs the rules too
        sql(club, "UPDATE fight_events SET event = :e WHERE seq = 0 AND idx = :i",
            e=json.dumps(encode(event)), i=idx)
    sql(club, "UPDATE fight_sides SET account = 'mal2' WHERE side = 1")
    assert club.restart() == []                  # resumed as edited
    for line, rolls in (("olaf !first", ()), ("olaf !attack", (20,)), ("mal2 !dodge", (80, 5))):
        club.dice.push(*rolls)
        club.say(line)
    assert "wins by a kill" in club.last(), club.sent[-3:]
    store = checker(club)
    try:
        problems = store.verify()
        assert naming(problems, "fight 1: side 1's setup sheet is not Gorbag as the ledger "
                      "gives it", "spear 95, ledger says 30"), problems
        assert naming(problems, "fight 1: side 1 fought as account 'mal2'",
                      "Gorbag's owner by the ledger is 'gob'"), problems
        out = io.StringIO()
        store.export_audit(out)
        out.seek(0)
        exported = verify_export(out, store.keyring.public_keys,
                                 systems=SYSTEMS.rules).report.problems
        assert naming(exported, "side 1's setup sheet", "spear 95, ledger says 30"), exported
        assert naming(exported, "side 1 fought as account 'mal2'"), exported
    finally:
        store.engine.dispose()


def test_a_purchase_from_a_laundered_skill_fails_verify(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A purchase the bot signed from a club raised in SQL (``bought club 60->65``, as
    the code before this check signed it): the chain then holds 65 and the columns agree,
    but the row's old value is not what the chain gave before it."""
    club = granted(tmp_path)
    set_stored_skill(club, "Gorbag", "club", 60)
    with monkeypatch.context() as patched:        # the bot as it was: no check
        patched.setattr(Chained, "check", lambda _self, _session, row: {"owner": row.owner})
        assert club.say("gob !buy Gorbag club")[0].startswith("#arena gob: bought: Gorbag")
    assert club.referee.store.ledger("Gorbag")[-1]["reason"] == "bought club 60->65"
    problems = club.referee.store.verify()
    assert problems == [f"ledger row {ledger_size(club)}: Gorbag bought club from 60, but the "
                        "ledger gives 30 before it (bought from a stored value the chain does "
                        "not give)"], problems


def test_a_fights_awards_from_bp_raised_in_sql_during_it_are_refused(tmp_path: Path) -> None:
    """Awards are bounded from the stored BP (40.0 at most): raised in SQL during the
    fight, the fight's last command is refused rather than signed from it."""
    club = fresh(tmp_path)
    club.say("olaf !challenge Gorbag")
    for line, rolls in DUEL[1:-1]:
        club.dice.push(*rolls)
        club.say(line)
    sql(club, "UPDATE warriors SET bp = 395 WHERE name = 'Olaf'")
    before = ledger_size(club)
    club.dice.push(80, 5)
    assert club.say("gob !dodge") == [
        "#arena gob: Olaf's stored sheet differs from the ledger (BP 39.5, ledger says 0.0): a "
        "moderator must look; ancath-bot audit verify"]
    assert ledger_size(club) == before and club.referee.tables.table("#arena").fight is not None
    sql(club, "UPDATE warriors SET bp = 0 WHERE name = 'Olaf'")   # mended: it ends
    club.dice.push(80, 5)
    assert "wins by a kill" in club.say("gob !dodge")[0]
    assert club.referee.store.verify() == []


def test_what_the_check_costs_an_accept(tmp_path: Path) -> None:
    """An ``!accept`` checks both warriors against their ledger rows: once each warrior
    is known, only the rows since (none); measured here against an accept without it."""
    club = granted(tmp_path)
    for _ in range(40):                           # a veteran: 40 more rows of his own
        club.say("mod !mod bp Gorbag +0.1 a tenth")

    def accepts(n: int) -> float:
        took = 0.0
        for _ in range(n):
            club.say("olaf !challenge Gorbag")
            club.dice.push(50, 40)
            started = time.perf_counter()
            club.say("gob !accept")
            took += time.perf_counter() - started
            club.say("mod !mod end draw no contest")
            assert club.referee.tables.table("#arena").fight is None, club.sent[-2:]
        return took / n

    accepts(2)                                    # warm
    checked = accepts(10)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(Chained, "check", lambda _self, _session, row: {"owner": row.owner})
        unchecked = accepts(10)
    print(f"!accept: {checked * 1000:.2f} ms checked, {unchecked * 1000:.2f} ms without")
    assert checked < unchecked + 0.05


# -- 7. a pending challenge and settings forged in SQL -------------------------------------------


def test_a_pending_challenge_retargeted_in_sql_cannot_take_another_players_warrior(
        tmp_path: Path) -> None:
    club = granted(tmp_path)
    club.say("olaf !challenge Gorbag mortal")
    sql(club, "UPDATE challenges SET target_account = 'mallory'")
    club.restart()                                # the bot takes the challenge up as stored
    club.dice.push(50, 40)
    (said,) = club.say("mallory !accept")
    assert said.startswith("#arena mallory: Gorbag is not the warrior of whoever answers for "
                           "it here, by the ledger"), said
    assert sql(club, "SELECT COUNT(*) FROM fights")[0][0] == 0
    # the challenger's side forged instead: gob accepts a fight mallory would play
    sql(club, "UPDATE challenges SET target_account = 'gob', challenger_account = 'mallory'")
    club.restart()
    (said,) = club.say("gob !accept")
    assert said.startswith("#arena gob: Olaf is not the warrior of whoever answers"), said
    assert sql(club, "SELECT COUNT(*) FROM fights")[0][0] == 0


def started(tmp_path: Path) -> Club:
    club = fresh(tmp_path)
    club.say("olaf !challenge Gorbag")
    club.dice.push(50, 40)
    club.say("gob !accept")
    return club


@pytest.mark.parametrize("how", ["inserted", "changed"])
def test_a_time_limit_forged_in_sql_does_not_end_a_fight_by_forfeit(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, how: str) -> None:
    club = started(tmp_path)
    key = "timelimit:default:#arena"
    if how == "inserted":                         # no ledger row at all
        sql(club, "INSERT INTO settings (key, value, updated_by, updated_at) VALUES "
            "(:k, :v, 'mod', 'now')", k=key, v=json.dumps({"value": 0.001}))
    else:                                         # its ledger row says 10 minutes
        club.say("mod !mod timelimit 10 evening")
        sql(club, "UPDATE settings SET value = :v WHERE key = :k", k=key,
            v=json.dumps({"value": 0.001}))
    bump_version(club)
    with caplog.at_level(logging.WARNING, logger="ancath.ledger"):
        club.say("olaf !first")                   # a new time to decide, read again
        assert club.wait(0.5) == []               # not "Time is up for Olaf"
        bump_version(club)
        (said,) = club.say("gob !claim")
    assert said.startswith("#arena gob: your foe still has"), said
    warned = [r.getMessage() for r in caplog.records if key in r.getMessage()]
    assert len(warned) == 1 and "0.001" in warned[0], warned   # once


def test_an_ignore_list_forged_in_sql_is_not_obeyed(tmp_path: Path) -> None:
    club = granted(tmp_path)
    sql(club, "INSERT INTO settings (key, value, updated_by, updated_at) VALUES "
        "('ignored', :v, 'mod', 'now')", v=json.dumps({"value": ["olaf"]}))
    bump_version(club)
    assert club.say("olaf !sheet Olaf") != []
    club.say("mod !mod ignore olaf spamming")     # the chain's own list is obeyed
    assert club.say("olaf !sheet Olaf") == []


# -- 8. a moderator's removal deleted while the bot runs -------------------------------------------


def test_a_removal_deleted_while_the_bot_runs_brings_no_moderator_back(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    club = granted(tmp_path)
    club.say("mod !mod add carol helps")
    assert club.say("carol !mod bp Olaf +0.5 fine") == ["#arena carol: Olaf: +0.5 BP recorded"]
    club.say("mod !mod remove carol abused it")
    club.say("mod !mod bp Olaf +0.5 later")
    sql(club, "DELETE FROM ledger WHERE entry = 'moderator-removed'")
    bump_version(club)                            # the moderators read again
    before = ledger_size(club)
    with caplog.at_level(logging.WARNING, logger="ancath.ledger"):
        (said,) = club.say("carol !mod bp Olaf +3.0 mine")
    assert "only moderators use !mod" in said, said
    assert ledger_size(club) == before
    assert any("no moderator named in chat counts" in r.getMessage() and "rows deleted"
               in r.getMessage() for r in caplog.records)
    assert club.say("mod !mod bp Olaf +0.1 the file's moderators still rule") == [
        "#arena mod: Olaf: +0.1 BP recorded"]


def test_a_warrior_whose_rows_were_sealed_from_before_keys_is_checked_by_the_seal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warrior of a club sealed by ``db seal-legacy``: its legacy rows hold by the
    seal's walk, so the check passes; one of them edited later (rehashed, as a writer
    without the key can), with the columns to match, is refused."""
    db = tmp_path / "club.sqlite3"
    store = Store(open_database(str(db)), systems=SYSTEMS.rules, keyring=Keyring.of("k" * 40))

    def legacy_append(session: Session, _keyring: Keyring, **fields: Any) -> Any:
        head = session.execute(text("SELECT last_id, last_hash FROM ledger_head")).one()
        row = SimpleNamespace(**{**dict.fromkeys((
            "skill", "skill_value", "status", "captor_id", "detail", "moderator", "fight_id",
            "command_seq")), "bp": 0, "spent": 0, **fields, "id": head.last_id + 1})
        if row.entry == "created":
            row.detail = {"skills": fields["detail"]["skills"]}
        row.hash = row_hash(head.last_hash, row)
        session.execute(text(
            "INSERT INTO ledger (id, warrior_id, entry, bp, spent, skill, skill_value, status,"
            " captor_id, detail, actor, moderator, fight_id, command_seq, reason, created_at,"
            " prev_hash, hash) VALUES (:id, :warrior_id, :entry, :bp, :spent, :skill, "
            ":skill_value, :status, :captor_id, :detail, :actor, :moderator, :fight_id, "
            ":command_seq, :reason, :created_at, :prev, :hash)"),
            {**vars(row), "detail": json.dumps(row.detail) if row.detail else None,
             "prev": head.last_hash})
        session.execute(text("UPDATE ledger_head SET last_id = :id, last_hash = :h"),
                        {"id": row.id, "h": row.hash})
        return row

    try:
        with monkeypatch.context() as patched:    # the code before keys
            patched.setattr(ledger, "append", legacy_append)
            patched.setattr(Chained, "check", lambda _self, _session, row: {"owner": row.owner})
            store.create_warrior(warrior("Gorbag", "goblin", "club", "spear"), "gob")
            store.change_sheet("Gorbag", mod_bp(100, "mod", "a grant"))
        assert store.seal_legacy(legacy=True) == 2      # ledger-keyed, one attested row
        fresh = Store(store.engine, systems=SYSTEMS.rules, keyring=store.keyring)
        _, row = fresh.change_sheet("Gorbag", mod_bp(1, "mod", "checked by the seal"))
        assert row["bp"] == 1
        sql(db, "UPDATE ledger SET bp = 300 WHERE reason = 'a grant'")
        sql(db, "UPDATE warriors SET bp = 301 WHERE name = 'Gorbag'")
        again = Store(store.engine, systems=SYSTEMS.rules,
                      keyring=store.keyring)   # a new process: walks the seal
        with pytest.raises(StorageError, match="Gorbag's stored sheet differs from the ledger"):
            again.change_sheet("Gorbag", mod_bp(1, "mod", "refused"))   # its seal no longer holds
    finally:
        store.engine.dispose()
