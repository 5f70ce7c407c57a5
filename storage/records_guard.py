"""What a transaction's failure means for the records, and the checks before it.

A lock held too long becomes ``RecordsBusy``, and a SQLite file deleted or replaced
under the running bot becomes ``RecordsLost`` (before and after, so nothing is
acknowledged that went to an unlinked file). Before every transaction a SQLite file the
bot writes, its write-ahead log and its shared memory must still be writable: one made
immutable or read-only under the running bot becomes ``RecordsUnwritable`` before
SQLite touches it (its mapped ``-shm`` would kill the process with SIGBUS), as does a
write that fails on them. A PostgreSQL server out of reach becomes
``DatabaseUnreachable``: one WARNING when an outage begins, one line when a transaction
works again (:meth:`RecordsGuard.outage`).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError, OperationalError

from storage.commit_outcome import locked
from storage.db import unwritable, written_files
from storage.db_urls import shown_url, sqlite_path, unreachable
from storage.errors import (
    CommitUnknown,
    DatabaseUnreachable,
    RecordsBusy,
    RecordsLost,
    RecordsUnwritable,
)

__all__ = ["RecordsGuard"]

log = logging.getLogger("ancath.records")


def _unwritable(name: str) -> RecordsUnwritable:
    return RecordsUnwritable(
        f"{name} cannot be written any more (made immutable or read-only while the bot "
        "ran); nothing is written from now on: stop the bot, make it writable (chattr -i, "
        "chmod u+w, or a read-write mount) and start it again")


class RecordsGuard:
    """The checks around every transaction on ``engine`` (module docstring)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._file = sqlite_path(engine.url.render_as_string(hide_password=False))
        self._inode = self._identity()
        self._written = written_files(engine)
        """The SQLite files that must stay writable (none for a reader, or PostgreSQL)."""
        self._down = False
        """An outage of the database server is going on (logged once, :meth:`outage`)."""
        self._outage_lock = threading.Lock()

    def _identity(self) -> tuple[int, int] | None:
        """The SQLite file's device and inode (None: not SQLite, or no file)."""
        if self._file is None:
            return None
        try:
            found = os.stat(self._file)
        except FileNotFoundError:
            return None
        return found.st_dev, found.st_ino

    def _still_there(self) -> None:
        """Refuse to go on when the file was deleted or replaced under the bot: SQLite
        would go on writing to the unlinked file, and every command would be lost."""
        if self._file is not None and self._identity() != self._inode:
            raise RecordsLost(f"{self._file} was deleted or replaced while the bot ran; "
                              "nothing written since is kept: stop the bot and restore "
                              "the file from a backup")

    def usable(self) -> None:
        """Refuse to touch the database when its SQLite file was deleted or replaced
        (``RecordsLost``) or cannot be written any more (``RecordsUnwritable``): what
        every transaction checks first, for a read made beside them (the club's version)."""
        self._still_there()
        self._writable()

    def _writable(self) -> None:
        """Refuse to touch the database when its SQLite files cannot be written any more
        (``RecordsUnwritable``): checked before every transaction, by ``access`` alone."""
        if self._written:
            blocked = unwritable(self._written)
            if blocked is not None:
                raise _unwritable(blocked)

    @contextmanager
    def _faults(self) -> Iterator[None]:
        """What a transaction's failure means: a lock waited out (``RecordsBusy``), the
        SQLite files made unwritable under it (``RecordsUnwritable``), the server out of
        reach (``DatabaseUnreachable``, :meth:`outage`); and after an outage, a
        transaction that ends well says the database is back."""
        try:
            yield
        except OperationalError as error:
            if locked(error):
                raise RecordsBusy() from error
            self._fault(error)
            raise
        except (DBAPIError, CommitUnknown) as error:
            self._fault(error)
            raise
        if self._down:
            self._back()

    def _fault(self, error: Exception) -> None:
        if self._written:
            blocked = unwritable(self._written)
            if blocked is not None:
                raise _unwritable(blocked) from error
        if self.outage(error):
            raise DatabaseUnreachable() from error

    def outage(self, error: BaseException) -> bool:
        """Whether ``error`` is the database server out of reach; the first of an outage
        is logged, one WARNING, and its end once a transaction works again."""
        if isinstance(error, DatabaseUnreachable):
            return True
        if not unreachable(error):
            return False
        with self._outage_lock:
            if not self._down:
                self._down = True
                said = str(getattr(error, "orig", None) or error).strip().splitlines()
                log.warning("the database %s is out of reach (%s): every command that needs "
                            "the club's records is refused until it is back",
                            shown_url(self.engine.url.render_as_string(hide_password=False)),
                            said[0] if said else "")
        return True

    def _back(self) -> None:
        with self._outage_lock:
            if self._down:
                self._down = False
                log.warning("the database %s is back: commands are taken again",
                            shown_url(self.engine.url.render_as_string(hide_password=False)))
