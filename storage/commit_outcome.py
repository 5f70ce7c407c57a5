"""Whether a COMMIT that failed took effect.

A unit's (or batch's) COMMIT that fails is not taken for "nothing kept": on PostgreSQL
the connection may break after the server committed. The server is asked on a new
connection (``txid_status`` of the transaction's id, read as the lock was taken): kept,
the unit ends as committed; not kept, the error stands; when it cannot be told,
``CommitUnknown``, which no caller runs again. On SQLite a busy COMMIT keeps nothing
(the error stands); any other failed COMMIT (an I/O error) is ``CommitUnknown``.
"""

from __future__ import annotations

import time
from contextlib import suppress

from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import SessionTransaction

from storage.errors import CommitUnknown

__all__ = ["commit", "locked"]


def locked(error: OperationalError) -> bool:
    """SQLite's busy timeout, or PostgreSQL's lock timeout, ran out."""
    said = str(error.orig).lower()
    return "database is locked" in said or "lock timeout" in said or \
        getattr(error.orig, "sqlstate", None) == "55P03"


def commit(transaction: SessionTransaction, engine: Engine, xid: int | None) -> None:
    """COMMIT; when that fails, whether it took effect (module docstring). ``xid`` is
    the PostgreSQL transaction's id (None on SQLite)."""
    try:
        transaction.commit()
    except DBAPIError as error:
        with suppress(Exception):   # on a broken connection, the server ends it
            transaction.rollback()
        if xid is None:   # SQLite: a busy COMMIT is still to be made (taken back now)
            if isinstance(error, OperationalError) and locked(error):
                raise
            raise CommitUnknown() from error
        status = _status(engine, xid)
        if status == "committed":
            return
        if status == "aborted":
            raise
        raise CommitUnknown() from error


def _status(engine: Engine, xid: int, tries: int = 10) -> str | None:
    """PostgreSQL's word on transaction ``xid``: committed, aborted, or None when it
    cannot say (still in progress after ``tries`` tenths of a second, or unreachable)."""
    for _ in range(tries):
        try:
            with engine.execution_options(isolation_level="AUTOCOMMIT").connect() as connection:
                status = connection.execute(text("SELECT txid_status(:xid)"),
                                            {"xid": xid}).scalar()
        except DBAPIError:
            return None
        if status != "in progress":
            return str(status) if status is not None else None
        time.sleep(0.1)
    return None
