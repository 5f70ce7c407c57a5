"""The configured channels, joined one at a time, and the WHO of each, one at a time;
no I/O (part of the session, bot/irc/session.py).

The next JOIN goes out once the server answered the last: its echo, or a refusal, or
the transport's ``timed_out`` (``JOIN_TIMEOUT`` after the JOIN went out). A refusal is a
numeric of ``REFUSALS``, or any other error numeric (400-599) or IRCv3 ``FAIL JOIN``
that names the channel being joined, in the server's own words (session.py). JOIN and WHO both go in
turn with fight output (``in_turn``: the send queue keeps their order with the resume
lines), so each channel's WHO, and then its resume line, queue right behind its own
JOIN, not behind every channel's (issue 32: behind every channel's JOIN, the first resume line
waited for all of them). What the server refused stays in ``not_in`` with its reason in words, for
the log and for a moderator's ``!status``. The next WHO goes out after the previous
one's end of WHO (315) or ``timed_out``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Container, Iterable

from bot.casemap import Folded, fold
from bot.irc.events import Action, JoinRefused, Send, WhoDone
from bot.irc.line import Line

__all__ = ["JOIN_TIMEOUT", "REFUSALS", "Joins", "Whos"]

JOIN_TIMEOUT = 10.0
"""Seconds to wait for the answer to a JOIN before going on with the next (the channel is
"no answer" until a late echo). Servers answer a JOIN at once, with its echo or an error,
and the bot's own pacing keeps their flood penalties from delaying it; so a silent server
costs 10 s a channel, not 30."""

REFUSALS = {
    "403": "no such channel", "405": "too many channels", "437": "temporarily unavailable",
    "470": "forwarded", "471": "channel is full", "473": "invite only", "474": "banned",
    "475": "needs a key", "476": "bad channel name", "477": "needs a registered nick",
    "479": "bad channel name", "480": "throttled", "489": "TLS only", "520": "opers only",
}
"""The numerics a server refuses a JOIN with (``<numeric> <me> <channel> :<reason>``),
in words: RFC 2812's, and Solanum's 480, InspIRCd's 489 and 520."""


class Joins:
    """The JOIN of each configured channel, one at a time."""

    def __init__(self, channels: Iterable[str]) -> None:
        self.channels = list(channels)
        """The channels to join, as configured."""
        self._todo: deque[str] = deque()
        self.waiting: str | None = None
        """The channel whose JOIN waits for its answer."""
        self.not_in: Folded[str] = Folded()
        """Channel -> why the bot is not in it (the server refused the JOIN, a kick)."""

    @property
    def line(self) -> str | None:
        """The JOIN that waits for its answer, as written on the wire."""
        return None if self.waiting is None else Line("JOIN", [self.waiting]).format()

    def start(self) -> list[Action]:
        """The welcome: join the channels, the first now."""
        self._todo = deque(self.channels)
        return self._next()

    def configured(self, channel: str) -> str | None:
        """``channel`` as configured, if it is (by the network's casemapping)."""
        return next((c for c in self.channels if self._same(c, channel)), None)

    def joined(self, channel: str) -> list[Action]:
        """The bot's own JOIN of ``channel`` was echoed."""
        self.not_in.pop(channel, None)
        return self._answered(channel)

    def error(self, line: Line, joined: Container[str]) -> list[Action]:
        """A numeric of ``REFUSALS`` naming a configured channel the bot is not in
        (``405 me #chan :You have joined too many channels``); or any other error
        numeric, or ``FAIL JOIN <code> <channel> :text``, whose parameters name the
        channel being joined: a refusal, in the server's words. Else nothing."""
        if line.command in REFUSALS:
            channel = self.configured(line.param(1))
            if channel is None or channel in joined:
                return []
            return self.refused(channel, line.command, " ".join(line.params[2:]))
        fail, channel = line.command == "FAIL", self.waiting
        if channel is None or (fail and line.param(0).upper() != "JOIN"):
            return []
        if not any(self._same(channel, name) for name in line.params[2 if fail else 1:-1]):
            return []
        return self.refused(channel, line.param(1) if fail else line.command, line.params[-1])

    def refused(self, channel: str, numeric: str, reason: str) -> list[Action]:
        """The server refused a JOIN of ``channel``: ``why`` in words for a numeric of
        ``REFUSALS``, else the server's ``reason`` (or its code)."""
        why = REFUSALS.get(numeric) or reason[:80] or numeric
        self.not_in[channel] = why
        return [JoinRefused(channel, why, numeric, reason), *self._answered(channel)]

    def left(self, channel: str, why: str) -> None:
        """The bot is out of ``channel`` (``parted``, ``kicked by op``)."""
        self.not_in[channel] = why

    def timed_out(self) -> list[Action]:
        """The transport waited long enough for an answer to ``line``."""
        if self.waiting is None:
            return []
        self.not_in[self.waiting] = "no answer"
        return self._answered(self.waiting)

    def _answered(self, channel: str) -> list[Action]:
        if self.waiting is None or not self._same(self.waiting, channel):
            return []
        self.waiting = None
        return self._next()

    def _same(self, one: str, other: str) -> bool:
        mapping = self.not_in.casemapping
        return fold(one, mapping) == fold(other, mapping)

    def _next(self) -> list[Action]:
        if not self._todo:
            return []
        self.waiting = self._todo.popleft()
        return [Send(Line("JOIN", [self.waiting]), in_turn=True)]


class Whos:
    """The WHO of each channel joined, one at a time."""

    def __init__(self) -> None:
        self._todo: deque[str] = deque()
        self.waiting: str | None = None
        """The WHO line that waits for its end of WHO, as written on the wire (the
        transport times its answer by it)."""
        self.channel = ""
        """The channel of ``waiting``."""

    def ask(self, channel: str, whox: bool) -> list[Action]:
        """The bot joined ``channel``: ask WHO of it in its turn."""
        self._todo.append(channel)
        return self._next(whox)

    def done(self, whox: bool) -> list[Action]:
        """The end of ``waiting`` (315, or the transport's timeout)."""
        if self.waiting is None:
            return []
        self.waiting = None
        return [WhoDone(self.channel), *self._next(whox)]

    def _next(self, whox: bool) -> list[Action]:
        if self.waiting is not None or not self._todo:
            return []
        channel = self.channel = self._todo.popleft()
        # WHOX: who is logged in as whom; a plain WHO still gives user@host
        who = Line("WHO", [channel, "%tnuhact,42"] if whox else [channel])
        self.waiting = who.format()   # which line waits, as the transport writes it
        return [Send(who, in_turn=True)]
