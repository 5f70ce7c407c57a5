"""The transaction every store method runs in.

``UnitOfWork._tx`` is one transaction, committed whole or not at all, with the checks
around it (:mod:`storage.records_guard`: a lock held too long, a SQLite file deleted,
replaced or made unwritable under the bot, a server out of reach). ``_append`` writes a
ledger row in the transaction and keeps the newest as its anchor.

``UnitOfWork.unit`` is one write transaction for a whole chat command (Cosmic Python's
unit of work): every store method called inside it, on the thread that opened it, joins
it instead of opening its own, so the command reads, checks and writes in one
transaction, committed at the end or rolled back on any exception. It holds the
club's write lock from its first moment (SQLite's ``BEGIN IMMEDIATE``; on PostgreSQL a
transaction-scoped advisory lock), so two writing commands, in one bot or in two
processes on one database, run one after the other and never both pass a check that
the other's write would fail. Its writes' savepoints, and a *whole* unit's
(``unit(whole=True)``, a chat command's) lack of them: :mod:`storage.unit_savepoints`.

``UnitOfWork.reading`` is the read-only counterpart for a reader (a leadership page):
one read transaction, one snapshot, that every store method called inside it joins,
so what it reads is of one moment; a write inside it is refused.

``UnitOfWork.batch`` is group commit: one write transaction, and one sync to disk, for
several units, each a savepoint of it, so a unit that fails takes back only its own
rows, as when it was a transaction of its own; the batch commits once at its end, or
keeps nothing. A unit that ends refused with the transaction spoiled before its first
write (a read PostgreSQL refused ends the whole transaction) breaks the batch, which
then runs each command alone; and no unit or batch commits a transaction the database
has ended (``TransactionAborted``): its COMMIT would keep nothing and say nothing.

A unit's (or batch's) COMMIT that fails is not taken for "nothing kept"
(:mod:`storage.commit_outcome`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from storage import ledger
from storage.chained import Chained
from storage.commit_outcome import commit
from storage.db_engines import READ_ONLY
from storage.errors import BatchBroken, TransactionAborted
from storage.keys import Keyring, load_keyring
from storage.ledger import ANCHOR_DIGITS, Anchor
from storage.models import DEFAULT_NETWORK, Entry, Warrior
from storage.records_guard import RecordsGuard
from storage.sheets import Handed, Systems
from storage.unit_savepoints import Unit, aborted, busy, keep_anchor, write_savepoint

__all__ = ["VERSION_READ", "UnitOfWork", "now", "unique_conflict"]

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


_UNITS: ContextVar[tuple[Unit, ...]] = ContextVar("ancath_units", default=())
"""The units open in this thread (a context of its own per thread), one per store."""


class UnitOfWork(RecordsGuard):
    """One SQLAlchemy engine, the ledger keyring and the transaction every method of
    the store runs in (``_tx``); the store's parts (:mod:`storage.warrior_store`,
    :mod:`storage.fights`, ...) build on it.

    ``keyring`` signs and checks the ledger; without one, the first write loads the
    default for the engine's database (:func:`storage.keys.load_keyring`). ``network``
    is the IRC network whose fights, challenges and channels this store opens and
    resumes (the config's ``network``); warriors, the ledger and the club-wide settings
    are every network's. ``systems`` are the rules systems it is handed at start-up
    (:mod:`storage.sheets`): it reads and writes their warriors and fights, and refuses
    any other's."""

    def __init__(self, engine: Engine, clock: Callable[[], str] = now,
                 keyring: Keyring | None = None, network: str = DEFAULT_NETWORK, *,
                 systems: Handed) -> None:
        super().__init__(engine)
        self.network = network
        self.systems = systems if isinstance(systems, Systems) else Systems(systems)
        self._clock = clock
        self._keyring = keyring
        self._reads = engine.execution_options(**{READ_ONLY: True})
        self.chained = Chained(lambda: self.keyring, self.systems)
        """What the chain gives a warrior, the settings and the moderators, read before
        the bot writes from a stored value or obeys one (:mod:`storage.chained`)."""

    def _recorded(self, warrior: Warrior) -> dict[str, Any]:
        """``warrior``'s sheet as the ledger records it."""
        return self.systems.recorded(warrior.system, warrior.profile)

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
                if aborted(session):
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
                keep_anchor(session, before)
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
                with busy(), write_savepoint(unit):
                    yield session
                unit.wrote = True
            else:
                yield session
        except BaseException:
            session.info.pop("anchor", None)   # appended in what was rolled back
            raise
        finally:
            keep_anchor(session, before)

    def _append(self, session: Session, **fields: Any) -> None:
        """A ledger row in this transaction; the newest becomes the session's anchor."""
        row = ledger.append(session, self.keyring, **fields)
        session.info["anchor"] = Anchor(row.id, row.hash[:ANCHOR_DIGITS])

    def _append_fight(self, session: Session, fight_id: int, entry: Entry, **fields: Any) -> None:
        row = ledger.append_fight(session, self.keyring, fight_id, entry, **fields)
        session.info["anchor"] = Anchor(row.id, row.hash[:ANCHOR_DIGITS])
