"""The send queue: one per connection, paced by a line budget and a byte budget, protocol
lines first, then fight output, then chatter.

Everything the bot sends after registration goes through here: messages, and protocol
lines (JOIN, WHO, PING, NICK, CAP) queued with ``raw``. What must precede registration
(CAP, AUTHENTICATE, NICK, USER) and PONG answers go out around the queue.
Every parameter is cleaned of CR, LF and NUL and text is split on UTF-8 boundaries
within what the server leaves after our own prefix (shared/IRC-NOTES.md), except a line
that must stay one (a fight's end with its ledger anchor): it is fitted to that budget.
Messages wait here across a reconnect; protocol lines belong to their session and are dropped when a
new one starts; past ``max_backlog`` the newest chatter is dropped first.

What the bot owes a host (issue 31). On a network without services an identity costs a
flooder one ``USER``, so replies are counted by the host they answer as well as by the
identity (``owed``, bot/irc/supervisor.py). Chatter goes in a fair order (:meth:`Outbox.
_rank_now`): to the host that asked least lately first (:meth:`Outbox.asked`, decaying by
half every ``HALF_LIFE`` seconds, plus the lines queued for it), within it to the
identity that asked least, then oldest first; so a bystander's answer goes before a
flood's, from another host or the same one. A reply (``within``: ``reply_seconds``) that
would not go out within that time is dropped rather than queued, or dropped when its
time comes while it waits, and a host is owed at most ``most_owed`` reply lines (what the
budget sends in that time): a reply that would go out too late is worth less than the
line it blocks. Fight output and a line kept whole for its anchor are never dropped so.

What a line costs. A line spends from two token buckets and waits until both have
enough; a cost larger than a bucket's capacity is capped to it.

* Lines (``burst`` units, refilled at ``per_second``): a line costs its command's weight,
  InspIRCd 3's own penalty: JOIN 2, NICK 4, PART 5, anything else 1. Solanum and ngircd
  count 1 a line, so the weights only make the bot slower there. Measured on InspIRCd at
  its default connect class: it runs 10 units at once, then one a second (eight JOINs,
  each followed by a PRIVMSG, ran 3 s apart; NICKs 5 s apart; WHO, MODE, PING 2 s).
* Bytes (``burst_bytes``, refilled at ``bytes_per_second``): a line costs its length
  with CR LF, so a 400-byte line spends ten times what a 40-byte one does. InspIRCd
  checks its receive queue (4096 bytes by default) before it parses anything: ten
  512-byte lines arriving in one read killed a client that had sent nothing else
  ("RecvQ exceeded"), twenty 202-byte lines (4040 bytes) did not. The lines it holds
  back for penalty wait in that queue too, so a backlog kills by its bytes: after a
  burst of 4, two lines a second of 512 bytes were killed in 14 s; of 42 bytes they
  lived, 34 s behind after 40 s. One line a second of either lived.

The defaults need no configuration on InspIRCd 3, Solanum and ngircd. 4 units at once:
InspIRCd allows 10, of which registration (CAP LS, CAP REQ, two AUTHENTICATE, CAP END)
has used at most 5, and Solanum allows 5. Then 1 a second: InspIRCd's rate, half
Solanum's, a third of ngircd's, so the server never falls behind and holds nothing back.
2048 bytes at once is half InspIRCd's queue: what arrives in one read stays far from the
kill, even behind a burst the server had to hold. 512 bytes a second is one longest line
a second, so at the default rate the line budget binds and the byte budget never slows
the bot; it binds when long lines meet a raised ``burst`` or ``per_second``: ten
400-byte lines at once would be 4020 bytes in one read of a 4096-byte queue, and it
lets five go.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.chat.messages import Priority
from bot.config import FloodConfig
from bot.irc.text import DEFAULT_BUDGET, clean, split_utf8

__all__ = ["CONTROL", "HALF_LIFE", "WEIGHTS", "Budget", "Outbox", "Owed", "TokenBucket",
           "valid_target"]

log = logging.getLogger("ancath.outbox")

_CHANNEL = re.compile(r"[#&][^\s,\x07\x00-\x1f]{1,49}")
_NICK = re.compile(r"[A-Za-z\[\]\\`_^{|}][A-Za-z0-9\[\]\\`_^{|}-]{0,29}")
_LIMIT = 510
"""Bytes of a relayed line before CR LF, the sender's prefix included."""
CONTROL = Priority.FIGHT - 1
"""The queue priority of protocol lines: before fight output."""
WEIGHTS = {"JOIN": 2, "NICK": 4, "PART": 5}
"""Line-budget units of the commands that cost more than one (InspIRCd 3's penalties)."""
HALF_LIFE = 30.0
"""Seconds in which the weight of a request (:meth:`Outbox.asked`) halves."""
Owed = tuple[str, str]
"""Whom a reply answers: the host part of their ``nick!user@host`` and their identity."""
_NOBODY: Owed = ("", "")


def valid_target(target: str) -> bool:
    """A channel or nick the bot may address; anything else is never sent."""
    return bool(_CHANNEL.fullmatch(target) or _NICK.fullmatch(target))


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` per second; ``spend`` may leave a debt."""

    def __init__(self, burst: float, rate: float, clock: Callable[[], float] = time.monotonic):
        self.burst, self.rate, self._clock = burst, rate, clock
        self.tokens, self._stamp = float(burst), clock()

    def _refill(self) -> None:
        now = self._clock()
        self.tokens = min(self.burst, self.tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def take(self, cost: float = 1.0) -> bool:
        """Spend ``cost`` tokens if they are there."""
        if self.wait_time(cost) > 0:
            return False
        self.tokens -= cost
        return True

    def spend(self, cost: float) -> None:
        """Spend ``cost`` tokens whether or not they are there."""
        self._refill()
        self.tokens -= cost

    def wait_time(self, cost: float = 1.0) -> float:
        """Seconds until ``cost`` tokens are there."""
        self._refill()
        return max(0.0, (cost - self.tokens) / self.rate)

    def fill(self) -> None:
        self.tokens, self._stamp = float(self.burst), self._clock()


class Budget:
    """The two buckets every line spends from: penalty units and bytes."""

    def __init__(self, flood: FloodConfig, clock: Callable[[], float] = time.monotonic):
        self.lines = TokenBucket(flood.burst, flood.per_second, clock)
        self.bytes = TokenBucket(flood.burst_bytes, flood.bytes_per_second, clock)

    def cost(self, line: str) -> tuple[float, float]:
        """Units and bytes ``line`` costs, each capped to its bucket."""
        weight = WEIGHTS.get(line.split(" ", 1)[0].upper(), 1)
        size = len(line.encode()) + 2  # CR LF
        return min(weight, self.lines.burst), min(size, self.bytes.burst)

    def wait_time(self, line: str) -> float:
        units, size = self.cost(line)
        return max(self.lines.wait_time(units), self.bytes.wait_time(size))

    def take(self, line: str) -> bool:
        """Spend what ``line`` costs if both buckets have it."""
        if self.wait_time(line) > 0:
            return False
        self.spend(line)
        return True

    def spend(self, line: str) -> None:
        units, size = self.cost(line)
        self.lines.spend(units)
        self.bytes.spend(size)

    def fill(self) -> None:
        """A new connection: the server counts from nothing again."""
        self.lines.fill()
        self.bytes.fill()


@dataclass(slots=True)
class _Queued:
    priority: int
    order: int
    line: str
    protocol: bool
    """A protocol line of this session (dropped by ``new_session``)."""
    owed: Owed
    """Whom the line answers: (host, identity), or ("", "") for nobody in particular."""
    until: float | None = None
    """When it is too late to send (the first line of a reply only); None: never."""
    message: int = 0
    """The order of its message's first line: a line goes with its message's first."""
    reply: bool = False
    """A line of a reply (it may be dropped as too late), not a fight's or an anchor."""


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
        self._owes: dict[tuple[str, str], int] = {}
        """("host" or "who", its name) -> lines queued that answer it."""
        self._asked: dict[tuple[str, str], tuple[float, float]] = {}
        """("host" or "who", its name) -> (requests from it, decayed, and when)."""
        self._chosen: _Queued | None = None
        self.dropped = 0
        """Lines of replies dropped as too late to send, queued first or not."""
        self.expired = 0
        """Of those, the lines that had been queued."""
        self._ready = asyncio.Event()
        self._send: Callable[[str], bool] | None = None
        self._connected: asyncio.Event | None = None

    def __len__(self) -> int:
        return len(self._queue)

    def owes(self, host: str) -> int:
        """Reply lines queued for someone on ``host`` (at most ``most_owed``)."""
        return sum(1 for entry in self._queue if entry.reply and entry.owed[0] == host)

    def _budget(self, command: str, target: str) -> int:
        if self.prefix is None:
            return DEFAULT_BUDGET
        overhead = len(f":{self.prefix} {command} {target} :".encode())
        return max(64, _LIMIT - overhead)

    def message(self, target: str, text: str, priority: Priority = Priority.CHATTER,
                command: str = "PRIVMSG", fit: Callable[[int], str] | None = None,
                owed: Owed | None = None, within: float | None = None) -> int:
        """Queue a PRIVMSG (or NOTICE), split as needed, or as ``fit`` says it in one
        line (a fight's end and its anchor); returns the lines queued.

        ``owed``: (host, identity) of whom it answers, for the fair order of chatter
        (:meth:`_rank_now`). ``within``: the seconds a reply is worth waiting. A reply
        whose first line would not go out by then, in the order as it stands, is
        dropped, not queued (0 lines); so is one that would take its host past
        ``most_owed`` reply lines, unless it goes before some of them (the host's
        replies that would go last are dropped to make room); one whose time comes
        while it waits is dropped then, with the rest of its lines. A fight's lines and
        a line that ``fit`` keeps whole (an anchor) are never dropped so, whatever
        ``within`` says."""
        target = clean(target).strip()
        if not valid_target(target):
            log.warning("not sending to invalid target %r", target)
            return 0
        pieces = [p for p in split_utf8(text, self._budget(command, target), fit) if p]
        if not pieces:
            return 0
        lines = [f"{command} {target} :{piece}" for piece in pieces]
        who = owed or _NOBODY
        if priority < Priority.CHATTER or fit is not None:
            within = None  # a fight's own lines and anchors are never too late
        if within is not None and not self._admit(priority, who, lines[0], len(lines),
                                                  within, owed is not None):
            self._drop_late(lines[0], len(lines))
            return 0
        until = None if within is None else self._clock() + within
        first = -1
        for line in lines:
            first = self._push(priority, line, False, who, until, first, within is not None)
            until = None
        return len(pieces)

    def raw(self, line: str, priority: int = CONTROL) -> None:
        """Queue a protocol line of this session (dropped by ``new_session``)."""
        self._push(priority, clean(line), True, _NOBODY, None, -1, False)

    def new_session(self) -> None:
        """A new connection: full budgets, and the protocol lines of the session that
        ended dropped; messages stay."""
        self.budget.fill()
        self._queue = [entry for entry in self._queue if not entry.protocol]
        self._chosen = None

    def _push(self, priority: int, line: str, protocol: bool, owed: Owed,
              until: float | None, message: int, reply: bool) -> int:
        """Send at once when nothing waits and the budget allows; else queue. Returns
        the message's first order (``message``, or this line's when -1)."""
        send, connected = self._send, self._connected
        ready = not self._queue and connected is not None and connected.is_set()
        if ready and send is not None and self.budget.take(line) and send(line):
            return message
        order = next(self._order)
        message = order if message < 0 else message
        self._queue.append(_Queued(priority, order, line, protocol, owed, until, message,
                                   reply))
        self._count(owed, 1)
        while len(self._queue) > self.max_backlog:
            dropped = max(self._queue, key=self._rank_now())  # the least urgent, newest
            self._remove(dropped)
            log.warning("send backlog full, dropped: %s", dropped.line)
        self._ready.set()
        return message

    # -- the fair order of chatter -------------------------------------------------------

    def _count(self, owed: Owed, lines: int) -> None:
        for key in (("host", owed[0]), ("who", owed[1])):
            left = self._owes.get(key, 0) + lines
            if left > 0:
                self._owes[key] = left
            else:
                self._owes.pop(key, None)

    def _remove(self, entry: _Queued) -> None:
        self._queue.remove(entry)
        self._count(entry.owed, -1)
        if self._chosen is entry:
            self._chosen = None

    def asked(self, owed: Owed) -> None:
        """A request (a command, a CTCP) came from ``owed``, answered or not: it weighs
        on their host's place in the order of chatter, and on their own."""
        now = self._clock()
        for key in (("host", owed[0]), ("who", owed[1])):
            self._asked[key] = (self._requests(key, now) + 1, now)
        if len(self._asked) > 4 * self.max_backlog:  # forget who has been quiet long
            self._asked = {k: v for k, v in self._asked.items()
                           if self._requests(k, now) > 0.01}

    def _requests(self, key: tuple[str, str], now: float) -> float:
        count, at = self._asked.get(key, (0.0, now))
        return float(count * 0.5 ** ((now - at) / HALF_LIFE))

    def _rank_now(self) -> Callable[[_Queued], tuple[int, float, float, int]]:
        """The order lines go in, as things stand: protocol lines, then fight output,
        each oldest first; then chatter, the lightest host first (what it asked for
        lately, :meth:`asked`, and the lines queued for it), within a host the lightest
        identity, then the oldest line."""
        now = self._clock()
        loads: dict[tuple[str, str], float] = {}

        def load(key: tuple[str, str]) -> float:
            if key not in loads:
                loads[key] = self._owes.get(key, 0) + self._requests(key, now)
            return loads[key]

        def rank(entry: _Queued) -> tuple[int, float, float, int]:
            if entry.priority < Priority.CHATTER:
                return entry.priority, 0.0, 0.0, entry.order
            host, who = entry.owed
            return entry.priority, load(("host", host)), load(("who", who)), entry.order

        return rank

    def _admit(self, priority: int, owed: Owed, line: str, lines: int, within: float,
               bounded: bool) -> bool:
        """Whether a reply of ``lines`` lines for ``owed``, ``line`` the first, may be
        queued (:meth:`message`); ``bounded``: its host's replies are bounded."""
        self._count(owed, lines)  # as if queued: its own lines weigh on its place
        try:
            rank = self._rank_now()
            mine = rank(_Queued(priority, sys.maxsize, line, False, owed))  # the newest
            if self._wait([e for e in self._queue if rank(e) < mine], line) > within:
                return False
            while bounded and self.owes(owed[0]) + lines > self.most_owed:
                worst = max((e for e in self._queue if e.reply and e.owed[0] == owed[0]),
                            key=rank, default=None)
                if worst is None or rank(worst) < mine:
                    return False  # the host's others go first (or none): this one goes
                self._drop_message(worst.message)  # it would go last: it goes
                rank = self._rank_now()
                mine = rank(_Queued(priority, sys.maxsize, line, False, owed))
        finally:
            self._count(owed, -lines)
        return True

    def _wait(self, ahead: list[_Queued], line: str) -> float:
        """Seconds until ``line`` would go out after the lines ``ahead``."""
        units, size = self.budget.cost(line)
        for entry in ahead:
            cost = self.budget.cost(entry.line)
            units, size = units + cost[0], size + cost[1]
        return max(self.budget.lines.wait_time(units), self.budget.bytes.wait_time(size))

    def _drop_message(self, message: int) -> None:
        """Drop a reply's lines, as too late to send."""
        lines = [e for e in self._queue if e.message == message]
        for entry in lines:
            self._remove(entry)
        self.expired += len(lines)
        self._drop_late(lines[0].line, len(lines))

    def _drop_late(self, line: str, lines: int) -> None:
        self.dropped += lines
        log.info("too late to send, dropped: %s", line)

    def _expire(self) -> None:
        """Drop every reply whose time is up, with the rest of its message."""
        now = self._clock()
        for message in {e.message for e in self._queue if e.until is not None
                        and now > e.until}:
            self._drop_message(message)

    # -- sending -------------------------------------------------------------------------

    def next_line(self) -> tuple[str | None, float]:
        """The line to send next (:meth:`_rank_now`), if the budget allows it now; else
        None and the seconds to wait. It stays queued until ``sent``; a reply whose time
        is up is dropped on the way."""
        self._chosen = None
        self._expire()
        if not self._queue:
            return None, 0.0
        entry = min(self._queue, key=self._rank_now())
        wait = self.budget.wait_time(entry.line)
        if wait > 0:
            return None, wait
        self._chosen = entry
        return entry.line, 0.0

    def sent(self) -> None:
        """The line ``next_line`` gave went out: unqueue it and spend what it costs."""
        entry = self._chosen
        if entry is None or entry not in self._queue:
            raise RuntimeError("sent() without a line from next_line()")
        self._remove(entry)
        self.budget.spend(entry.line)

    async def run(self, send: Callable[[str], bool], connected: asyncio.Event) -> None:
        """Send forever: wait for a line, a connection and the budget, in that order."""
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
