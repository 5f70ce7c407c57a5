"""Opening a database: for the bot, with its schema at the newest revision and its
files writable (``open_database``); for checking records (``audit verify``, ``ledger``,
``web``), read only (``open_read_only``); and ``close_database``, the bot's last word to
it: every connection closed and the log checkpointed into the SQLite file, so that file
alone, copied, is the club. URLs: :mod:`storage.db_urls`; engines:
:mod:`storage.db_engines`; migrations: :mod:`storage.schema_revision`.

A SQLite file the bot writes must stay writable, with its directory, its write-ahead log
and its shared memory (``-shm``, which SQLite maps into memory: made immutable or
read-only under a running bot, the next write to it kills the process with SIGBUS,
without a word). ``open_database`` refuses to start without them in one line, and the
store checks them before every transaction (:func:`unwritable`).
"""

from __future__ import annotations

import os
import sqlite3
import weakref
from contextlib import closing
from urllib.parse import quote

from alembic.script.revision import RevisionError
from alembic.util import CommandError
from sqlalchemy import Engine, text
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from storage.db_engines import BUSY_TIMEOUT_MS, check_file, make_engine, reader
from storage.db_urls import check_url, database_problem, database_url, named_database, sqlite_path
from storage.errors import DatabaseProblem
from storage.schema_revision import check_revision, upgrade

__all__ = ["close_database", "open_database", "open_read_only", "unwritable", "written_files"]


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
    check_file(url)
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
        raise database_problem(url, error) from error
    except (CommandError, RevisionError) as error:   # a revision no migration here names
        if engine is not None:
            engine.dispose()
        raise DatabaseProblem(
            f"{named_database(url)}: its schema revision is not one this ancath-bot knows "
            f"({error}): a newer version wrote it; run that version, or restore a backup"
        ) from error
    assert engine is not None
    if heads != 1:
        engine.dispose()
        raise DatabaseProblem(
            f"{named_database(url)}: the ledger's head row (table ledger_head) is missing: the "
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


def open_read_only(url: str, *, live: bool = False) -> Engine:
    """An engine that reads the database without changing it (no migration, no WAL
    pragma, nothing created; PostgreSQL in read-only REPEATABLE READ transactions), at
    revision ``READ_SINCE`` or later. ``live`` is for a long-running reader beside the
    bot (``ancath-bot web``): a SQLite file is always opened ``mode=ro``, so what the
    bot writes later is read too, even when no write-ahead log was there at the open."""
    engine = reader(url, live)
    try:
        check_revision(engine, database_url(url))
    except BaseException:
        engine.dispose()
        raise
    return engine
