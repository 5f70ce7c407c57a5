"""The transaction every store method runs in, and the checks around it.

``UnitOfWork._tx`` is one transaction, committed whole or not at all; a lock held too
long becomes ``RecordsBusy``, and a SQLite file deleted or replaced under the running
bot becomes ``RecordsLost`` (before and after, so nothing is acknowledged that went to
an unlinked file). ``_append`` writes a ledger row in the transaction and keeps the
newest as its anchor.

``UnitOfWork.unit`` is one write transaction for a whole chat command (Cosmic Python's
unit of work): every store method called inside it, on the thread that opened it, joins
it instead of opening its own, so the command reads, checks and writes in one
transaction, committed at the end or rolled back on any exception. It holds the
club's write lock from its first moment (SQLite's ``BEGIN IMMEDIATE``; on PostgreSQL a
transaction-scoped advisory lock), so two writing commands, in one bot or in two
processes on one database, run one after the other and never both pass a check that
the other's write would fail. A store method's write inside a unit is a savepoint: when
it fails, only its own rows are taken back, as when it was a transaction of its own.
A *whole* unit (``unit(whole=True)``, a chat command's) takes no savepoint per write: a
write that fails fails the unit, and a caller that catches it and goes on gets a
``RuntimeError`` at its next store call or at the unit's end, nothing of it kept (a
SAVEPOINT and its RELEASE were a tenth of a command's time).

``UnitOfWork.reading`` is the read-only counterpart for a reader (a leadership page):
one read transaction, one snapshot, that every store method called inside it joins,
so what it reads is of one moment; a write inside it is refused.

``UnitOfWork.batch`` is group commit: one write transaction, and one sync to disk, for
several units. Each unit opened inside it is a savepoint of its own, so a unit that fails
takes back only its own rows, as when it was a transaction of its own; the batch commits
once at its end, or keeps nothing. A whole unit's savepoint is a bare ``SAVEPOINT``
statement taken at its first write (a unit refused before it writes takes none) and
never released (the batch's COMMIT ends them all); one that fails after writing is
rolled back to it, and the session forgets its ORM objects. SQLAlchemy's
``begin_nested`` and its RELEASE, a pair a command, cost a fifth of a batched command's
CPU on SQLite and a round trip each way more on PostgreSQL. A unit that ends refused
with the transaction spoiled before its first write (a read PostgreSQL refused ends the
whole transaction) breaks the batch, which then runs each command alone; and no unit
or batch commits a transaction the database has ended (``TransactionAborted``): its
COMMIT would keep nothing and say nothing.

A unit's (or batch's) COMMIT that fails is not taken for "nothing kept"
(:mod:`storage.commit_outcome`).

Before every transaction a SQLite file the bot writes, its write-ahead log and its
shared memory must still be writable: one made immutable or read-only under the running
bot becomes ``RecordsUnwritable`` before SQLite touches it (its mapped ``-shm`` would
kill the process with SIGBUS), as does a write that fails on them. A PostgreSQL server
out of reach becomes ``DatabaseUnreachable``: one WARNING when an outage begins, one line
when a transaction works again (:meth:`UnitOfWork.outage`).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm import Session, SessionTransaction

from storage import ledger
from storage.chained import Chained
from storage.commit_outcome import commit, locked
from storage.db import (
    READ_ONLY,
    shown_url,
    sqlite_path,
    unreachable,
    unwritable,
    written_files,
)
from storage.errors import (
    BatchBroken,
    CommitUnknown,
    DatabaseUnreachable,
    RecordsBusy,
    RecordsLost,
    RecordsUnwritable,
    TransactionAborted,
)
from storage.keys import Keyring, load_keyring
from storage.ledger import ANCHOR_DIGITS, Anchor
from storage.models import DEFAULT_NETWORK, Entry

__all__ = ["VERSION_READ", "Unit", "UnitOfWork", "now", "unique_conflict"]

log = logging.getLogger("ancath.records")

UNIT_LOCK = 0x616E63617468
"""The PostgreSQL advisory lock a unit holds (the same number in every process)."""
VERSION_READ = "club_version"
"""Where a unit's session keeps the club's version as read in its transaction
(``storage.club.VersionReader``); forgotten with what a savepoint takes back."""


def unique_conflict(error: IntegrityError) -> bool:
    """A unique index refused the row: the one conflict two writers racing cause. Any
    other refusal (a check, a trigger) is a fault, not a race, and is not worded as one."""
    orig = error.orig
    return getattr(orig, "sqlstate", None) == "23505" or \
        "UNIQUE constraint failed" in str(orig)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


@contextmanager
def _busy() -> Iterator[None]:
    """A lock waited for too long, as ``RecordsBusy``."""
    try:
        yield
    except OperationalError as error:
        if locked(error):
            raise RecordsBusy() from error
        raise


def _unwritable(name: str) -> RecordsUnwritable:
    return RecordsUnwritable(
        f"{name} cannot be written any more (made immutable or read-only while the bot "
        "ran); nothing is written from now on: stop the bot, make it writable (chattr -i, "
        "chmod u+w, or a read-write mount) and start it again")


@dataclass(eq=False)
class Unit:
    """An open unit of work: one store's session, shared by every method called in it."""

    owner: UnitOfWork
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
                elif self.changed or _aborted(self.session):
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


def _aborted(session: Session) -> bool:
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


_UNITS: ContextVar[tuple[Unit, ...]] = ContextVar("ancath_units", default=())
"""The units open in this thread (a context of its own per thread), one per store."""


def _keep_anchor(session: Session, before: Anchor | None) -> None:
    """The newest anchor of the unit again, when the method just done appended none."""
    if "anchor" not in session.info and before is not None:
        session.info["anchor"] = before


@contextmanager
def _write_savepoint(unit: Unit) -> Iterator[None]:
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


class UnitOfWork:
    """One SQLAlchemy engine, the ledger keyring and the transaction every method of
    the store runs in (``_tx``); the store's parts (:mod:`storage.warriors`,
    :mod:`storage.fights`, ...) build on it.

    ``keyring`` signs and checks the ledger; without one, the first write loads the
    default for the engine's database (:func:`storage.keys.load_keyring`). ``network``
    is the IRC network whose fights, challenges and channels this store opens and
    resumes (the config's ``network``); warriors, the ledger and the club-wide settings
    are every network's."""

    def __init__(self, engine: Engine, clock: Callable[[], str] = now,
                 keyring: Keyring | None = None, network: str = DEFAULT_NETWORK) -> None:
        self.engine = engine
        self.network = network
        self._clock = clock
        self._keyring = keyring
        self._reads = engine.execution_options(**{READ_ONLY: True})
        self._file = sqlite_path(engine.url.render_as_string(hide_password=False))
        self._inode = self._identity()
        self._written = written_files(engine)
        """The SQLite files that must stay writable (none for a reader, or PostgreSQL)."""
        self._down = False
        """An outage of the database server is going on (logged once, :meth:`outage`)."""
        self._outage_lock = threading.Lock()
        self.chained = Chained(lambda: self.keyring)
        """What the chain gives a warrior, the settings and the moderators, read before
        the bot writes from a stored value or obeys one (:mod:`storage.chained`)."""

    def _identity(self) -> tuple[int, int] | None:
        """The SQLite file's device and inode (None: not SQLite, or no file)."""
        if self._file is None:
            return None
        try:
            found = os.stat(self._file)
        except FileNotFoundError:
            return None
        return found.st_dev, found.st_ino

    def _still_there(self) -> None:
        """Refuse to go on when the file was deleted or replaced under the bot: SQLite
        would go on writing to the unlinked file, and every command would be lost."""
        if self._file is not None and self._identity() != self._inode:
            raise RecordsLost(f"{self._file} was deleted or replaced while the bot ran; "
                              "nothing written since is kept: stop the bot and restore "
                              "the file from a backup")

    def usable(self) -> None:
        """Refuse to touch the database when its SQLite file was deleted or replaced
        (``RecordsLost``) or cannot be written any more (``RecordsUnwritable``): what
        every transaction checks first, for a read made beside them (the club's version)."""
        self._still_there()
        self._writable()

    def _writable(self) -> None:
        """Refuse to touch the database when its SQLite files cannot be written any more
        (``RecordsUnwritable``): checked before every transaction, by ``access`` alone."""
        if self._written:
            blocked = unwritable(self._written)
            if blocked is not None:
                raise _unwritable(blocked)

    @contextmanager
    def _faults(self) -> Iterator[None]:
        """What a transaction's failure means: a lock waited out (``RecordsBusy``), the
        SQLite files made unwritable under it (``RecordsUnwritable``), the server out of
        reach (``DatabaseUnreachable``, :meth:`outage`); and after an outage, a
        transaction that ends well says the database is back."""
        try:
            yield
        except OperationalError as error:
            if locked(error):
                raise RecordsBusy() from error
            self._fault(error)
            raise
        except (DBAPIError, CommitUnknown) as error:
            self._fault(error)
            raise
        if self._down:
            self._back()

    def _fault(self, error: Exception) -> None:
        if self._written:
            blocked = unwritable(self._written)
            if blocked is not None:
                raise _unwritable(blocked) from error
        if self.outage(error):
            raise DatabaseUnreachable() from error

    def outage(self, error: BaseException) -> bool:
        """Whether ``error`` is the database server out of reach; the first of an outage
        is logged, one WARNING, and its end once a transaction works again."""
        if isinstance(error, DatabaseUnreachable):
            return True
        if not unreachable(error):
            return False
        with self._outage_lock:
            if not self._down:
                self._down = True
                said = str(getattr(error, "orig", None) or error).strip().splitlines()
                log.warning("the database %s is out of reach (%s): every command that needs "
                            "the club's records is refused until it is back",
                            shown_url(self.engine.url.render_as_string(hide_password=False)),
                            said[0] if said else "")
        return True

    def _back(self) -> None:
        with self._outage_lock:
            if self._down:
                self._down = False
                log.warning("the database %s is back: commands are taken again",
                            shown_url(self.engine.url.render_as_string(hide_password=False)))

    @property
    def keyring(self) -> Keyring:
        if self._keyring is None:
            self._keyring = load_keyring(self.engine.url.render_as_string(hide_password=False))
        return self._keyring

    def _open_unit(self) -> Unit | None:
        """The innermost unit of this store open on this thread."""
        return next((unit for unit in reversed(_UNITS.get()) if unit.owner is self), None)

    def in_unit(self) -> bool:
        """Whether this thread has a unit of this store open."""
        return self._open_unit() is not None

    @contextmanager
    def unit(self, *, whole: bool = False) -> Iterator[Unit]:
        """One write transaction for everything the store does inside the ``with``, on
        this thread: committed at its end, rolled back when an exception leaves it (a
        refusal included), nothing of it kept. A unit opened inside one joins it; inside
        a batch it is a savepoint of the batch's transaction. ``whole``: a write that
        fails fails the unit, which takes no savepoint per write (module docstring)."""
        opened = self._open_unit()
        if opened is not None and opened.batch:
            with self._part(opened, whole) as unit:
                yield unit
        elif opened is not None:
            yield opened
        else:
            with self._write_lock(batch=False, whole=whole) as unit:
                yield unit

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One read transaction, one snapshot, for every store method called inside the
        ``with`` on this thread (what a leadership page shows is of one moment: the
        ledger as proved and the columns beside it). Nothing may be written in it; it
        opens inside no other unit."""
        if self._open_unit() is not None:
            raise RuntimeError("a reading opens inside no other unit")
        self._still_there()
        self._writable()
        with self._faults(), Session(self._reads, expire_on_commit=False) as session, \
                session.begin():
            token = _UNITS.set((*_UNITS.get(), Unit(self, session, reading=True)))
            try:
                yield
            finally:
                _UNITS.reset(token)

    @contextmanager
    def batch(self) -> Iterator[Unit]:
        """One write transaction for the units opened inside the ``with`` on this thread
        (group commit): committed once at its end, unless a savepoint broke
        (``BatchBroken``); any exception that leaves it keeps none of it."""
        if self._open_unit() is not None:
            raise RuntimeError("a batch opens no unit of its own inside another")
        with self._write_lock(batch=True) as batch:
            yield batch
            if batch.broken:
                raise BatchBroken("a savepoint of the batch could not be settled")

    @contextmanager
    def _write_lock(self, *, batch: bool, whole: bool = False) -> Iterator[Unit]:
        """A new write transaction holding the club's write lock from its first moment."""
        self._still_there()
        self._writable()
        with self._faults(), Session(self.engine, expire_on_commit=False) as session:
            transaction = session.begin()
            xid: int | None = None
            try:
                session.connection()   # SQLite's BEGIN IMMEDIATE: the write lock, now
                if session.get_bind().dialect.name == "postgresql":
                    xid = session.execute(text("SELECT pg_advisory_xact_lock(:key), "
                                               "txid_current()"), {"key": UNIT_LOCK}).one()[1]
                unit = Unit(self, session, batch=batch, whole=whole)
                token = _UNITS.set((*_UNITS.get(), unit))
                try:
                    yield unit
                finally:
                    _UNITS.reset(token)
                unit.usable()
                session.flush()   # a refused row fails here, not in the COMMIT
                if _aborted(session):
                    raise TransactionAborted("a failed statement was caught and the unit "
                                             "went on: nothing of it is kept")
            except BaseException:
                transaction.rollback()
                raise
            commit(transaction, self.engine, xid)
        self._still_there()  # committed to the file we opened, or not acknowledged

    @contextmanager
    def _part(self, batch: Unit, whole: bool) -> Iterator[Unit]:
        """A unit inside ``batch``: a savepoint, released at its end or rolled back when
        an exception leaves it; one that can be neither breaks the batch. A whole unit's
        is bare, and taken at its first write (module docstring)."""
        session = batch.session
        before = session.info.get("anchor")
        unit = Unit(self, session, within=batch, whole=whole, fresh=not whole,
                    savepoint=None if whole else session.begin_nested())
        token = _UNITS.set((*_UNITS.get(), unit))
        try:
            try:
                yield unit
                unit.usable()
            except BaseException:
                unit.settle(keep=False)
                session.info.pop("anchor", None)   # appended in what was rolled back
                session.info.pop(VERSION_READ, None)   # perhaps moved in it
                _keep_anchor(session, before)
                raise
            unit.settle(keep=True)
            batch.wrote = batch.wrote or unit.wrote
        finally:
            _UNITS.reset(token)

    @contextmanager
    def _tx(self, *, write: bool = True) -> Iterator[Session]:
        """One transaction; ``write=False`` for one that only reads (it does not queue
        behind writers, another process's included). Inside a unit, the unit's."""
        opened = self._open_unit()
        if opened is not None:
            with self._joined(opened, write) as session:
                yield session
            return
        self._still_there()
        self._writable()
        engine = self.engine if write else self._reads
        with self._faults(), Session(engine, expire_on_commit=False) as session, \
                session.begin():
            yield session
        self._still_there()  # committed to the file we opened, or not acknowledged

    @contextmanager
    def _joined(self, unit: Unit, write: bool) -> Iterator[Session]:
        """The unit's session for one method: a write in a savepoint of its own; the
        session's anchor is the one this method appended while it runs."""
        unit.usable()
        if write and unit.reading:
            raise RuntimeError("a store method writes inside a read-only unit (reading)")
        session = unit.session
        before = session.info.pop("anchor", None)
        try:
            if write:
                with _busy(), _write_savepoint(unit):
                    yield session
                unit.wrote = True
            else:
                yield session
        except BaseException:
            session.info.pop("anchor", None)   # appended in what was rolled back
            raise
        finally:
            _keep_anchor(session, before)

    def _append(self, session: Session, **fields: Any) -> None:
        """A ledger row in this transaction; the newest becomes the session's anchor."""
        row = ledger.append(session, self.keyring, **fields)
        session.info["anchor"] = Anchor(row.id, row.hash[:ANCHOR_DIGITS])

    def _append_fight(self, session: Session, fight_id: int, entry: Entry, **fields: Any) -> None:
        row = ledger.append_fight(session, self.keyring, fight_id, entry, **fields)
        session.info["anchor"] = Anchor(row.id, row.hash[:ANCHOR_DIGITS])
