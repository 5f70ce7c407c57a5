"""What the leadership pages look up beside the ledger's proof: warriors by part of
their name (the search box) and the ledger's rows that make the ranking history, read
in one pass. Read-only, one read transaction per call.

Names compare as the bot compares them: case-folded (``Warrior.name_key``, R2.5)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import case, func, null, select

from storage.models import Entry, LedgerRow, Warrior
from storage.unit_of_work import UnitOfWork

__all__ = ["RANKING_ENTRIES", "Lookup"]

RANKING_ENTRIES = (Entry.CREATED.value, Entry.ATTESTED.value, Entry.RENAMED.value,
                   Entry.FIGHT_CLOSED.value, Entry.FIGHT_REOPENED.value)
"""Besides the rows that change BP, the rows the ranking reads: who is in it and by
which name, and who won each fight."""
_SAYING = (Entry.CREATED.value, Entry.ATTESTED.value, Entry.RENAMED.value,
           Entry.FIGHT_CLOSED.value)
"""The rows whose ``detail`` the ranking reads (a name, a fight's winner)."""
_BATCH = 2000
"""Rows read per query (by id, so no cursor stays open)."""


class Lookup(UnitOfWork):
    """The pages' look-ups (module docstring)."""

    def warriors_matching(self, text: str, limit: int) -> tuple[list[str], int]:
        """The warriors whose folded name holds ``text`` folded, those it begins first,
        then by name, the first ``limit`` of them; and how many there are in all."""
        folded = text.casefold()
        where = Warrior.name_key.contains(folded, autoescape=True)
        first = case((Warrior.name_key.startswith(folded, autoescape=True), 0), else_=1)
        with self._tx(write=False) as session:
            total = session.scalar(select(func.count()).where(where)) or 0
            names = list(session.scalars(select(Warrior.name).where(where)
                                         .order_by(first, Warrior.name_key).limit(limit)))
        return names, int(total)

    def ranking_rows(self, upto: int, take: Callable[[Iterator[Any]], None]) -> None:
        """The ledger rows through row ``upto`` that change BP or are of
        :data:`RANKING_ENTRIES`, in id order (``id``, ``warrior_id``, ``entry``, ``bp``,
        ``fight_id``, ``detail``, ``created_at``; ``detail`` None but for the rows of
        ``_SAYING``: the others' is neither read nor decoded), handed to ``take`` as they
        are read, in one read transaction."""
        detail = case((LedgerRow.entry.in_(_SAYING), LedgerRow.detail),
                      else_=null()).label("detail")
        query = (select(LedgerRow.id, LedgerRow.warrior_id, LedgerRow.entry, LedgerRow.bp,
                        LedgerRow.fight_id, detail, LedgerRow.created_at)
                 .where((LedgerRow.bp != 0) | LedgerRow.entry.in_(RANKING_ENTRIES))
                 .order_by(LedgerRow.id).limit(_BATCH))

        def rows(session: Any) -> Iterator[Any]:
            after = 0
            while after < upto and (found := session.execute(query.where(
                    LedgerRow.id > after, LedgerRow.id <= upto)).all()):
                yield from found
                after = found[-1].id

        with self._tx(write=False) as session:
            take(rows(session))
