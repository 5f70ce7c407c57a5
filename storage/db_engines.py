"""The database engines: SQLite's durability settings, PostgreSQL's lock wait and
keepalives, and the engine that only reads.

SQLite runs in WAL mode with ``synchronous=FULL``: WAL alone with ``NORMAL`` may lose
the last commits on power loss, and every command the bot acknowledges in the channel
must survive one. Each write transaction starts with ``BEGIN IMMEDIATE`` so two writers
queue on the busy timeout instead of failing on a lock upgrade. JSON that is no JSON in
a SQLite column is read as :class:`storage.damage.Unreadable`, not raised mid-query.

The reader (``reader``, under :func:`storage.db.open_read_only`) runs no migration, no
pragma that writes, and creates nothing; it works on a read-only file or a backup copy.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine, create_engine, event, make_url
from sqlalchemy.exc import ArgumentError

from storage.damage import loads
from storage.db_urls import check_url, database_problem, sqlite_path
from storage.errors import DatabaseProblem
from storage.keys import default_key_path

__all__ = ["BUSY_TIMEOUT_MS", "PG_KEEPALIVES", "READ_ONLY", "SERVER_KEEPALIVES",
           "DatabaseUnavailable", "check_file", "make_engine", "reader"]

BUSY_TIMEOUT_MS = 10_000


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None  # SQLAlchemy's begin hook issues BEGIN
    cursor = dbapi_connection.cursor()
    for pragma in (
        "journal_mode=WAL",
        "synchronous=FULL",
        "foreign_keys=ON",
        f"busy_timeout={BUSY_TIMEOUT_MS}",
    ):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()


READ_ONLY = "ancath_read_only"
"""An execution option: this transaction only reads, so it need not wait for writers."""


def _begin_immediate(connection: Any) -> None:
    """A writer takes the write lock at once; a reader (``READ_ONLY``) does not, so in
    WAL mode it reads beside a writer that holds the lock."""
    reads = connection.get_execution_options().get(READ_ONLY)
    connection.exec_driver_sql("BEGIN" if reads else "BEGIN IMMEDIATE")


PG_KEEPALIVES = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10,
                 "keepalives_count": 3}
"""TCP keepalives on PostgreSQL connections, on both ends (the server's through
``SERVER_KEEPALIVES``): a connection dropped without a word (a network cut, a host gone)
is found dead within about a minute, not after the system's two hours; the server then
ends its session, and the club's write lock that session held is free for the other
processes again."""

SERVER_KEEPALIVES = "-c tcp_keepalives_idle=30 -c tcp_keepalives_interval=10 " \
    "-c tcp_keepalives_count=3"


def make_engine(url: str) -> Engine:
    """An engine for ``url`` (:func:`check_url` first); SQLite gets WAL, FULL sync,
    foreign keys and a timeout."""
    url = check_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000},
                               json_deserializer=loads)
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _begin_immediate)
        return engine
    # a row another process holds locked is waited for as long as SQLite waits (R3.3's
    # locks queue writers; a lock held longer is "busy", not a frozen referee)
    options = f"-c lock_timeout={BUSY_TIMEOUT_MS} {SERVER_KEEPALIVES}"
    return create_engine(url, pool_pre_ping=True, connect_args={
        "options": options, **PG_KEEPALIVES})


def check_file(url: str) -> None:
    """A SQLite file's directory must be there: the bot never makes one silently; nor a
    new file where one with a default ledger key was (it was lost, not never made)."""
    try:
        path = sqlite_path(url)
    except ArgumentError as error:
        raise database_problem(url, error) from error
    if path is not None and not path.parent.is_dir():
        raise DatabaseProblem(f"{path}: the directory {path.parent} does not exist; create "
                              "it, or point database: elsewhere")
    if path is None:
        return
    key = default_key_path(str(path))   # made beside the file at its first start
    if key is not None and not path.exists() and key.exists():
        raise DatabaseProblem(
            f"{path} is missing, but its ledger key {key} is there: the club's records "
            f"were deleted or moved. Restore {path.name} from a backup; to start a new "
            f"club there instead, move {key.name} away first")


class DatabaseUnavailable(DatabaseProblem):
    """The database cannot be read as asked; the message says why and what to do."""


def _sqlite_read_only(path: Path, live: bool) -> Any:
    """A connection factory that never writes: ``mode=ro`` when ``live`` (a reader that
    outlives its start beside a running bot), or while a write-ahead log (or a journal)
    beside the file says it may be in use, so committed rows in the log are read;
    otherwise ``immutable=1``, which needs no ``-shm`` file and so works in a read-only
    directory (SQLite's read-only WAL mode cannot, and would leave ``-wal`` and ``-shm``
    files behind where it may), but never sees a later write."""
    live = live or any(Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-journal"))
    uri = f"file:{quote(str(path.resolve()))}?mode=ro" + ("" if live else "&immutable=1")

    def connect() -> sqlite3.Connection:
        connection = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                                     check_same_thread=False)
        connection.isolation_level = None   # the begin hook issues BEGIN
        return connection

    return connect


def _begin_deferred(connection: Any) -> None:
    connection.exec_driver_sql("BEGIN")   # one read snapshot for the whole check


def reader(url: str, live: bool = False) -> Engine:
    """An engine that only reads (no WAL pragma, nothing created; ``live``: see
    :func:`open_read_only`)."""
    url = check_url(url)
    check_file(url)
    parsed = make_url(url)
    if parsed.drivername.startswith("sqlite"):
        if not parsed.database or parsed.database == ":memory:":
            raise DatabaseUnavailable(f"{url}: an in-memory database has no records to read")
        path = Path(parsed.database).expanduser()
        if not path.is_file():
            raise DatabaseUnavailable(f"{path}: no such database file")
        engine = create_engine(url, creator=_sqlite_read_only(path, live),
                               json_deserializer=loads)
        event.listen(engine, "begin", _begin_deferred)
        return engine
    return create_engine(url, pool_pre_ping=True, isolation_level="REPEATABLE READ",
                         execution_options={"postgresql_readonly": True})
