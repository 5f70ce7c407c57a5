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
from sqlalchemy import Engine, create_engine, event

__all__ = ["database_url", "head_revision", "make_engine", "open_database", "upgrade"]

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


def _begin_immediate(connection: Any) -> None:
    connection.exec_driver_sql("BEGIN IMMEDIATE")


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, FULL sync, foreign keys and a timeout."""
    url = database_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _begin_immediate)
        return engine
    return create_engine(url, pool_pre_ping=True)


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
    """An engine with its schema at the newest revision."""
    engine = make_engine(url)
    if migrate:
        upgrade(engine)
    return engine
