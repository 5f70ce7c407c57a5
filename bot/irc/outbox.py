"""The send queue: one per connection, paced by a line budget and a byte budget
(bot/irc/budget.py: what a line costs, and why the defaults), protocol lines first, then
fight output, then chatter.

Everything the bot sends after registration goes through here: messages, and protocol
lines (JOIN, WHO, PING, NICK, CAP) queued with ``raw``; what must precede registration
(CAP, AUTHENTICATE, NICK, USER) and PONG answers go out around it. The queue holds
``Line`` values (bot/irc/line.py), each costed as it is queued and written as text
(``Line.format``) only by the sender, on the socket. Every parameter is cleaned of CR,
LF and NUL, and text split on UTF-8 boundaries within what the server leaves after our
own prefix (docs/irc-notes.md#one-line), except a line that must stay one (a fight's
end with its ledger anchor): it is fitted to that budget. Messages wait here
across a reconnect; protocol lines belong to their session and are dropped when a new one
starts; past ``max_backlog`` messages the newest chatter is dropped first, each message
whole. Protocol lines (a JOIN or WHO the join sequence waits on) and busy lines are never
dropped so, nor counted: the session bounds the first (one JOIN and one WHO wait at a
time), ``Busy`` the second.

What the bot owes a host (issue 31). Chatter goes in a fair order (bot/irc/fair.py): to
the host that asked least lately first, within it to the identity that asked least, then
oldest first; so a bystander's answer goes before a flood's. A reply (``within``:
``reply_seconds``) that would not go out within that time is dropped rather than queued,
or dropped when its time comes while it waits, and a host is owed at most ``most_owed``
reply lines (what the budget sends in that time): a reply that would go out too late is
worth less than the line it blocks. Fight output and a line kept whole for its anchor
are never dropped so.

Chatter's share (issue 32). Fight output goes before chatter, but after ``SHARE - 1``
of its lines in a row while chatter waited the next line is chatter (:meth:`Outbox._pick`;
protocol lines still go first): with eight fights on one connection a spectator's
``!odds`` are still answered. No drop is silent: each is a WARNING, and the asker of a
reply dropped (a PRIVMSG) is named in one busy line to its target, queued as chatter
(:meth:`_tell`; ``Busy``, bot/irc/pacing.py): ``busy with fights: c, d: ask again in a
minute``, at most one waiting per target, its names read when it goes out.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.config import FloodConfig
from bot.irc.budget import Budget, Cost, text_room
from bot.irc.fair import Fair, Owed, Rank
from bot.irc.line import Line, LineError, parse
from bot.irc.pacing import Busy
from bot.messages import Priority
from bot.safe_text import clean, split_utf8, valid_target

__all__ = ["CONTROL", "SHARE", "Outbox"]

log = logging.getLogger("ancath.outbox")

CONTROL = Priority.FIGHT - 1
"""The queue priority of protocol lines: before fight output."""
SHARE = 4
"""While chatter waits, it gets at least one send slot in this many (:meth:`Outbox._pick`)."""
_NOBODY: Owed = ("", "")
_TOO_LATE, _BACKLOG = "too late to send", "send backlog full"


def _text(command: str, target: str, text: str) -> Line:
    """``<command> <target> :<text>``, a PRIVMSG or NOTICE, ``text`` cleaned."""
    return Line(command, [target, clean(text)], trailing=True)


@dataclass(slots=True)
class _Queued:
    priority: int
    order: int
    line: Line
    protocol: bool
    """A protocol line of this session (dropped by ``new_session``)."""
    owed: Owed
    """Whom the line answers: (host, identity), or ("", "") for nobody in particular."""
    until: float | None = None
    """When it is too late to send (the first line of a reply only); None: never."""
    message: int = -1
    """The order of its message's first line (-1: this one's): a line goes with it."""
    reply: bool = False
    """A line of a reply (it may be dropped as too late), not a fight's or an anchor."""
    nick: str = ""
    """The nick of whom a reply answers, to name if it is dropped (:meth:`_tell`)."""
    busy: bool = False
    """A busy line: its text is read from ``Busy`` when it goes out (:meth:`_as_sent`)."""
    cost: Cost = (0.0, 0.0)
    """What the line costs the budget, reckoned as it is queued (:meth:`_push`)."""

    @property
    def target(self) -> str:
        return self.line.param(0)

    @property
    def kept(self) -> bool:
        """Never dropped by the backlog, nor counted in it: bounded otherwise."""
        return self.protocol or self.busy


class Outbox:
    def __init__(self, flood: FloodConfig | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        flood = flood or FloodConfig()
        self.budget = Budget(flood, clock)
        self.max_backlog = flood.max_backlog
        self.most_owed = flood.burst + math.ceil(flood.per_second * flood.reply_seconds)
        """Reply lines one host may be owed at once: what the budget sends in
        ``reply_seconds`` (:meth:`message`)."""
        self.prefix: str | None = None
        """Our own ``nick!user@host`` once seen; it sets the text budget."""
        self._queue: list[_Queued] = []
        self._order = itertools.count()
        self._clock = clock
        self.fair = Fair(4 * self.max_backlog, clock)
        """What each host and identity asked lately, and is owed (bot/irc/fair.py)."""
        self._streak = 0
        """Lines of fight output sent in a row while chatter waited (:meth:`_pick`)."""
        self.busy = Busy(self.most_owed, clock)
        """The askers of replies dropped, to be told by a busy line (:meth:`_tell`)."""
        self._chosen: tuple[_Queued, Line, list[str]] | None = None
        """What ``next_line`` gave: the entry, its line as sent, whom it tells."""
        self.dropped = 0
        """Lines of replies dropped as too late to send, queued first or not."""
        self.expired = 0
        """Of those, the lines that had been queued."""
        self._ready = asyncio.Event()
        self._send: Callable[[Line], bool] | None = None
        self._connected: asyncio.Event | None = None

    def __len__(self) -> int:
        return len(self._queue)

    def owes(self, host: str) -> int:
        """Reply lines queued for someone on ``host`` (at most ``most_owed``)."""
        return sum(1 for entry in self._queue if entry.reply and entry.owed[0] == host)

    def message(self, target: str, text: str, priority: Priority = Priority.CHATTER,
                command: str = "PRIVMSG", fit: Callable[[int], str] | None = None,
                owed: Owed | None = None, within: float | None = None,
                nick: str = "") -> int:
        """Queue a PRIVMSG (or NOTICE), split as needed, or as ``fit`` says it in one
        line (a fight's end and its anchor); returns the lines queued.

        ``owed``: (host, identity) of whom it answers, for the fair order of chatter
        (bot/irc/fair.py), and ``nick`` their nick, to name if it is dropped. ``within``:
        the seconds a reply is worth waiting. A reply whose first line would not go out
        by then, in the order as it stands (chatter taking its share, :meth:`_pick`),
        is dropped, not queued (0 lines); so is one that would take its host past
        ``most_owed`` reply lines, unless it goes before some of them (the host's
        replies that would go last are dropped to make room); one whose time comes while
        it waits is dropped then, with the rest of its lines. A fight's lines and a line
        that ``fit`` keeps whole (an anchor) are never dropped so, whatever ``within``
        says. No drop is silent (:meth:`_log_drop`)."""
        target = clean(target).strip()
        if not valid_target(target):
            log.warning("not sending to invalid target %r", target)
            return 0
        pieces = [p for p in split_utf8(text, text_room(self.prefix, command, target), fit) if p]
        if not pieces:
            return 0
        lines = [_text(command, target, piece) for piece in pieces]
        who = owed or _NOBODY
        if priority < Priority.CHATTER or fit is not None:
            within = None  # a fight's own lines and anchors are never too late
        cost = self.budget.cost(lines[0])
        if within is not None and not self._admit(priority, who, lines[0], len(lines),
                                                  within, owed is not None, cost):
            self.dropped += len(lines)
            self._log_drop(_TOO_LATE, _Queued(priority, -1, lines[0], False, who,
                                              reply=True, nick=nick))
            return 0
        until = None if within is None else self._clock() + within
        first = -1
        for line in lines:
            first = self._push(_Queued(priority, -1, line, False, who, until, first,
                                       within is not None, nick),
                               cost if line is lines[0] else None)
            until = None
        return len(pieces)

    def raw(self, line: Line | str, priority: int = CONTROL) -> None:
        """Queue a protocol line of this session (dropped by ``new_session``), cleaned."""
        line = parse(line) if isinstance(line, str) else line
        line = Line(line.command, [*map(clean, line.params)], trailing=line.trailing)
        try:
            self._push(_Queued(priority, -1, line, True, _NOBODY))
        except LineError as error:
            log.warning("not sending a protocol line that cannot be one line: %s", error)

    def new_session(self) -> None:
        """A new connection: full budgets, and the protocol lines of the session that
        ended dropped; messages stay."""
        self.budget.fill()
        for entry in [entry for entry in self._queue if entry.protocol]:
            self._remove(entry)
        self._chosen = None

    def _push(self, entry: _Queued, cost: Cost | None = None) -> int:
        """Send at once when nothing waits and the budget allows; else queue. Returns
        the message's first order (``entry.message``, or this line's when -1).
        ``cost``: the line's, when already reckoned."""
        entry.cost = cost or self.budget.cost(entry.line)
        send, connected = self._send, self._connected
        if not self._queue and connected is not None and connected.is_set() and send:
            line, told = self._as_sent(entry)
            if self.budget.take(self._cost(entry, line)) and send(line):
                if entry.busy:
                    self.busy.told(entry.target, told)
                return entry.message
        entry.order = next(self._order)
        entry.message = entry.order if entry.message < 0 else entry.message
        self._queue.append(entry)
        self.fair.count(entry.owed, 1)
        while len(self._queue) > self.max_backlog:  # the least urgent message, newest
            counted = [e for e in self._queue if not e.kept]
            if len(counted) <= self.max_backlog:
                break
            self._drop_message(max(counted, key=self.fair.rank_now()).message, _BACKLOG)
        self._ready.set()
        return entry.message

    # -- the fair order of chatter -------------------------------------------------------

    def _remove(self, entry: _Queued) -> None:
        self._queue.remove(entry)
        self.fair.count(entry.owed, -1)
        if self._chosen is not None and self._chosen[0] is entry:
            self._chosen = None

    def asked(self, owed: Owed) -> None:
        """A request came from ``owed``, answered or not (:meth:`Fair.asked`)."""
        self.fair.asked(owed)

    def _pick(self) -> _Queued:
        """The line to send next: the first in rank, but chatter after ``SHARE - 1``
        lines of fight output in a row while it waited (protocol lines go first)."""
        rank = self.fair.rank_now()
        entry = min(self._queue, key=rank)
        if entry.priority == Priority.FIGHT and self._streak >= SHARE - 1:
            chatter = (e for e in self._queue if e.priority >= Priority.CHATTER)
            entry = min(chatter, key=rank, default=entry)
        return entry

    def _admit(self, priority: int, owed: Owed, line: Line, lines: int, within: float,
               bounded: bool, cost: Cost) -> bool:
        """Whether a reply of ``lines`` lines for ``owed``, ``line`` the first (costing
        ``cost``), may be queued (:meth:`message`); ``bounded``: its host's replies are
        bounded. With nothing queued, only its own wait and size count."""
        if not self._queue:
            return self._wait([], cost) <= within and not (bounded and lines > self.most_owed)
        self.fair.count(owed, lines)  # as if queued: its own lines weigh on its place
        try:
            rank = self.fair.rank_now()
            mine = rank(_Queued(priority, sys.maxsize, line, False, owed))  # the newest
            if self._wait(self._ahead(rank, mine), cost) > within:
                return False
            while bounded and self.owes(owed[0]) + lines > self.most_owed:
                worst = max((e for e in self._queue if e.reply and e.owed[0] == owed[0]),
                            key=rank, default=None)
                if worst is None or rank(worst) < mine:
                    return False  # the host's others go first (or none): this one goes
                self._drop_message(worst.message, _TOO_LATE)  # it would go last: it goes
                rank = self.fair.rank_now()
                mine = rank(_Queued(priority, sys.maxsize, line, False, owed))
        finally:
            self.fair.count(owed, -lines)
        return True

    def _ahead(self, rank: Callable[[_Queued], Rank], mine: Rank) -> list[_Queued]:
        """The lines that go before a chatter line ranked ``mine``: protocol lines, the
        chatter ranked before it, and the fight output its share (:meth:`_pick`) lets go
        first: ``SHARE - 1`` lines for each chatter line, less those gone in a row."""
        chatter = [e for e in self._queue if e.priority >= Priority.CHATTER
                   and rank(e) < mine]
        fight = sorted((e for e in self._queue if e.priority == Priority.FIGHT), key=rank)
        share = (SHARE - 1) * (len(chatter) + 1) - self._streak
        control = [e for e in self._queue if e.priority < Priority.FIGHT]
        return control + chatter + fight[:max(0, share)]

    def _wait(self, ahead: list[_Queued], cost: Cost) -> float:
        """Seconds until a line of ``cost`` would go out after the lines ``ahead``."""
        units, size = cost
        for entry in ahead:
            units, size = units + entry.cost[0], size + entry.cost[1]
        return max(self.budget.lines.wait_time(units), self.budget.bytes.wait_time(size))

    # -- drops, never silent -------------------------------------------------------------

    def _drop_message(self, message: int, why: str) -> None:
        """Drop a message's lines: a reply too late to send, or past the backlog."""
        lines = [e for e in self._queue if e.message == message]
        for entry in lines:
            self._remove(entry)
        if why == _TOO_LATE:
            self.dropped, self.expired = self.dropped + len(lines), self.expired + len(lines)
        self._log_drop(why, lines[0])

    def _log_drop(self, why: str, entry: _Queued) -> None:
        """A WARNING for every drop; the asker of a reply (a PRIVMSG) is told by a busy
        line (:meth:`_tell`)."""
        whom = ""
        if entry.reply and entry.owed[1] and entry.line.command == "PRIVMSG":
            told = "named" if self._tell(entry) else "not named"
            whom = f" a reply to {entry.owed[1]} ({told} in a busy line)"
        log.warning("%s, dropped%s: %s", why, whom, entry.line.format())

    def _tell(self, dropped: _Queued) -> bool:
        """Name the asker of ``dropped`` in its target's busy line, queued unless one
        waits; False when they are not to be named (told lately, ``Busy``'s bounds)."""
        target = dropped.target
        if not dropped.nick or not self.busy.dropped(target, dropped.owed[1], dropped.nick):
            return False
        if not any(e.busy and e.target == target for e in self._queue):
            line = _text("PRIVMSG", target, f"busy: {dropped.nick}")  # read later
            self._push(_Queued(Priority.CHATTER, -1, line, False, dropped.owed, busy=True))
        return True

    def _as_sent(self, entry: _Queued) -> tuple[Line, list[str]]:
        """``entry``'s line as it goes out, and the askers it tells: a busy line's names
        are read now, as many as fit."""
        if not entry.busy:
            return entry.line, []
        fights = any(e.priority == Priority.FIGHT and not e.protocol for e in self._queue)
        room = text_room(self.prefix, "PRIVMSG", entry.target)
        text, told = self.busy.words(entry.target, room, fights)
        return _text("PRIVMSG", entry.target, text), told

    def _cost(self, entry: _Queued, line: Line) -> Cost:
        """``line``'s cost: ``entry``'s, but a busy line's as its names are read."""
        return self.budget.cost(line) if entry.busy else entry.cost

    def _expire(self) -> None:
        """Drop every reply whose time is up, with the rest of its message."""
        now = self._clock()
        for message in {e.message for e in self._queue if e.until is not None
                        and now > e.until}:
            self._drop_message(message, _TOO_LATE)

    # -- sending -------------------------------------------------------------------------

    def next_line(self) -> tuple[Line | None, float]:
        """The line to send next (:meth:`_pick`), if the budget allows it now; else None
        and the seconds to wait. It stays queued until ``sent``; a reply whose time is
        up is dropped on the way."""
        self._chosen = None
        self._expire()
        if not self._queue:
            return None, 0.0
        entry = self._pick()
        line, told = self._as_sent(entry)
        wait = self.budget.wait_time(self._cost(entry, line))
        if wait > 0:
            return None, wait
        self._chosen = entry, line, told
        return line, 0.0

    def sent(self) -> None:
        """The line ``next_line`` gave went out: unqueue it and spend what it costs."""
        if self._chosen is None or self._chosen[0] not in self._queue:
            raise RuntimeError("sent() without a line from next_line()")
        entry, line, told = self._chosen
        self._remove(entry)
        self.budget.spend(self._cost(entry, line))
        if entry.busy:
            self.busy.told(entry.target, told)
        if entry.priority >= Priority.CHATTER or not any(
                e.priority >= Priority.CHATTER for e in self._queue):
            self._streak = 0
        elif entry.priority == Priority.FIGHT:
            self._streak += 1

    async def run(self, send: Callable[[Line], bool], connected: asyncio.Event) -> None:
        """Send forever: wait for a line, a connection and the budget, in that order;
        ``send`` writes the line (``Line.format``) on the socket."""
        self._send, self._connected = send, connected
        while True:
            if not self._queue:
                self._ready.clear()
                await self._ready.wait()
            await connected.wait()
            line, wait = self.next_line()
            if line is None:
                await asyncio.sleep(wait)
            elif send(line):
                self.sent()
            else:  # the link went away meanwhile: the line waits for the next one
                await asyncio.sleep(0.05)
