"""The lists of the leadership pages a page at a time, newest first, by key (a row id,
a fight number, a place in the moderators' log): ``before`` a key for the older page,
``after`` one for the newer, so a page costs the same at row 100,000 as at row 100;
each page with how many the list holds and how many are newer than it, read in the
same transaction. Also a warrior's running BP after given ledger rows, summed from
its rows (every kind), which is what the ledger proves it had then."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Generic, TypeVar

from sqlalchemy import ColumnElement, Select, and_, false, func, or_, select, true
from sqlalchemy.orm import Session

from storage.fight_rebuild import UNDO
from storage.ledger_view import LedgerFilter, ledger_dict, ledger_query
from storage.models import Entry, Fight, FightCommand, LedgerRow
from storage.records import LedgerEntry, LogPlace, UndoRecord
from storage.unit_of_work import UnitOfWork
from storage.warrior_rows import warrior_row

__all__ = ["FIRST_PLACE", "Pages", "Window"]

_T = TypeVar("_T")
FIRST_PLACE = LogPlace("0001-01-01T00:00", False, 0)
"""Before every place in the moderators' log: ``after`` it is the oldest page."""
_DETAILED = frozenset(e.value for e in (Entry.MODERATOR_ADDED, Entry.MODERATOR_REMOVED,
                                        Entry.MODERATOR_ARMOUR))
"""The moderators' rows whose detail says what they changed (``Window.details``)."""


@dataclass(frozen=True, slots=True)
class Window(Generic[_T]):
    """One page of a list, newest first."""

    items: list[_T]
    above: int
    """How many of the list are newer than the page."""
    total: int
    """How many the list holds."""
    places: list[Any] = field(default_factory=list)
    """Each item's key (a moderators' log page: its ``LogPlace``)."""
    details: dict[int, dict[str, Any]] = field(default_factory=dict)
    """A moderators' log page: what a row's columns do not say, by row id."""


def _count(session: Session, query: Select[Any]) -> int:
    return session.scalar(select(func.count()).select_from(query.subquery())) or 0


def _keyed(session: Session, query: Select[Any], key: Any, before: int | None,
           after: int | None, limit: int) -> tuple[list[Any], int, int]:
    """The rows of ``query`` (newest first by ``key``) of one page, how many are newer,
    and how many it picks."""
    if after is not None:
        rows = list(session.execute(query.where(key > after).order_by(key).limit(limit)))[::-1]
    else:
        page = query.where(key < before) if before is not None else query
        rows = list(session.execute(page.order_by(key.desc()).limit(limit)))
    total = _count(session, query)
    if rows:
        above = _count(session, query.where(key > rows[0][0]))
    else:   # nothing older than ``before``: all newer; nothing newer than ``after``: none
        above = _count(session, query.where(key >= before)) if before is not None else 0
    return rows, above, total


def _beyond(at: Any, id_: Any, undo: bool, place: LogPlace,
            newer: bool) -> ColumnElement[bool]:
    """A table's entries (undos or rows, ``undo``) newer or older than ``place``: by
    time, then rows before undos, then by id."""
    if newer:
        tie = true() if undo > place.undo else id_ > place.id if undo == place.undo else false()
        return or_(at > place.at, and_(at == place.at, tie))
    tie = true() if undo < place.undo else id_ < place.id if undo == place.undo else false()
    return or_(at < place.at, and_(at == place.at, tie))


def _log(session: Session, rows: Select[Any], undos: Select[Any],
         place: LogPlace | None, newer: bool, limit: int,
         ) -> list[tuple[LogPlace, LedgerEntry | UndoRecord, Any]]:
    """One page of the log beyond ``place`` (newer or older), newest first."""
    row_at, row_id = LedgerRow.created_at, LedgerRow.id
    undo_at, undo_id = FightCommand.created_at, FightCommand.id
    if place is not None:
        rows = rows.where(_beyond(row_at, row_id, False, place, newer))
        undos = undos.where(_beyond(undo_at, undo_id, True, place, newer))
    if newer:
        rows, undos = rows.order_by(row_at, row_id), undos.order_by(undo_at, undo_id)
    else:
        rows = rows.order_by(row_at.desc(), row_id.desc())
        undos = undos.order_by(undo_at.desc(), undo_id.desc())
    found: list[tuple[LogPlace, LedgerEntry | UndoRecord, Any]] = []
    for row in session.execute(rows.limit(limit)):
        detail = dict(row.detail or {}) if row.entry in _DETAILED else None
        found.append((LogPlace(row.created_at, False, row.id), ledger_dict(row), detail))
    found += [(LogPlace(c.created_at, True, c.id), UndoRecord(
        c.fight_id, c.seq, c.actor, c.command.get("reason", ""),
        c.command.get("keep", 0), c.created_at), None)
        for c in session.scalars(undos.limit(limit))]
    found.sort(key=lambda entry: entry[0], reverse=not newer)
    found = found[:limit]
    return found[::-1] if newer else found


class Pages(UnitOfWork):
    """The leadership pages' lists a page at a time."""

    def ledger_window(self, where: LedgerFilter, before: int | None = None,
                      after: int | None = None, limit: int = 100) -> Window[LedgerEntry]:
        """The rows ``where`` picks, newest first: ``limit`` of those numbered below
        ``before``, or above ``after`` (the newer page), or the newest."""
        with self._tx(write=False) as session:
            rows, above, total = _keyed(session, ledger_query(session, where), LedgerRow.id,
                                        before, after, limit)
            return Window([ledger_dict(row) for row in rows], above, total)

    def fight_window(self, before: int | None = None, after: int | None = None,
                     limit: int = 50) -> Window[int]:
        """The fights' numbers, newest first, a page as ``ledger_window`` takes it."""
        with self._tx(write=False) as session:
            rows, above, total = _keyed(session, select(Fight.id), Fight.id, before, after,
                                        limit)
            return Window([row[0] for row in rows], above, total)

    def ledger_balances(self, warrior: str, ids: Collection[int],
                        known: tuple[int, int] = (0, 0)) -> dict[int, int]:
        """``warrior``'s BP in tenths after each of its ledger rows ``ids``: the sum of
        its rows' BP up to it, every kind of row counted. ``known``: a row below them
        all and the BP after it, to sum on from (streaming a warrior's rows)."""
        if not ids:
            return {}
        low, high = min(ids), max(ids)
        since, total = known
        with self._tx(write=False) as session:
            wid = warrior_row(session, warrior).id
            if not since:
                total = int(session.scalar(select(func.coalesce(func.sum(LedgerRow.bp), 0))
                                           .where(LedgerRow.warrior_id == wid,
                                                  LedgerRow.id < low)) or 0)
                since = low - 1
            steps = session.execute(select(LedgerRow.id, LedgerRow.bp).where(
                LedgerRow.warrior_id == wid, LedgerRow.id > since, LedgerRow.id <= high)
                .order_by(LedgerRow.id))
            out = {}
            for row_id, bp in steps:
                total += bp if isinstance(bp, int) else 0
                if row_id in ids:
                    out[row_id] = total
        return out

    def moderator_window(self, where: LedgerFilter | None = None,
                         before: LogPlace | None = None, after: LogPlace | None = None,
                         limit: int = 100) -> Window[LedgerEntry | UndoRecord]:
        """The moderators' ledger rows and undo records, newest first (an undo before the
        rows it wrote; its ``undo`` ledger row, which says the same, is left out), of
        ``where``'s moderator and days: ``limit`` older than ``before``, or newer than
        ``after``, or the newest."""
        where = where or LedgerFilter()
        with self._tx(write=False) as session:
            rows = ledger_query(session, LedgerFilter(
                moderator=where.moderator, since=where.since, until=where.until,
                moderated=True)).where(LedgerRow.entry != Entry.UNDO.value)
            undos = select(FightCommand).where(
                FightCommand.command["type"].as_string() == UNDO)
            if where.moderator is not None:
                undos = undos.where(FightCommand.actor == where.moderator)
            if where.since is not None:
                undos = undos.where(FightCommand.created_at >= where.since.isoformat())
            if where.until is not None:
                undos = undos.where(FightCommand.created_at < (
                    where.until + timedelta(days=1)).isoformat())
            total = _count(session, rows) + _count(session, undos)
            place, newer = (after, True) if after is not None else (before, False)
            found = _log(session, rows, undos, place, newer, limit)
            above = 0
            if found:
                first = found[0][0]
                above = _count(session, rows.where(_beyond(
                    LedgerRow.created_at, LedgerRow.id, False, first, True))) + _count(
                    session, undos.where(_beyond(FightCommand.created_at, FightCommand.id,
                                                 True, first, True)))
            elif after is None and before is not None:
                above = total
            details = {entry["id"]: dict(detail) for _, entry, detail in found
                       if isinstance(entry, dict) and detail is not None}
        return Window([entry for _, entry, _ in found], above, total,
                      [place for place, _, _ in found], details)
