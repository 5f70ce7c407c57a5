"""The schema's revision: the newest migration's, a database's, and migrating up or
down (``ancath-bot db upgrade``, ``current``, ``downgrade``); ``check_revision`` for a
reader, which reads ``READ_SINCE`` or later and never migrates."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.script.revision import RevisionError
from alembic.util import CommandError
from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from storage.db_engines import DatabaseUnavailable, reader
from storage.db_urls import named_database, shown_url
from storage.errors import DatabaseProblem

__all__ = ["MIGRATIONS", "READ_SINCE", "check_revision", "club_revision", "current_revision",
           "downgrade", "head_revision", "upgrade"]

MIGRATIONS = Path(__file__).with_name("migrations")
READ_SINCE = "0004"
"""The oldest schema revision ``open_read_only`` reads (the one with ledger key ids)."""


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


def current_revision(url: str) -> str | None:
    """The database's schema revision (None before the first migration), read without
    changing it (``ancath-bot db current``)."""
    engine = reader(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    except SQLAlchemyError as error:
        raise DatabaseUnavailable(f"{named_database(url)}: cannot read the schema revision: "
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
            f"{named_database(url)}: not a club database (no ancath-bot schema in it): name the "
            "club's database, or make a new club there with ancath-bot db upgrade")
    return revision


def check_revision(engine: Engine, url: str) -> None:
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
