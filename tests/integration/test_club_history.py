"""What the store says of a club's history (``storage.history``, ``storage.ledger_view``):
standings, a warrior's fights and counts, a fight in brief and its whole command log,
and the ledger filtered and paged, on a real SQLite file filled by playing fights
through the referee (``club_history.played``)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from club import Club
from club_history import played

from storage.errors import UnknownWarrior
from storage.ledger_view import LedgerFilter
from storage.models import Entry
from storage.store import Store


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Club:
    return played(tmp_path_factory.mktemp("history"))


@pytest.fixture(scope="module")
def store(club: Club) -> Store:
    return club.referee.store


def test_standings_by_bp_then_wins(store: Store) -> None:
    assert [(s.name, s.bp, s.wins, s.losses, s.draws) for s in store.standings()] == [
        ("Gorbag", 19, 1, 2, 1), ("Olaf", 18, 2, 1, 0), ("Bran", 1, 0, 0, 1)]
    assert [s.name for s in store.standings("goblin")] == ["Gorbag"]
    assert [s.name for s in store.standings("fairy")] == []


def test_a_warriors_fights_newest_first_with_what_each_brought(store: Store) -> None:
    assert [(f.id, f.kind, f.foe, f.result, f.ending, f.bp)
            for f in store.fight_history("olaf")] == [
        (3, "practice", "Gorbag", "lost", "escape", 1),
        (2, "mortal", "Gorbag", "won", "yield", 15),
        (1, "practice", "Gorbag", "won", "kill", 2)]
    assert [f.id for f in store.fight_history("Gorbag", 2)] == [4, 3]
    with pytest.raises(UnknownWarrior):
        store.fight_history("Nobody")


def test_a_warriors_counts(store: Store) -> None:
    olaf = store.warrior_stats("Olaf")
    assert (olaf.fights, olaf.wins, olaf.losses, olaf.draws, olaf.kills, olaf.yields,
            olaf.escapes, olaf.prisoners_taken, olaf.bp_fights, olaf.bp_moderators) == (
        3, 2, 1, 0, 1, 0, 1, 1, 18, 0)
    gorbag = store.warrior_stats("Gorbag")
    assert (gorbag.fights, gorbag.yields, gorbag.kills, gorbag.prisoners_taken,
            gorbag.bp_fights, gorbag.bp_moderators, gorbag.bp) == (4, 1, 0, 0, 9, 10, 19)


def test_a_fight_in_brief_and_its_whole_command_log(store: Store) -> None:
    fight = store.fight_summary(1)
    assert fight is not None
    assert (fight.names, fight.kind, fight.ending, fight.winner, fight.bp, fight.active) == (
        ("Olaf", "Gorbag"), "practice", "kill", 0, (2, 1), False)
    assert store.fight_summary(99) is None
    log = store.command_log(1)
    undo = next(c for c in log if c.data["type"] == "Undo")
    assert (undo.actor, undo.data["reason"], undo.data["keep"]) == ("mod", "misclick", 3)
    assert [c.data["type"] for c in log[3:5]] == ["Act", "Roll"]  # taken back, kept on record
    assert [s.id for s in store.fights(limit=2)] == [4, 3]
    assert [s.id for s in store.fights(before=3)] == [2, 1]


def test_the_ledger_filtered(store: Store) -> None:
    everything = store.ledger()
    assert store.ledger_window(LedgerFilter()).total == len(everything)
    by_mods = list(store.ledger_rows(where=LedgerFilter(moderated=True)))
    assert by_mods and all(r["moderator"] == "mod" for r in by_mods)
    assert list(store.ledger_rows(where=LedgerFilter(moderator="mod"))) == by_mods
    (bp,) = store.ledger_rows(where=LedgerFilter(entries=(Entry.MODERATOR_BP,)))
    assert (bp["warrior"], bp["bp"], bp["reason"]) == ("Gorbag", 1.0, "good sportsmanship")
    assert [r["id"] for r in store.ledger_rows(where=LedgerFilter(reason="SPORTS"))] == [bp["id"]]
    assert list(store.ledger_rows(where=LedgerFilter(reason="100%_"))) == []  # no wildcards
    assert {r["fight"] for r in store.ledger_rows(where=LedgerFilter(fight=2))} == {2}
    gorbag = list(store.ledger_rows(where=LedgerFilter(warrior="gorbag", entries=(Entry.AWARD,))))
    assert [r["bp"] for r in gorbag] == [0.1, 0.5, 0.2, 0.1]
    today = datetime.now(UTC).date()
    assert store.ledger_window(LedgerFilter(since=today, until=today)).total == len(everything)
    assert store.ledger_window(LedgerFilter(until=today - timedelta(days=1))).total == 0
    assert store.ledger_window(LedgerFilter(since=date(2999, 1, 1))).total == 0
    with pytest.raises(UnknownWarrior):
        store.ledger_rows(where=LedgerFilter(warrior="Nobody"))


def test_the_ledger_paged_newest_first(store: Store) -> None:
    ids = [r["id"] for r in store.ledger()][::-1]
    seen: list[int] = []
    before = None
    while True:
        page = store.ledger_page(LedgerFilter(), before=before, limit=7)
        seen += [r["id"] for r in page.rows]
        if page.older is None:
            break
        before = page.older
    assert seen == ids
    assert store.ledger_page(LedgerFilter(warrior="Bran"), limit=100).older is None


def test_a_capture_a_moderator_undid_is_no_prisoner_taken(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("olaf !challenge Gorbag mortal")
    club.dice.push(50, 40)
    club.say("gob !accept")
    club.say("olaf !second")
    club.say("gob !yield")
    club.say("olaf !accept prisoner")
    store = club.referee.store
    assert store.warrior_stats("Olaf").prisoners_taken == 1
    club.say("mod !mod undo the yield was a joke")
    assert store.warrior_stats("Olaf").prisoners_taken == 0
    club.say("olaf !accept prisoner")  # taken again: the fight ends again
    assert store.warrior_stats("Olaf").prisoners_taken == 1
