"""What storage refuses or cannot do, as typed errors whose messages users can act on."""

from __future__ import annotations

__all__ = [
    "BatchBroken",
    "Busy",
    "DamagedRecord",
    "DatabaseProblem",
    "DatabaseUnreachable",
    "DuplicateName",
    "RecordsBusy",
    "RecordsLost",
    "RecordsUnwritable",
    "StaleFight",
    "StorageError",
    "TransactionAborted",
    "UnknownWarrior",
]


class BatchBroken(Exception):
    """A batch of units (group commit) could not settle one of its savepoints: it is
    rolled back whole. Not a :class:`StorageError`: no command is refused by it."""


class TransactionAborted(Exception):
    """The database ended a unit's transaction under it (a failed statement was caught
    and the unit went on): its COMMIT would keep nothing, so it raises instead. Not a
    :class:`StorageError`: it is a fault of the bot, not a refusal."""


class StorageError(Exception):
    """A request the records refuse; the message says why."""


class DatabaseProblem(StorageError):
    """The database cannot be opened or used as configured; the message names it and
    the fix (a missing directory, a read-only or damaged file, a bad URL)."""


class RecordsLost(StorageError):
    """The SQLite file the bot opened was deleted or replaced while it ran: what it
    writes now is lost, so it must stop taking commands."""


class RecordsUnwritable(RecordsLost):
    """The SQLite file, its write-ahead log or its shared memory (``-shm``) cannot be
    written any more (made immutable, or read-only, while the bot ran): SQLite would die
    of SIGBUS on its mapped ``-shm``, or fail every write, so the bot stops taking
    commands before it touches them."""


class DatabaseUnreachable(StorageError):
    """The database server cannot be reached (it is down, or the network is): nothing
    was read or written; the outage is logged once, and its end."""

    def __init__(self) -> None:
        super().__init__("the club's records are out of reach (the database is down): "
                         "nothing was read or changed; try again in a while")


class DamagedRecord(StorageError):
    """A stored row cannot be read as the bot wrote it (a field not JSON, of the wrong
    kind, or naming what does not exist): the bot skips it, or refuses what needs it;
    the message names the row and the fix."""


class CommitUnknown(StorageError):
    """The database failed as a transaction committed and cannot say whether it took
    effect (the connection broke and the server cannot be asked, or SQLite's commit
    failed): not to be run again, since it may be kept, nor said done."""

    def __init__(self) -> None:
        super().__init__("the database failed as that was saved and I cannot tell whether "
                         "it was kept; a moderator can check the log before it is repeated")


class RecordsBusy(StorageError):
    """Another process held the database locked for longer than the bot waits."""

    def __init__(self) -> None:
        super().__init__("the club's records are busy, try again in a moment")


class DuplicateName(StorageError):
    """The name is taken (names are compared case-folded)."""


class UnknownWarrior(StorageError):
    """No warrior has that name."""


class Busy(StorageError):
    """A warrior or channel already has an open fight (R3.3), enforced by the database."""


class StaleFight(StorageError):
    """The fight moved on (another command or an undo took the next sequence number)
    since this copy was read; reload it with ``Store.fight``."""
