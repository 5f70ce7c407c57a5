"""Database URLs: a path made a SQLite URL, a URL shown without its secrets, and
``check_url``, which comes first: a database or driver the bot does not use (only SQLite
and PostgreSQL through psycopg), or a driver not installed, is one line before anything
else is done. And what an error opening a database means, in one line with its fix
(``database_problem``), or whether it says the server is out of reach
(``unreachable``)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote_plus

from sqlalchemy import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, OperationalError

from storage.errors import DatabaseProblem

__all__ = ["check_url", "database_problem", "database_url", "named_database", "shown_url",
           "sqlite_path", "unreachable"]


def database_url(value: str) -> str:
    """A SQLAlchemy URL as is, or a file path as a SQLite URL."""
    return value if "://" in value else f"sqlite:///{Path(value).expanduser()}"


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


def named_database(url: str) -> str:
    """A database named for people: its file, or its URL with no secret shown."""
    try:
        path = sqlite_path(url)
    except (ArgumentError, ValueError):
        path = None
    return str(path) if path else shown_url(url)


def database_problem(url: str, error: Exception) -> DatabaseProblem:
    """What a database error means for ``url``, in one line naming the database and the
    fix (a damaged file, a read-only one, a lock held too long, a URL or driver the bot
    does not use)."""
    place = named_database(url)
    text = str(getattr(error, "orig", error)).lower()
    if isinstance(error, NoSuchModuleError | ArgumentError | ValueError):
        return DatabaseProblem(
            f"{place}: not a database URL the bot can use ({error}); give a file path, "
            "sqlite:///path, or postgresql+psycopg://user@host/db (pip install "
            "'.[postgres]')")
    if "readonly" in text or "read-only" in text:
        return DatabaseProblem(f"{place}: read-only; the bot writes every command to it: "
                               "give it write access to the file and its directory")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return DatabaseProblem(f"{place}: damaged or not a SQLite database; restore it from "
                               "a backup, or point database: at another file")
    if "locked" in text or "busy" in text:
        return DatabaseProblem(f"{place}: busy: another process holds it; stop that "
                               "process or try again")
    return DatabaseProblem(f"{place}: cannot open: {text.splitlines()[0] if text else error}")


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
        raise database_problem(url, error) from error
    try:
        usable = (parsed.get_backend_name(), parsed.get_driver_name()) in _USABLE
    except NoSuchModuleError:   # a dialect SQLAlchemy does not know
        usable = False
    if not usable:
        raise DatabaseProblem(
            f"{named_database(url)}: {parsed.drivername} is not a database the bot uses: give a "
            "SQLite file (a path, or sqlite:///path) or PostgreSQL through psycopg "
            "(postgresql+psycopg://user@host/db, or postgresql://), whose driver comes with "
            + _POSTGRES_EXTRA)
    try:
        parsed.get_dialect().import_dbapi()
    except ImportError as error:
        raise DatabaseProblem(f"{named_database(url)}: its driver {error.name or 'psycopg'} is not "
                              f"installed: {_POSTGRES_EXTRA}") from error
    return url
