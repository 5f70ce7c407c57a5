"""What the club keeps besides warriors and fights: the pending challenges (the store's
network's), the settings, and the moderators named in chat (read from their ledger rows).
Every change of a setting is a ``setting-changed`` ledger row too, on no warrior, written
in the change's transaction: who, what (the key and the new value; a secret's key only)
and why.

Several processes may keep the settings and moderators in memory (``bot.referee``):
every change of them adds one to the club's version (``ClubVersion``) in its own
transaction, and a process reads that one row each command to know whether what it
keeps is still the club's (``club_version``, or a ``VersionReader`` for a process that
reads it at every command; ``club_state`` reads it all again).
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Connection, Engine, bindparam, delete, event, insert, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from storage import ledger, ledger_trust
from storage.damage import setting_value
from storage.models import ClubVersion, Entry, LedgerRow, PendingChallenge, Setting
from storage.proof import CHECKED
from storage.records import ChallengeRecord, ClubState
from storage.unit_of_work import VERSION_READ, UnitOfWork

__all__ = ["HOME_NETWORK", "SECRET_SETTING", "Club", "VersionReader", "drop_pending",
           "is_secret_setting", "seal_digest", "setting_detail"]

HOME_NETWORK = "accounts:home"
"""The club-wide setting naming the network whose accounts are the club's names."""
SECRET_SETTING = "moderator-password:"
"""The start of the key of a setting that holds a secret (a moderator's sealed password
hash, ``bot.chat.moderators.password_key``): its ledger row names the key, never the
value."""


def is_secret_setting(key: str) -> bool:
    """Whether the setting ``key`` holds a secret (:data:`SECRET_SETTING`)."""
    return key.startswith(SECRET_SETTING)


def seal_digest(value: Any) -> str | None:
    """A digest of a secret's seal (the ``mac`` of a sealed password hash), for its
    ``setting-changed`` row: it names which sealed value is the newest, so an older one
    put back counts for nothing, and says nothing of the hash. None: no seal."""
    mac = value.get("mac") if isinstance(value, dict) else None
    if not isinstance(mac, str):
        return None
    return hashlib.sha256(f"secret-seal\0{mac}".encode()).hexdigest()


def setting_detail(key: str, value: Any) -> dict[str, Any]:
    """What a ``setting-changed`` row holds: the key and the new value, or for a secret
    the key only, with the digest of its seal when it has one (:func:`seal_digest`)."""
    if not is_secret_setting(key):
        return {"key": key, "value": value}
    seal = seal_digest(value)
    return {"key": key} if seal is None else {"key": key, "seal": seal}

_VERSION = select(ClubVersion.version).where(ClubVersion.id == 1)
_BUMP = update(ClubVersion).where(ClubVersion.id == 1).values(version=ClubVersion.version + 1)


def _bump(session: Session) -> None:
    """One more change of the club's settings or moderators, in this transaction (the
    row is migration 0007's; read and written on the connection, never an ORM object)."""
    session.connection().execute(_BUMP)
    session.info.pop(VERSION_READ, None)   # read again (this write may yet be taken back)


_CHALLENGE = tuple(field.name for field in fields(ChallengeRecord))
_PUT = insert(PendingChallenge)
_DROP = delete(PendingChallenge).where(PendingChallenge.network == bindparam("network"),
                                       PendingChallenge.channel_key == bindparam("key"))


def drop_pending(session: Session, network: str, channel: str) -> None:
    """The channel's pending challenge gone, in this transaction. The table is read and
    written on the connection only (Core), never as ORM objects: an ORM DELETE would
    look for them in the session first, and with none there none is ever left stale."""
    session.connection().execute(_DROP, {"network": network, "key": channel.casefold()})


class Club(UnitOfWork):
    """Pending challenges, settings and chat-named moderators, one transaction each."""

    def put_challenge(self, record: ChallengeRecord) -> None:
        """Keep ``record`` as its channel's pending challenge, in place of any other."""
        with self._tx() as session:
            drop_pending(session, self.network, record.channel)
            session.connection().execute(_PUT, {
                "network": self.network, "channel_key": record.channel.casefold(),
                "created_at": self._clock(), **asdict(record)})

    def drop_challenge(self, channel: str) -> None:
        """The channel's pending challenge was answered, withdrawn or lapsed."""
        with self._tx() as session:
            drop_pending(session, self.network, channel)

    def challenges(self, serves: Callable[[str], bool] = lambda _channel: True,
                   ) -> list[ChallengeRecord]:
        """Every pending challenge of this network in a channel ``serves`` names, oldest
        first."""
        with self._tx(write=False) as session:
            rows = session.connection().execute(
                select(*(getattr(PendingChallenge, name) for name in _CHALLENGE))
                .where(PendingChallenge.network == self.network)
                .order_by(PendingChallenge.created_at))
            return [ChallengeRecord(*row) for row in rows if serves(row.channel)]

    # -- settings -----------------------------------------------------------------------

    def club_version(self) -> int:
        """How many times the settings and the chat-named moderators have changed: one
        row by its key (in the unit's transaction inside one)."""
        with self._tx(write=False) as session:
            return session.scalar(_VERSION) or 0

    def club_state(self, same: Callable[[str], str] = str) -> ClubState:
        """Every setting and the chat-named moderators (``moderators``), with the
        version they are at, read together."""
        with self._tx(write=False) as session:
            version = session.scalar(_VERSION) or 0   # first: what follows is as new
            session.info[VERSION_READ] = version   # what a unit's VersionReader reads next
            settings = {row.key: setting_value(row.key, row.value)
                        for row in session.scalars(select(Setting))}
            settings = self.chained.settings(   # obeyed as the chain says them
                session, settings, lambda key: is_secret_setting(key) or key == CHECKED)
            return ClubState(version, settings, self._moderators(session, same))

    def setting(self, key: str, default: Any = None) -> Any:
        with self._tx(write=False) as session:
            row = session.get(Setting, key)
            return setting_value(key, row.value, default) if row else default

    def set_setting(self, key: str, value: Any, actor: str, reason: str = "",
                    moderator: str | None = None) -> None:
        """Change a setting; who, when and why are kept with it, and in the same
        transaction a ``setting-changed`` ledger row on no warrior says so (``actor``;
        ``moderator`` when a moderator changed it; the key and the new value, the key
        only for a secret: :func:`setting_detail`)."""
        now = self._clock()
        with self._tx() as session:
            self._append(session, warrior_id=None, entry=Entry.SETTING_CHANGED,
                         detail=setting_detail(key, value), actor=actor,
                         moderator=moderator, reason=reason, created_at=now)
            _bump(session)
            row = session.get(Setting, key)
            if row is None:
                row = Setting(key=key, value={}, updated_by=actor, updated_at="")
                session.add(row)
            row.value = {"value": value, "reason": reason} if reason else {"value": value}
            row.updated_by, row.updated_at = actor, now

    def newest_seal(self, key: str) -> str | None:
        """The seal digest (:func:`seal_digest`) the newest ``setting-changed`` row of
        the secret ``key`` names, of the rows that hold under the keyring
        (``ledger_trust.holds``); None when there is none, or when it names no seal (the
        secret was removed, or set before rows named seals)."""
        with self._tx(write=False) as session:
            rows = session.scalars(select(LedgerRow).where(
                LedgerRow.entry == Entry.SETTING_CHANGED,
                LedgerRow.detail["key"].as_string() == key).order_by(LedgerRow.id.desc()))
            for row in rows:
                if ledger_trust.holds(row, self.keyring):
                    seal = row.detail.get("seal") if isinstance(row.detail, dict) else None
                    return seal if isinstance(seal, str) else None
        return None

    def home_network(self, network: str) -> str:
        """The network whose services accounts and host masks are the club's names as
        they are (the first an IRC bot started on); ``network`` becomes it when there
        is none yet, under the club's write lock, so two bots starting at once agree."""
        with self.unit():
            home = self.setting(HOME_NETWORK)
            if home is None:
                home = network
                self.set_setting(HOME_NETWORK, home, "ancath-bot",
                                 "the first network an IRC bot started on: its accounts "
                                 "are the club's names; another network's are "
                                 "<network>:<account>")
        return str(home)

    # -- moderators named in chat --------------------------------------------------------

    def moderators(self, same: Callable[[str], str] = str) -> list[str]:
        """The moderators added in chat and not removed, from the ledger (R8.2)."""
        with self._tx(write=False) as session:
            return self._moderators(session, same)

    def _moderators(self, session: Session, same: Callable[[str], str]) -> list[str]:
        if self.chained.suspends_moderators(session):   # read along a whole chain only
            return []
        rows = session.scalars(select(LedgerRow).where(
            LedgerRow.entry.in_(ledger.MODERATOR_ENTRIES)).order_by(LedgerRow.id))
        return ledger_trust.moderators(rows, self.keyring, same)

    def set_moderator(self, name: str, added: bool, moderator: str, reason: str) -> None:
        """Add ``name`` as a moderator (or remove them): a ledger row, on no warrior."""
        with self._tx() as session:
            _bump(session)
            self._append(session, warrior_id=None,
                         entry=ledger.MODERATOR_ENTRIES[0 if added else 1],
                         detail={"name": name}, actor=moderator, moderator=moderator,
                         reason=reason, created_at=self._clock())


class VersionReader:
    """``club.club_version()`` for a process that reads it at every command, as cheaply
    as it can be read: inside a unit of work, one statement on the unit's connection (no
    ORM query); outside one, on a connection kept for it, with no pool checkout or ping
    and, on PostgreSQL, no transaction, one round trip (a transaction of its own costs
    more on either database: ``bench/club_version.py``). Inside a unit it is
    read once a transaction, so once for all the commands of a batch (group commit): the
    batch holds the club's write lock, so no chat command of any process changes it
    meanwhile but the batch's own, whose change (``_bump``) has it read again (on
    PostgreSQL a change from the command line, which takes no such lock, is seen by the
    next batch, milliseconds later). A connection that broke is made again once;
    disposing of the engine closes it, as it does the pool's. One thread at a time,
    but for :meth:`unchanged`, which any thread may call beside it (the event loop's).

    On a SQLite file the read outside a unit is made on a connection of its own that
    never waits (``busy_timeout`` 0), with SQLite's ``PRAGMA data_version`` in the same
    read transaction: :meth:`unchanged` asks that pragma again, which in WAL mode reads
    the WAL index in shared memory (microseconds, ``bench/club_version.py``), and while
    no other connection has committed since, the version read is still the club's."""

    def __init__(self, club: Club) -> None:
        self._club = club
        engine = club.engine
        self._engine = engine.execution_options(isolation_level="AUTOCOMMIT") \
            if engine.dialect.name == "postgresql" else club._reads
        self._connection: Connection | None = None
        self._probe = _Probe(engine)
        event.listen(engine, "engine_disposed", self._disposed)

    def __call__(self) -> int:
        unit = self._club._open_unit()
        if unit is not None:
            info = unit.session.info
            if VERSION_READ not in info:
                info[VERSION_READ] = unit.session.connection().execute(_VERSION).scalar() or 0
            return int(info[VERSION_READ])
        try:
            return self._read()
        except DBAPIError as error:
            self.close()
            if not error.connection_invalidated:
                raise
            return self._read()   # the server restarted, or dropped the connection

    def unchanged(self, version: int) -> bool:
        """Whether ``version`` is still the club's, known at once without waiting for
        anything: True only on a SQLite file when the last read outside a unit said it
        and no other connection has committed since (``PRAGMA data_version``). False
        when it cannot say at once (PostgreSQL, a read or a check under way on another
        thread, a lock, an error): then read it (:meth:`__call__`)."""
        return self._probe.unchanged(version)

    def _read(self) -> int:
        read = self._probe.read()
        if read is not None:
            return read
        if self._connection is None:
            self._connection = self._engine.connect()
        with self._connection.begin():   # SQLite's read transaction; PostgreSQL's: none
            return self._connection.execute(_VERSION).scalar() or 0

    def close(self) -> None:
        """Give the kept connections back."""
        self._probe.close()
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _disposed(self, _engine: Engine) -> None:
        if self._connection is not None:   # its pool is gone: close the driver's own
            self._connection.invalidate()
        self.close()


_PROBE_VERSION = "SELECT version FROM club_version WHERE id = 1"


class _Probe:
    """:class:`VersionReader`'s SQLite connection that never waits: the club's version
    and ``PRAGMA data_version`` read together (:meth:`read`), and that pragma alone again
    (:meth:`unchanged`). The pragma's value changes when another connection commits
    (the records lane's of this process too). With ``busy_timeout`` 0 a lock is an
    error at once, never a wait; the database runs in WAL mode
    (``storage.db_engines``), where starting a read takes no file lock, only the WAL
    index's in shared memory, and reads the database file only after another commit
    (page 1 again, just written, from the page cache). A lock, a file gone, any error:
    it says it cannot tell, and is opened again at the next :meth:`read`. No probe for
    PostgreSQL or an in-memory database."""

    def __init__(self, engine: Engine) -> None:
        url = engine.url
        self._dialect = engine.dialect
        self._usable = url.get_backend_name() == "sqlite" and \
            url.database not in (None, "", ":memory:")
        self._url = url
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._seen: tuple[int, int] | None = None   # (data_version, club version)

    def read(self) -> int | None:
        """The club's version, with the pragma's value beside it; None: not read here."""
        if not self._usable:
            return None
        with self._lock:
            self._seen = None
            try:
                connection = self._open()
                connection.execute("BEGIN")   # one snapshot for both
                try:
                    data = connection.execute("PRAGMA data_version").fetchone()[0]
                    row = connection.execute(_PROBE_VERSION).fetchone()
                finally:
                    connection.execute("COMMIT")
            except sqlite3.Error:
                self._close()
                return None
            version = int(row[0]) if row and row[0] else 0
            self._seen = (int(data), version)
            return version

    def unchanged(self, version: int) -> bool:
        if self._seen is None or not self._lock.acquire(blocking=False):
            return False
        try:
            seen, connection = self._seen, self._connection
            if seen is None or connection is None or seen[1] != version:
                return False
            return bool(connection.execute("PRAGMA data_version").fetchone()[0] == seen[0])
        except sqlite3.Error:
            return False
        finally:
            self._lock.release()

    def _open(self) -> sqlite3.Connection:
        if self._connection is None:
            args, options = self._dialect.create_connect_args(self._url)
            kwargs: dict[str, Any] = {**options, "timeout": 0, "check_same_thread": False,
                                      "isolation_level": None}
            database = str(args[0])
            if not kwargs.get("uri"):   # never a new, empty file where the club's was
                database = f"file:{quote(str(Path(database).resolve()))}?mode=rw"
                kwargs["uri"] = True
            self._connection = sqlite3.connect(database, **kwargs)
            self._connection.execute("PRAGMA busy_timeout = 0")
        return self._connection

    def _close(self) -> None:
        self._seen = None
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def close(self) -> None:
        with self._lock:
            self._close()
