"""An open unit of work (``storage.unit_of_work``) and its savepoints.

A store method's write inside a unit is a savepoint: when it fails, only its own rows
are taken back, as when it was a transaction of its own. A *whole* unit (a chat
command's) takes no savepoint per write: a write that fails fails the unit, and a
caller that catches it and goes on gets a ``RuntimeError`` at its next store call or at
the unit's end, nothing of it kept. In a batch (group commit) each unit is a savepoint
of the batch's transaction; a whole unit's is a bare ``SAVEPOINT`` statement taken at
its first write (a unit refused before it writes takes none) and never released (the
batch's COMMIT ends them all); one that fails after writing is rolled back to it, and
the session forgets its ORM objects (SQLAlchemy's ``begin_nested`` and its RELEASE
cost more: ``bench/README.md``, Group commit).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, SessionTransaction

from storage.commit_outcome import locked
from storage.errors import BatchBroken, RecordsBusy
from storage.ledger import Anchor

__all__ = ["Unit", "aborted", "busy", "keep_anchor", "write_savepoint"]


@contextmanager
def busy() -> Iterator[None]:
    """A lock waited for too long, as ``RecordsBusy``."""
    try:
        yield
    except OperationalError as error:
        if locked(error):
            raise RecordsBusy() from error
        raise


@dataclass(eq=False)
class Unit:
    """An open unit of work: one store's session, shared by every method called in it."""

    owner: object
    """The store whose unit it is (``UnitOfWork``)."""
    session: Session
    wrote: bool = False
    """Whether a store method wrote in it (what a rollback takes back); a batch, whether
    a unit in it wrote and was kept."""
    batch: bool = False
    """A batch's unit (``UnitOfWork.batch``): each unit opened in it is a savepoint."""
    broken: bool = False
    """A batch's savepoint could be neither released nor rolled back: it must not commit."""
    within: Unit | None = None
    """The batch of a unit opened in one."""
    savepoint: SessionTransaction | None = None
    """A unit's savepoint in its batch (a whole unit's is ``marked`` instead)."""
    marked: bool = False
    """A whole unit in a batch has taken its bare savepoint (at its first write)."""
    fresh: bool = False
    """The savepoint covers no write yet: the unit's first write takes no other (one
    round trip less each way on PostgreSQL)."""
    whole: bool = False
    """A write that fails fails the unit: no savepoint per write (``UnitOfWork.unit``)."""
    spoiled: bool = False
    """A write of a whole unit failed: it may only end, by the exception."""
    reading: bool = False
    """A read-only unit (``UnitOfWork.reading``): nothing may be written in it."""

    @property
    def changed(self) -> bool:
        """Whether rolling it back takes back more than its reads: it wrote, or a write
        of it failed (a whole unit's, which is not taken back alone)."""
        return self.wrote or self.spoiled

    def usable(self) -> None:
        """Refuse to go on in a whole unit whose write failed and was caught."""
        if self.spoiled:
            raise RuntimeError("a write failed in a unit that fails with it, and the unit "
                               "went on: nothing of it is kept")

    def settle(self, keep: bool, *, again: bool = False) -> None:
        """Release (``keep``) or roll back the savepoint of this unit in its batch, then
        begin another (``again``); a failure breaks the batch. A whole unit's rows,
        kept, are flushed before the next unit's savepoint; taken back, only when it
        changed something."""
        assert self.within is not None
        try:
            if self.whole:
                if keep:
                    self.session.flush()
                elif self.changed or aborted(self.session):
                    self._take_back()
                return
            assert self.savepoint is not None
            self.savepoint.commit() if keep else self.savepoint.rollback()
            if again:
                self.savepoint, self.fresh = self.session.begin_nested(), True
        except BaseException:
            self.within.broken = True
            raise

    def mark(self) -> None:
        """A whole unit's savepoint in its batch, once, before its first write."""
        if self.within is not None and not self.marked:
            self.session.connection().exec_driver_sql(f"SAVEPOINT {_MARK}")
            self.marked = True

    def _take_back(self) -> None:
        """A whole unit's rows out of its batch; its ORM objects out of the session. One
        that spoiled the transaction before its first write (a read PostgreSQL refused)
        has no savepoint to go back to (the one of that name is an earlier unit's)."""
        if not self.marked:
            raise BatchBroken("a unit failed before its savepoint was taken")
        self.session.connection().exec_driver_sql(f"ROLLBACK TO SAVEPOINT {_MARK}")
        self.session.expunge_all()


def aborted(session: Session) -> bool:
    """The database ended or spoiled the transaction under the session: PostgreSQL's
    after a statement failed (its COMMIT then keeps nothing, and says nothing), SQLite's
    after an error that rolls it back (a full disk)."""
    raw = session.connection().connection.driver_connection
    status = getattr(getattr(raw, "info", None), "transaction_status", None)
    if status is not None:   # psycopg
        return bool(status.name != "INTRANS")
    return not getattr(raw, "in_transaction", True)


_MARK = "unit"
"""The name of every whole unit's savepoint: a rollback goes to the newest of that name,
the failing unit's own."""


def keep_anchor(session: Session, before: Anchor | None) -> None:
    """The newest anchor of the unit again, when the method just done appended none."""
    if "anchor" not in session.info and before is not None:
        session.info["anchor"] = before


@contextmanager
def write_savepoint(unit: Unit) -> Iterator[None]:
    """A write's savepoint in ``unit``: its own, or for the first write of a unit in a
    batch, the unit's (rolled back and begun again when the write fails); none in a
    whole unit, which a failed write spoils."""
    if unit.whole:
        unit.mark()
        try:
            yield
        except BaseException:
            unit.spoiled = True
            raise
        return
    if not unit.fresh:
        with unit.session.begin_nested():
            yield
        return
    unit.fresh = False
    try:
        yield
    except BaseException:
        unit.settle(keep=False, again=True)
        raise
