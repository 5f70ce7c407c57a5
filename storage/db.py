"""Opening a database: URLs, SQLite's durability settings, and schema migrations.

``check_url`` comes first: a database or driver the bot does not use (only SQLite and
PostgreSQL through psycopg), or a driver not installed, is one line before anything
else is done.

SQLite runs in WAL mode with ``synchronous=FULL``: WAL alone with ``NORMAL`` may lose
the last commits on power loss, and every command the bot acknowledges in the channel
must survive one. Each write transaction starts with ``BEGIN IMMEDIATE`` so two writers
queue on the busy timeout instead of failing on a lock upgrade.

``open_read_only`` is for checking records (``audit verify``, ``ledger``): no migration,
no pragma that writes, nothing created; it works on a read-only file or a backup copy.
Its ``live`` form reads beside the running bot for as long as it runs (``web``).

``close_database`` is the bot's last word to its database: every connection closed and
the log checkpointed into the SQLite file, so that file alone, copied, is the club.

A SQLite file the bot writes must stay writable, with its directory, its write-ahead log
and its shared memory (``-shm``, which SQLite maps into memory: made immutable or
read-only under a running bot, the next write to it kills the process with SIGBUS,
without a word). ``open_database`` refuses to start without them in one line, and the
store checks them before every transaction (:func:`unwritable`). JSON that is no JSON
in a SQLite column is read as :class:`storage.damage.Unreadable`, not raised mid-query.
"""

from __future__ import annotations

import os
import re
import sqlite3
import weakref
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.script.revision import RevisionError
from alembic.util import CommandError
from sqlalchemy import Engine, create_engine, event, make_url, text
from sqlalchemy.exc import (
    ArgumentError,
    DBAPIError,
    NoSuchModuleError,
    OperationalError,
    SQLAlchemyError,
)

from storage.damage import loads
from storage.errors import DatabaseProblem
from storage.keys import default_key_path

__all__ = [
    "READ_ONLY",
    "DatabaseUnavailable",
    "check_url",
    "close_database",
    "club_revision",
    "current_revision",
    "database_problem",
    "database_url",
    "downgrade",
    "head_revision",
    "make_engine",
    "open_database",
    "open_read_only",
    "shown_url",
    "sqlite_path",
    "unreachable",
    "unwritable",
    "upgrade",
]

MIGRATIONS = Path(__file__).with_name("migrations")
BUSY_TIMEOUT_MS = 10_000


def database_url(value: str) -> str:
    """A SQLAlchemy URL as is, or a file path as a SQLite URL."""
    return value if "://" in value else f"sqlite:///{Path(value).expanduser()}"


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


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (None for another database, or SQLite in memory)."""
    parsed = make_url(database_url(url))
    if not parsed.drivername.startswith("sqlite") or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database.removeprefix("file:")).resolve()


_SECRET_PARAMETER = re.compile(r"pass(word|wd)|secret|token", re.IGNORECASE)
"""A URL's query parameters that carry a secret (libpq's ``password``, ``sslpassword``)."""


def shown_url(url: str) -> str:
    """A database URL as people may see it (a line, a log): the password after ``user:``
    and every query parameter that carries a secret shown as ``***``, even in a URL that
    does not parse."""
    try:
        parsed = make_url(database_url(url))
    except (ArgumentError, ValueError):   # a port that is no number is a ValueError
        hidden = re.sub(r"(://[^:/@]*:).*@", r"\1***@", url)
        return re.sub(r"([?&][^=&]*(?:pass(?:word|wd)|secret|token)[^=&]*=)[^&]*",
                      r"\1***", hidden, flags=re.IGNORECASE)
    query = "&".join(f"{key}={'***' if _SECRET_PARAMETER.search(key) else quote_plus(value)}"
                     for key, values in parsed.query.items()
                     for value in ((values,) if isinstance(values, str) else values))
    shown = parsed.set(query={}).render_as_string()
    return f"{shown}?{query}" if query else shown


def _where(url: str) -> str:
    """A database named for people: its file, or its URL with no secret shown."""
    try:
        path = sqlite_path(url)
    except (ArgumentError, ValueError):
        path = None
    return str(path) if path else shown_url(url)


def _problem(url: str, error: Exception) -> DatabaseProblem:
    """One line naming the database and the fix, for what opening it raised."""
    where = _where(url)
    text = str(getattr(error, "orig", error)).lower()
    if isinstance(error, NoSuchModuleError | ArgumentError | ValueError):
        return DatabaseProblem(
            f"{where}: not a database URL the bot can use ({error}); give a file path, "
            "sqlite:///path, or postgresql+psycopg://user@host/db (pip install "
            "'.[postgres]')")
    if "readonly" in text or "read-only" in text:
        return DatabaseProblem(f"{where}: read-only; the bot writes every command to it: "
                               "give it write access to the file and its directory")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return DatabaseProblem(f"{where}: damaged or not a SQLite database; restore it from "
                               "a backup, or point database: at another file")
    if "locked" in text or "busy" in text:
        return DatabaseProblem(f"{where}: busy: another process holds it; stop that "
                               "process or try again")
    return DatabaseProblem(f"{where}: cannot open: {text.splitlines()[0] if text else error}")


_DOWN_STATES = frozenset({"57P01", "57P02", "57P03"})
"""PostgreSQL's admin shutdown, crash shutdown and cannot-connect-now (class 08 is the
connection's own)."""


def unreachable(error: BaseException) -> bool:
    """Whether ``error`` says the PostgreSQL server cannot be reached: the connection
    refused, broken or timed out, or the server shutting down or starting (not a
    statement it refused). SQLite, a file, is never out of reach so."""
    if not isinstance(error, DBAPIError) or error.orig is None or \
            not type(error.orig).__module__.startswith("psycopg"):
        return False
    if error.connection_invalidated:
        return True
    state = getattr(error.orig, "sqlstate", None)
    return isinstance(error, OperationalError) and (
        state is None or state.startswith("08") or state in _DOWN_STATES)


def database_problem(url: str, error: Exception) -> DatabaseProblem:
    """What a database error means for ``url``, in one line with its fix (a damaged
    file, a read-only one, a lock held too long, a server out of reach)."""
    return _problem(url, error)


PG_KEEPALIVES = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10,
                 "keepalives_count": 3}
"""TCP keepalives on PostgreSQL connections, on both ends (the server's through
``SERVER_KEEPALIVES``): a connection dropped without a word (a network cut, a host gone)
is found dead within about a minute, not after the system's two hours; the server then
ends its session, and the club's write lock that session held is free for the other
processes again."""

SERVER_KEEPALIVES = "-c tcp_keepalives_idle=30 -c tcp_keepalives_interval=10 " \
    "-c tcp_keepalives_count=3"


_USABLE = {("sqlite", "pysqlite"), ("postgresql", "psycopg")}
_POSTGRES_EXTRA = "pip install 'ancath-bot[postgres]' (or '.[postgres]' in the source)"


def check_url(url: str) -> str:
    """``url`` as a SQLAlchemy URL (a path made a SQLite one) when its database and
    driver are ones the bot uses and the driver is installed; else one
    :class:`DatabaseProblem` naming what the bot uses and what to install. Nothing is
    connected to: callers check before anything else (a ledger key) is looked for."""
    url = database_url(url)
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError) as error:   # ValueError: a port that is no number
        raise _problem(url, error) from error
    try:
        usable = (parsed.get_backend_name(), parsed.get_driver_name()) in _USABLE
    except NoSuchModuleError:   # a dialect SQLAlchemy does not know
        usable = False
    if not usable:
        raise DatabaseProblem(
            f"{_where(url)}: {parsed.drivername} is not a database the bot uses: give a "
            "SQLite file (a path, or sqlite:///path) or PostgreSQL through psycopg "
            "(postgresql+psycopg://user@host/db, or postgresql://), whose driver comes with "
            + _POSTGRES_EXTRA)
    try:
        parsed.get_dialect().import_dbapi()
    except ImportError as error:
        raise DatabaseProblem(f"{_where(url)}: its driver {error.name or 'psycopg'} is not "
                              f"installed: {_POSTGRES_EXTRA}") from error
    return url


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


def _config(engine: Engine) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["engine"] = engine
    return config


def head_revision() -> str:
    """The newest migration's revision id."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the schema up to ``revision`` (``ancath-bot db upgrade``)."""
    command.upgrade(_config(engine), revision)


def downgrade(engine: Engine, revision: str) -> None:
    """Take the schema back to ``revision`` (``ancath-bot db downgrade``); a revision
    that is not known, not older, or that would drop what cannot be rebuilt (keyed
    ledger rows below 0004) is one :class:`DatabaseProblem`."""
    config = _config(engine)
    config.attributes["transactional_ddl"] = True
    try:
        command.downgrade(config, revision)
    except (CommandError, RevisionError, RuntimeError) as error:
        raise DatabaseProblem(f"cannot downgrade to {revision}: {error}") from error
    except DBAPIError as error:   # all or nothing (transactional DDL): nothing was changed
        said = str(error.orig).strip().splitlines()[0] if error.orig else type(error).__name__
        raise DatabaseProblem(f"cannot downgrade to {revision}: {said[:200]}; nothing was "
                              "changed: stop every bot of the club and try again, or stay on "
                              "this version") from error


def _check_file(url: str) -> None:
    """A SQLite file's directory must be there: the bot never makes one silently; nor a
    new file where one with a default ledger key was (it was lost, not never made)."""
    try:
        path = sqlite_path(url)
    except ArgumentError as error:
        raise _problem(url, error) from error
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


_WRITERS: weakref.WeakSet[Engine] = weakref.WeakSet()
"""The engines :func:`open_database` opened: the store checks their SQLite files stay
writable (:func:`written_files`)."""


def written_files(engine: Engine) -> tuple[str, ...]:
    """The files of a SQLite database :func:`open_database` opened for writing: the
    file, its write-ahead log and its shared memory; none for any other engine (a
    reader's file may well be read-only)."""
    if engine not in _WRITERS:
        return ()
    path = sqlite_path(engine.url.render_as_string(hide_password=False))
    return () if path is None else (str(path), f"{path}-wal", f"{path}-shm")


def unwritable(files: tuple[str, ...]) -> str | None:
    """The first of ``files`` that is there and cannot be written (immutable, read-only,
    or on a read-only mount), or None: one ``access`` call each. Never an ``open``: a
    descriptor of SQLite's files closed in this process would drop its locks."""
    for name in files:
        if not os.access(name, os.W_OK) and os.path.lexists(name):
            return name
    return None


def _check_writable(url: str) -> None:
    """A SQLite file the bot writes: it, its directory, its ``-wal`` and its ``-shm``
    must be writable (the ones there), or the bot refuses to start, in one line."""
    path = sqlite_path(url)
    if path is None:
        return
    blocked = unwritable((str(path.parent), str(path), f"{path}-wal", f"{path}-shm"))
    if blocked is not None:
        raise DatabaseProblem(
            f"{blocked}: cannot be written (immutable, read-only, or on a read-only mount); "
            f"the bot writes every command to {path.name} and the files beside it: make "
            "it writable (chattr -i, chmod u+w, or mount it read-write) and start again")


def open_database(url: str, *, migrate: bool = True) -> Engine:
    """An engine with its schema at the newest revision; a database that cannot be
    opened so is one :class:`DatabaseProblem` naming it and the fix: among them a
    schema revision this version does not know, a ledger without its head row, and a
    SQLite file (or its directory, ``-wal`` or ``-shm``) that cannot be written."""
    url = check_url(url)
    _check_file(url)
    _check_writable(url)
    heads = 1
    engine: Engine | None = None
    try:
        engine = make_engine(url)
        if migrate:
            upgrade(engine)
            with engine.begin() as connection:  # a write, taken back: can it be written?
                heads = connection.execute(text(
                    "UPDATE ledger_head SET last_id = last_id WHERE id = 1")).rowcount
                connection.rollback()
        else:
            with engine.connect():
                pass
    except (DBAPIError, NoSuchModuleError, ArgumentError) as error:
        raise _problem(url, error) from error
    except (CommandError, RevisionError) as error:   # a revision no migration here names
        if engine is not None:
            engine.dispose()
        raise DatabaseProblem(
            f"{_where(url)}: its schema revision is not one this ancath-bot knows ({error}): "
            "a newer version wrote it; run that version, or restore a backup") from error
    assert engine is not None
    if heads != 1:
        engine.dispose()
        raise DatabaseProblem(
            f"{_where(url)}: the ledger's head row (table ledger_head) is missing: the "
            "newest ledger rows may have gone with it, and the bot cannot tell; restore the "
            "database from a backup (ancath-bot audit verify shows what else differs)")
    _WRITERS.add(engine)
    return engine


def close_database(engine: Engine) -> None:
    """Close every connection of ``engine`` (its pool's; a connection kept beside the
    pool listens for the disposal and closes too), then checkpoint a SQLite file's
    write-ahead log into it and truncate the log (``wal_checkpoint(TRUNCATE)``), so the
    file alone holds every record. A checkpoint another process keeps from finishing, or
    a file that cannot be opened, is one :class:`DatabaseProblem`; PostgreSQL needs
    nothing more."""
    engine.dispose()
    path = sqlite_path(engine.url.render_as_string(hide_password=False))
    if path is None:
        return
    uri = f"file:{quote(str(path))}?mode=rw"   # never a new, empty file in its place
    left = f"the last records may be in {path.name}-wal only; copy it with ancath-bot backup"
    try:
        with closing(sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000)) as db:
            busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    except sqlite3.Error as error:
        raise DatabaseProblem(f"{path}: not checkpointed ({error}): {left}") from error
    if busy:
        raise DatabaseProblem(f"{path}: not checkpointed, another process was using it: {left}")


class DatabaseUnavailable(DatabaseProblem):
    """The database cannot be read as asked; the message says why and what to do."""


READ_SINCE = "0004"
"""The oldest schema revision ``open_read_only`` reads (the one with ledger key ids)."""


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


def _reader(url: str, live: bool = False) -> Engine:
    """An engine that only reads (no WAL pragma, nothing created; ``live``: see
    :func:`open_read_only`)."""
    url = check_url(url)
    _check_file(url)
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


def open_read_only(url: str, *, live: bool = False) -> Engine:
    """An engine that reads the database without changing it (no migration, no WAL
    pragma, nothing created; PostgreSQL in read-only REPEATABLE READ transactions), at
    revision ``READ_SINCE`` or later. ``live`` is for a long-running reader beside the
    bot (``ancath-bot web``): a SQLite file is always opened ``mode=ro``, so what the
    bot writes later is read too, even when no write-ahead log was there at the open."""
    engine = _reader(url, live)
    try:
        _check_revision(engine, database_url(url))
    except BaseException:
        engine.dispose()
        raise
    return engine


def current_revision(url: str) -> str | None:
    """The database's schema revision (None before the first migration), read without
    changing it (``ancath-bot db current``)."""
    engine = _reader(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    except SQLAlchemyError as error:
        raise DatabaseUnavailable(f"{_where(url)}: cannot read the schema revision: "
                                  f"{getattr(error, 'orig', None) or error}") from error
    finally:
        engine.dispose()


def club_revision(url: str) -> str:
    """The schema revision of a club's database (``db current``, ``db downgrade``); a
    database with none (an empty file, another program's) is one
    :class:`DatabaseUnavailable`."""
    revision = current_revision(url)
    if revision is None:
        raise DatabaseUnavailable(
            f"{_where(url)}: not a club database (no ancath-bot schema in it): name the "
            "club's database, or make a new club there with ancath-bot db upgrade")
    return revision


def _check_revision(engine: Engine, url: str) -> None:
    try:
        with engine.connect() as connection:
            revision = connection.execute(text("SELECT version_num FROM alembic_version")
                                          ).scalar()
    except SQLAlchemyError as error:
        raise DatabaseUnavailable(f"{shown_url(url)}: cannot read the "
                                  f"records: {getattr(error, 'orig', None) or error}") from error
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    try:
        older = {s.revision for s in ScriptDirectory.from_config(config)
                 .iterate_revisions(revision, "base")} if revision else set()
    except RevisionError as error:
        raise DatabaseUnavailable(f"the database is at schema revision {revision}, which this "
                                  "ancath-bot does not know (a newer version wrote it)") from error
    if READ_SINCE not in older:
        raise DatabaseUnavailable(
            f"the database is at schema revision {revision or 'none'}; this check reads "
            f"{READ_SINCE} or later and never migrates: run `ancath-bot db upgrade` on it "
            "(or on a copy) first")
