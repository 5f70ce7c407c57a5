"""Whether the club's records are lost, and the one line every channel hears when they
are: the database file went away (``RecordsLost``), or cannot be written any more
(``RecordsUnwritable``: the database is left untouched at the stop, since SQLite would
die of SIGBUS on its mapped ``-shm``, :func:`bot.app.stop_referee`). After it the
referee takes no more commands.
"""

from __future__ import annotations

import logging

from bot.casemap import Folded
from bot.messages import Incoming, Outgoing, Priority
from storage.errors import RecordsLost, RecordsUnwritable

__all__ = ["LostRecords"]

log = logging.getLogger("ancath.referee")

_GONE = ("The club's records are gone from disk: I take no more commands until a "
         "moderator restores them and restarts me; nothing since was kept.")
_UNWRITABLE = ("The club's records cannot be written any more: I take no more commands "
               "until they are made writable and I am restarted; nothing since was kept.")


class LostRecords:
    """Why the records are lost, once they are, and the channels to tell: those the
    bot serves (``channels``) and every channel a line came from (``heard``)."""

    def __init__(self, channels: list[str]) -> None:
        self.channels = channels
        self.heard: Folded[str] = Folded()
        """Every channel a line came from (name -> name as first heard)."""
        self.why: str | None = None
        """Why the records are lost, once they are."""
        self.unwritable = False
        """They were lost because they cannot be written (``RecordsUnwritable``)."""

    def saw(self, msg: Incoming) -> None:
        """A line came from ``msg.channel`` (none for a private message)."""
        if msg.channel is not None:
            self.heard.setdefault(msg.channel, msg.channel)

    def lose(self, error: RecordsLost, channel: str | None) -> list[Outgoing]:
        """The records are lost: log it, and say so once in every channel to tell
        (``channel`` too, where the command that found it came from)."""
        self.why = str(error)
        self.unwritable = isinstance(error, RecordsUnwritable)
        log.critical("the records %s, no more commands taken: %s",
                     "cannot be written" if self.unwritable else "are lost", error)
        channels: Folded[str] = Folded(self.heard.casemapping)
        channels.update((c, c) for c in [*self.channels, *self.heard.values()])
        if channel is not None:
            channels.setdefault(channel, channel)
        line = _UNWRITABLE if self.unwritable else _GONE
        return [Outgoing(c, line, Priority.FIGHT) for c in channels.values()]
