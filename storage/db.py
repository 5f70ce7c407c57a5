"""Opening a database: URLs, SQLite's durability settings, and schema migrations.

SQLite runs in WAL mode with ``synchronous=FULL``: WAL alone with ``NORMAL`` may lose
the last commits on power loss, and every command the bot acknowledges in the channel
must survive one. Each write transaction starts with ``BEGIN IMMEDIATE`` so two writers
queue on the busy timeout instead of failing on a lock upgrade.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event, make_url, text
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from storage.errors import DatabaseProblem

__all__ = [
    "READ_ONLY", "database_url", "head_revision", "make_engine", "open_database", "sqlite_path",
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


def _where(url: str) -> str:
    """A database named for people: its file, or its URL without the password."""
    try:
        path = sqlite_path(url)
        return str(path) if path else make_url(database_url(url)).render_as_string()
    except ArgumentError:
        return url


def _problem(url: str, error: Exception) -> DatabaseProblem:
    """One line naming the database and the fix, for what opening it raised."""
    where = _where(url)
    text = str(getattr(error, "orig", error)).lower()
    if isinstance(error, NoSuchModuleError | ArgumentError):
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


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, FULL sync, foreign keys and a timeout."""
    url = database_url(url)
    try:
        make_url(url)
    except ArgumentError as error:
        raise _problem(url, error) from error
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _begin_immediate)
        return engine
    # a row another process holds locked is waited for as long as SQLite waits (R3.3's
    # locks queue writers; a lock held longer is "busy", not a frozen referee)
    options = f"-c lock_timeout={BUSY_TIMEOUT_MS}"
    return create_engine(url, pool_pre_ping=True, connect_args={"options": options})


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


def open_database(url: str, *, migrate: bool = True) -> Engine:
    """An engine with its schema at the newest revision; a database that cannot be
    opened so is one :class:`DatabaseProblem` naming it and the fix."""
    path = sqlite_path(url)
    if path is not None and not path.parent.is_dir():
        raise DatabaseProblem(f"{path}: the directory {path.parent} does not exist; create "
                              "it, or point database: elsewhere")
    try:
        engine = make_engine(url)
        if migrate:
            upgrade(engine)
            with engine.begin() as connection:  # a write, taken back: can it be written?
                connection.execute(text("UPDATE ledger_head SET last_id = last_id"))
                connection.rollback()
        else:
            with engine.connect():
                pass
    except (DBAPIError, NoSuchModuleError, ArgumentError) as error:
        raise _problem(url, error) from error
    return engine
