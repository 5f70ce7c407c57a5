"""Reading the ledger: every row with its warrior's name, one warrior's, or those a
:class:`LedgerFilter` picks (who, which moderator, what kind of row, words of the
reason, which days, which fight); whole and streamed in batches (``ancath-bot ledger``,
the downloads; as plain values for the command line's encoders), or a page at a time,
newest first, by row id (the leadership pages: a page costs the same at row 100 as at
row 100,000). Also its head with the whole MAC. The pages' lists with their counts, and
the moderators' actions, are :mod:`storage.paging`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, TypeVar, cast

from sqlalchemy import (
    Dialect,
    Row,
    Select,
    Text,
    TypeDecorator,
    func,
    select,
    type_coerce,
)
from sqlalchemy.orm import Session

from storage.damage import loads
from storage.ledger import Anchor, head_row
from storage.ledger_words import detail_words
from storage.models import Entry, LedgerRow, Warrior
from storage.records import LedgerEntry
from storage.unit_of_work import UnitOfWork
from storage.warrior_rows import warrior_row

__all__ = ["LEDGER_BATCH", "LEDGER_KEYS", "LedgerFilter", "LedgerPage", "LedgerView",
           "ledger_dict", "ledger_query"]

_Columns = tuple[Any, ...]
_T = TypeVar("_T")
LEDGER_BATCH = 1000
"""Ledger rows read per query when they are streamed."""
LEDGER_KEYS = ("id", "warrior", "entry", "bp", "spent", "skill", "skill_value", "status",
               "actor", "moderator", "fight", "reason", "detail", "at", "hash", "key")
"""A ledger row's keys (``LedgerEntry``'s), in order."""
_LEDGER_COLUMNS: _Columns = (
    LedgerRow.id, LedgerRow.entry, LedgerRow.bp, LedgerRow.spent, LedgerRow.skill,
    LedgerRow.skill_value, LedgerRow.status, LedgerRow.actor, LedgerRow.moderator,
    LedgerRow.fight_id, LedgerRow.reason, LedgerRow.detail, LedgerRow.created_at,
    LedgerRow.hash, LedgerRow.key_id)


@dataclass(frozen=True, slots=True)
class LedgerFilter:
    """Which ledger rows to read; every field left None takes them all."""

    warrior: str | None = None
    """A warrior's name (an unknown one is refused: ``UnknownWarrior``)."""
    moderator: str | None = None
    """The moderator's identity, exactly as the rows keep it."""
    entries: tuple[Entry, ...] = ()
    """Rows of any of these kinds (none given: of every kind)."""
    reason: str | None = None
    """Words the reason contains, in any case."""
    since: date | None = None
    """The first day (UTC) of rows to read."""
    until: date | None = None
    """The last day (UTC), whole."""
    fight: int | None = None
    moderated: bool = False
    """Only rows a moderator made."""


@dataclass(frozen=True, slots=True)
class LedgerPage:
    """Rows of the ledger, newest first, and where the next (older) page starts."""

    rows: list[LedgerEntry]
    older: int | None
    """Give it as ``before`` for the next page; None on the last."""


_ENTRIES = {entry.value: entry for entry in Entry}


def _ledger_values(row: Sequence[Any]) -> tuple[Any, ...]:
    """A ledger row's values in ``LEDGER_KEYS`` order, as ``Store.ledger`` gives them."""
    (id_, entry, bp, spent, skill, skill_value, status, actor, moderator, fight, reason,
     detail, at, digest, key, warrior) = row
    return (id_, warrior, _ENTRIES.get(entry) or Entry(entry), bp / 10, spent, skill,
            skill_value, status, actor, moderator, fight, reason,
            detail_words(entry, detail) if detail else "", at, digest, key)


def ledger_dict(row: Row[Any]) -> LedgerEntry:
    """A ledger row as ``Store.ledger`` gives it."""
    return cast(LedgerEntry, dict(zip(LEDGER_KEYS, _ledger_values(row), strict=True)))


def _like(words: str) -> str:
    escaped = words.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class _SQLiteDetail(TypeDecorator[Any]):
    """A SQLite ledger row's ``detail`` as its engines read JSON (``storage.damage.loads``),
    a null (SQL's or JSON's, as most rows hold) given as None without a parse."""

    impl = Text
    cache_ok = True

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        return None if value is None or value == "null" else loads(value)


_SQLITE_COLUMNS: _Columns = tuple(
    type_coerce(c, _SQLiteDetail()).label("detail") if c is LedgerRow.detail else c
    for c in _LEDGER_COLUMNS)


def ledger_query(session: Session, where: LedgerFilter) -> Select[*_Columns]:
    """The rows ``where`` picks, with their warrior's name (a fight's rows: none)."""
    sqlite = session.get_bind().dialect.name == "sqlite"
    query = select(*(_SQLITE_COLUMNS if sqlite else _LEDGER_COLUMNS),
                   Warrior.name.label("warrior")).outerjoin(
        Warrior, Warrior.id == LedgerRow.warrior_id)
    if where.warrior is not None:
        query = query.where(LedgerRow.warrior_id == warrior_row(session, where.warrior).id)
    if where.moderator is not None:
        query = query.where(LedgerRow.moderator == where.moderator)
    if where.moderated:
        query = query.where(LedgerRow.moderator.is_not(None))
    if where.entries:
        query = query.where(LedgerRow.entry.in_([entry.value for entry in where.entries]))
    if where.reason:
        query = query.where(func.lower(LedgerRow.reason).like(_like(where.reason.lower()),
                                                              escape="\\"))
    if where.since is not None:
        query = query.where(LedgerRow.created_at >= where.since.isoformat())
    if where.until is not None:
        query = query.where(LedgerRow.created_at < (where.until + timedelta(days=1)).isoformat())
    if where.fight is not None:
        query = query.where(LedgerRow.fight_id == where.fight)
    return query


class LedgerView(UnitOfWork):
    """The ledger read whole, streamed, counted or a page at a time."""

    def ledger(self, name: str | None = None, limit: int | None = None) -> list[LedgerEntry]:
        """Ledger rows, oldest first (the last ``limit`` when given), with warrior names."""
        if limit is None:
            return list(self.ledger_rows(name))
        page = self.ledger_page(LedgerFilter(warrior=name), limit=limit)
        return page.rows[::-1]

    def ledger_rows(self, name: str | None = None, batch: int | None = None,
                    where: LedgerFilter | None = None) -> Iterator[LedgerEntry]:
        """The rows of ``ledger`` (or those ``where`` picks) one by one, oldest first,
        read ``batch`` (``LEDGER_BATCH``) at a time by id, so memory stays flat however
        long the ledger is. Each batch is a read transaction of its own: a slow reader
        (a download) holds no connection and no snapshot between batches (a held one
        kept SQLite from checkpointing its log, and 15 slow downloads took every pooled
        connection). The ledger is append-only and numbered in commit order, so the rows
        are those of one moment: the last batch's. An unknown warrior is refused here,
        before any row."""
        return self._stream(self._checked(where or LedgerFilter(warrior=name)), batch,
                            ledger_dict)

    def ledger_values(self, name: str | None = None, batch: int | None = None,
                      where: LedgerFilter | None = None) -> Iterator[tuple[Any, ...]]:
        """The rows of ``ledger_rows`` as plain tuples of their values in ``LEDGER_KEYS``
        order, for the encoders that write a row's values in a fixed order."""
        return self._stream(self._checked(where or LedgerFilter(warrior=name)), batch,
                            _ledger_values)

    def _checked(self, where: LedgerFilter) -> LedgerFilter:
        with self._tx(write=False) as session:
            ledger_query(session, where)   # refuses an unknown warrior now
        return where

    def _stream(self, where: LedgerFilter, batch: int | None,
                shape: Callable[[Row[Any]], _T]) -> Iterator[_T]:
        size = batch or LEDGER_BATCH
        last = 0
        while True:
            with self._tx(write=False) as session:
                query = ledger_query(session, where).order_by(LedgerRow.id).limit(size)
                found = session.connection().execute(query.where(LedgerRow.id > last)).all()
            if not found:
                return
            yield from list(map(shape, found))   # a damaged row refused before its batch
            last = found[-1].id

    def ledger_page(self, where: LedgerFilter, before: int | None = None,
                    limit: int = 100) -> LedgerPage:
        """Up to ``limit`` rows ``where`` picks, newest first, of those numbered below
        ``before`` when given."""
        with self._tx(write=False) as session:
            query = ledger_query(session, where).order_by(LedgerRow.id.desc()).limit(limit + 1)
            if before is not None:
                query = query.where(LedgerRow.id < before)
            rows = [ledger_dict(row) for row in session.execute(query)]
        older = rows[limit - 1]["id"] if len(rows) > limit else None
        return LedgerPage(rows[:limit], older)

    def ledger_head(self) -> Anchor | None:
        """The chain's newest row as its head keeps it, with the whole MAC (``str`` of it
        is the published ``ledger #<id> <mac8>``); None while the ledger is empty."""
        with self._tx(write=False) as session:
            head = head_row(session)
            return Anchor(head.last_id, head.last_hash) if head and head.last_id else None
