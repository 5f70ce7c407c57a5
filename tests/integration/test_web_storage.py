"""What the leadership pages read that the chat does not: a live read-only SQLite
reader beside a running bot, the ledger's head with its whole MAC, and the moderators'
actions (their ledger rows with the undo records of the fights' command logs), on the
club of ``club_history.played``."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from club import Club
from club_history import played
from sqlalchemy import text

from bot.systems.registry import SYSTEMS
from storage.db import open_database, open_read_only
from storage.keys import Keyring
from storage.records import LedgerEntry, UndoRecord
from storage.store import Store


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Club:
    return played(tmp_path_factory.mktemp("web-storage"))


def test_a_live_reader_sees_what_is_written_after_it_opened(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = str(tmp_path / "live.sqlite3")
    open_database(url).dispose()   # the last connection closed: no -wal file is left
    assert not Path(f"{url}-wal").exists()
    opened: list[str] = []
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda name, **kw: opened.append(name) or connect(
        name, **kw))
    snapshot, live = open_read_only(url), open_read_only(url, live=True)
    reader = Store(live, systems=SYSTEMS.rules, keyring=Keyring())
    assert reader.standings() == Store(snapshot, systems=SYSTEMS.rules,
                                       keyring=Keyring()).standings() == []
    # a check of a file at rest may take it as unchanging; a live reader never does
    assert [uri.endswith("?mode=ro") for uri in opened[:2]] == [False, True]
    writer = open_database(url)
    with writer.begin() as connection:
        connection.execute(text(
            "INSERT INTO warriors (name, name_key, owner, system, profile, bp, bp_spent, "
            "status, created_at) VALUES ('Olaf', 'olaf', 'olaf', 'ancath', '{}', 0, 0, "
            "'free', '2026-01-01')"))
    assert [s.name for s in reader.standings()] == ["Olaf"]
    for engine in (writer, live, snapshot):
        engine.dispose()


def test_a_slow_reader_of_the_ledger_holds_no_connection_between_batches(club: Club) -> None:
    """A download streams the rows while the client reads them: between batches it must
    hold no pooled connection (15 slow downloads took all of them, and every page waited
    30 s and failed) and no read snapshot (SQLite could not checkpoint past it)."""
    engine = open_read_only(club.db, live=True)
    store = Store(engine, systems=SYSTEMS.rules, keyring=Keyring())
    rows = store.ledger_rows(batch=2)
    first = [next(rows), next(rows), next(rows)]   # into the second batch
    assert engine.pool.checkedout() == 0   # type: ignore[attr-defined]
    assert first + list(rows) == club.referee.store.ledger()
    engine.dispose()


def test_the_head_with_its_whole_mac(club: Club) -> None:
    store = club.referee.store
    head = store.ledger_head()
    newest = store.ledger()[-1]
    assert head is not None and (head.id, head.mac) == (newest["id"], newest["hash"])
    assert str(head) == str(store.anchor())   # ledger #20 <16 digits>, as published


def test_the_moderators_actions_newest_first_with_undo_records(club: Club) -> None:
    log = club.referee.store.moderator_window()
    rows = [e for e in log.items if not isinstance(e, UndoRecord)]
    assert [(r["entry"], r["warrior"], r["reason"]) for r in rows] == [
        ("moderator-bp", "Gorbag", "good sportsmanship"),
        ("fight-closed", None, "duel fight ended: draw; ruling: both left"),
        ("award", "Gorbag", "duel fight: draw; ruling: both left"),
        ("award", "Bran", "duel fight: draw; ruling: both left")]
    undo = log.items[-1]   # it took back no ledger row: only the command log has it
    assert isinstance(undo, UndoRecord)
    assert (undo.fight, undo.moderator, undo.reason, undo.keep) == (1, "mod", "misclick", 3)
    assert (log.above, len(log.items)) == (0, log.total)


def test_the_moderators_actions_paged(club: Club) -> None:
    store = club.referee.store
    whole = store.moderator_window().items
    seen: list[LedgerEntry | UndoRecord] = []
    before = None
    while True:
        page = store.moderator_window(before=before, limit=2)
        seen += page.items
        if page.above + len(page.items) == page.total:
            break
        before = page.places[-1]
    assert seen == whole and len(whole) == 5


def test_an_undo_comes_before_the_rows_it_wrote(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("olaf !challenge Gorbag practice")
    club.dice.push(50, 40)
    club.say("gob !accept")
    club.say("olaf !first")
    club.dice.push(20, 80, 5)   # Olaf hits, Gorbag's dodge fails, damage 5: a kill
    club.say("olaf !attack")
    assert "Olaf wins by a kill." in club.say("gob !dodge")[-1]
    club.say("mod !mod undo wrong dodge")
    entries = club.referee.store.moderator_window(limit=3).items
    assert isinstance(entries[0], UndoRecord) and entries[0].reason == "wrong dodge"
    assert [e["entry"] for e in entries[1:] if not isinstance(e, UndoRecord)] == [
        "fight-reopened", "reversal"]
    paged = club.referee.store.moderator_window(limit=1)
    assert paged.total > 1 and paged.places[-1].undo
    assert club.referee.store.moderator_window(before=paged.places[-1],
                                               limit=2).items == entries[1:]
