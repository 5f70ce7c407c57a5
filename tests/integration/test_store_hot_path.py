"""The statements a chat command's store calls run, where they are run most: a warrior's
check against the chain reads its ledger rows in one query once it was checked in this
process; a new warrior's row goes in by a Core INSERT and a warrior is read by a Core
SELECT (no ORM statement). Each test runs on SQLite and PostgreSQL (``store``,
tests/integration/conftest.py)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import ORMExecuteState, Session
from transcript import warrior  # tests/unit, put on the path by conftest.py

from rules.ancath.stored import mod_bp
from rules.ancath.system import AN_CATH
from storage.store import Store

SIDES = [("Olaf", "olaf"), ("Gorbag", "gob")]


def ledger_reads(store: Store) -> list[str]:
    """The SELECTs of the ledger table run on ``store`` from now on."""
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        said = " ".join(statement.split()).upper()
        if said.startswith("SELECT") and " FROM LEDGER " in f"{said} ":
            seen.append(said)

    event.listen(store.engine, "before_cursor_execute", count)
    return seen


def test_a_warrior_checked_again_reads_its_rows_since_in_one_query(store: Store) -> None:
    """olaf !create Olaf ..., gob !create Gorbag ..., olaf !challenge Gorbag: each
    warrior's rows are read and checked; a second challenge reads each warrior's kept
    newest row and any after it in one query, and still checks them."""
    store.create_warrior(warrior("Olaf", "free-clans", "broadsword", "shield"), "olaf")
    store.create_warrior(warrior("Gorbag", "goblin", "club", "spear"), "gob")
    store.check_warriors(SIDES)
    reads = ledger_reads(store)
    store.check_warriors(SIDES)
    assert len(reads) == 2   # one a warrior
    fight, _events = store.open_fight("#pit", AN_CATH, "practice", SIDES, "gob", owned=True)
    assert fight.id and len(reads) == 2 + 2
    assert store.verify() == []


def orm_statements() -> list[str]:
    """The ORM statements run from now on, until :func:`stop` (any session)."""
    orm: list[str] = []

    def seen(state: ORMExecuteState) -> None:
        orm.append(type(state.statement).__name__)

    event.listen(Session, "do_orm_execute", seen)
    _LISTENING.append(seen)
    return orm


_LISTENING: list[Any] = []


def stop() -> None:
    while _LISTENING:
        event.remove(Session, "do_orm_execute", _LISTENING.pop())


def test_a_new_warrior_is_written_without_an_orm_statement(store: Store) -> None:
    """olaf !create Olaf ...: its row by a Core INSERT, its ``created`` row as ever."""
    orm = orm_statements()
    try:
        record = store.create_warrior(warrior("Olaf", "free-clans", "broadsword", "shield"),
                                      "olaf")
    finally:
        stop()
    assert orm == []
    assert record.owner == "olaf" and store.warrior("olaf").id == record.id
    assert [row["entry"] for row in store.ledger()] == ["created"]
    assert store.verify() == []


def test_a_warrior_is_read_without_an_orm_statement_and_as_its_unit_changed_it(
        store: Store) -> None:
    """gob !challenge Olaf reads Olaf by a Core SELECT; in a unit that changed Olaf
    (mod !mod bp Olaf +3.0 a gift), Olaf is read as changed, seated as it is."""
    store.create_warrior(warrior("Olaf", "free-clans", "broadsword", "shield"), "olaf")
    orm = orm_statements()
    try:
        read = store.warrior("olaf")
    finally:
        stop()
    assert orm == [] and read.sheet.bp == 0 and not read.in_fight and read.owner == "olaf"
    with store.unit(whole=True):
        store.change_sheet("Olaf", mod_bp(30, "mod", "a gift"))
        assert store.warrior("Olaf").sheet.bp == 30
    assert store.warrior("Olaf").sheet.bp == 30
    assert store.verify() == []
