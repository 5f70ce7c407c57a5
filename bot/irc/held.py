"""Lines for a channel the bot is not in, held back until it is (bot/irc/supervisor.py).

The bot JOINs its channels one at a time, each in turn with fight output
(bot/irc/joins.py), so a line said while the link is down or before the channel's JOIN
(a time-limit warning, an answer that finished as the link dropped) would otherwise go
out first and be refused by the server (a ``+n`` channel takes no message from outside).
Held lines go to the send queue, in order, when the bot is in their channel.

A fight's lines and a ledger anchor (``Outgoing.fit``) are never dropped here: they wait
for their channel, even one the bot is out of (kicked, parted, refused, no answer to its
JOIN), until a later JOIN of it succeeds (after a reconnect, an invite); the fights bound
them. Chatter for a channel the bot is out of is dropped, and past ``most`` held lines
the newest chatter goes first: each drop is a WARNING.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from bot.casemap import fold
from bot.messages import Outgoing, Priority

__all__ = ["Held"]

log = logging.getLogger("ancath.irc")


def _kept(line: Outgoing) -> bool:
    """A fight's line or an anchor: never dropped here."""
    return line.priority < Priority.CHATTER or line.fit is not None


class Held:
    def __init__(self, most: int) -> None:
        self.most = most
        self._lines: list[Outgoing] = []

    def __len__(self) -> int:
        return len(self._lines)

    def hold(self, line: Outgoing, not_in: str | None = None) -> None:
        """Hold ``line`` for its channel; ``not_in``: why the bot is out of it, if it is
        (chatter is dropped then)."""
        if not_in is not None and not _kept(line):
            log.warning("not in %s (%s), dropped: %s", line.target, not_in, line.text)
            return
        self._lines.append(line)
        if not_in is not None:
            log.warning("not in %s (%s): kept until it is joined again (%d lines wait): %s",
                        line.target, not_in, self._count(line.target), line.text)
        if len(self._lines) > self.most:  # the newest chatter goes
            chatter = [i for i, held in enumerate(self._lines) if not _kept(held)]
            if chatter:
                log.warning("too many lines wait for their channel, dropped: %s",
                            self._lines.pop(chatter[-1]).text)

    def release(self, channel: str, casemapping: str) -> list[Outgoing]:
        """The lines for ``channel``, taken out: the bot is in it now."""
        key = fold(channel, casemapping)
        mine: list[Outgoing] = []
        others: list[Outgoing] = []
        for line in self._lines:
            (mine if fold(line.target, casemapping) == key else others).append(line)
        self._lines = others
        return mine

    def _count(self, channel: str) -> int:
        return sum(1 for line in self._lines if line.target == channel)

    def out_of(self, not_in: Mapping[str, str], casemapping: str) -> None:
        """The bot is out of the channels ``not_in`` (channel -> why): their chatter is
        dropped, their fight lines and anchors kept until a JOIN; the log counts both."""
        out = {fold(channel, casemapping): (channel, why) for channel, why in not_in.items()}
        dropped: dict[str, int] = {}
        kept: dict[str, int] = {}
        lines = []
        for line in self._lines:
            key = fold(line.target, casemapping)
            tally = kept if _kept(line) else dropped
            if key in out:
                tally[key] = tally.get(key, 0) + 1
            if key not in out or tally is kept:
                lines.append(line)
        self._lines = lines
        for key, count in dropped.items():
            channel, why = out[key]
            log.warning("not in %s (%s): dropped %d lines held for it, kept %d fight lines "
                        "until it is joined again", channel, why, count, kept.get(key, 0))
