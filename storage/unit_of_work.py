"""The transaction every store method runs in, and the checks around it.

``UnitOfWork._tx`` is one transaction, committed whole or not at all; a lock held too
long becomes ``RecordsBusy``, and a SQLite file deleted or replaced under the running
bot becomes ``RecordsLost`` (before and after, so nothing is acknowledged that went to
an unlinked file). ``_append`` writes a ledger row in the transaction and keeps the
newest as its anchor.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from storage import ledger
from storage.db import READ_ONLY, sqlite_path
from storage.errors import RecordsBusy, RecordsLost
from storage.keys import Keyring, load_keyring
from storage.ledger import Anchor

__all__ = ["UnitOfWork", "now", "unique_conflict"]


def _locked(error: OperationalError) -> bool:
    """SQLite's busy timeout, or PostgreSQL's lock timeout, ran out."""
    text = str(error.orig).lower()
    return "database is locked" in text or "lock timeout" in text or \
        getattr(error.orig, "sqlstate", None) == "55P03"


def unique_conflict(error: IntegrityError) -> bool:
    """A unique index refused the row: the one conflict two writers racing cause. Any
    other refusal (a check, a trigger) is a fault, not a race, and is not worded as one."""
    orig = error.orig
    return getattr(orig, "sqlstate", None) == "23505" or \
        "UNIQUE constraint failed" in str(orig)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class UnitOfWork:
    """One SQLAlchemy engine, the ledger keyring and the transaction every method of
    the store runs in (``_tx``); the store's parts (:mod:`storage.warriors`,
    :mod:`storage.fights`, ...) build on it.

    ``keyring`` signs and checks the ledger; without one, the first write loads the
    default for the engine's database (:func:`storage.keys.load_keyring`)."""

    def __init__(self, engine: Engine, clock: Callable[[], str] = now,
                 keyring: Keyring | None = None) -> None:
        self.engine = engine
        self._clock = clock
        self._keyring = keyring
        self._reads = engine.execution_options(**{READ_ONLY: True})
        self._file = sqlite_path(engine.url.render_as_string(hide_password=False))
        self._inode = self._identity()

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

    @property
    def keyring(self) -> Keyring:
        if self._keyring is None:
            self._keyring = load_keyring(self.engine.url.render_as_string(hide_password=False))
        return self._keyring

    @contextmanager
    def _tx(self, *, write: bool = True) -> Iterator[Session]:
        """One transaction; ``write=False`` for one that only reads (it does not queue
        behind writers, another process's included)."""
        self._still_there()
        engine = self.engine if write else self._reads
        try:
            with Session(engine, expire_on_commit=False) as session, session.begin():
                yield session
        except OperationalError as error:
            if _locked(error):
                raise RecordsBusy() from error
            raise
        self._still_there()  # committed to the file we opened, or not acknowledged

    def _append(self, session: Session, **fields: Any) -> None:
        """A ledger row in this transaction; the newest becomes the session's anchor."""
        row = ledger.append(session, self.keyring, **fields)
        session.info["anchor"] = Anchor(row.id, row.hash[:8])

    def _append_fight(self, session: Session, fight_id: int, entry: str, **fields: Any) -> None:
        row = ledger.append_fight(session, self.keyring, fight_id, entry, **fields)
        session.info["anchor"] = Anchor(row.id, row.hash[:8])
