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
import heapq
import itertools
import logging
import re
import time
from collections.abc import Callable

from bot.chat.messages import Priority
from bot.config import FloodConfig
from bot.irc.text import DEFAULT_BUDGET, clean, split_utf8

__all__ = ["CONTROL", "WEIGHTS", "Budget", "Outbox", "TokenBucket", "valid_target"]

log = logging.getLogger("ancath.outbox")

_CHANNEL = re.compile(r"[#&][^\s,\x07\x00-\x1f]{1,49}")
_NICK = re.compile(r"[A-Za-z\[\]\\`_^{|}][A-Za-z0-9\[\]\\`_^{|}-]{0,29}")
_LIMIT = 510
"""Bytes of a relayed line before CR LF, the sender's prefix included."""
CONTROL = Priority.FIGHT - 1
"""The queue priority of protocol lines: before fight output."""
WEIGHTS = {"JOIN": 2, "NICK": 4, "PART": 5}
"""Line-budget units of the commands that cost more than one (InspIRCd 3's penalties)."""


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


class Outbox:
    def __init__(self, flood: FloodConfig | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        flood = flood or FloodConfig()
        self.budget = Budget(flood, clock)
        self.max_backlog = flood.max_backlog
        self.prefix: str | None = None
        """Our own ``nick!user@host`` once seen; it sets the text budget."""
        self._heap: list[tuple[int, int, str, bool]] = []
        """(priority, order, line, a protocol line of this session)."""
        self._order = itertools.count()
        self._ready = asyncio.Event()
        self._send: Callable[[str], bool] | None = None
        self._connected: asyncio.Event | None = None

    def __len__(self) -> int:
        return len(self._heap)

    def _budget(self, command: str, target: str) -> int:
        if self.prefix is None:
            return DEFAULT_BUDGET
        overhead = len(f":{self.prefix} {command} {target} :".encode())
        return max(64, _LIMIT - overhead)

    def message(self, target: str, text: str, priority: Priority = Priority.CHATTER,
                command: str = "PRIVMSG", fit: Callable[[int], str] | None = None) -> int:
        """Queue a PRIVMSG (or NOTICE), split as needed, or as ``fit`` says it in one
        line (a fight's end and its anchor); returns the lines queued."""
        target = clean(target).strip()
        if not valid_target(target):
            log.warning("not sending to invalid target %r", target)
            return 0
        pieces = [p for p in split_utf8(text, self._budget(command, target), fit) if p]
        for piece in pieces:
            self._push(priority, f"{command} {target} :{piece}", False)
        return len(pieces)

    def raw(self, line: str, priority: int = CONTROL) -> None:
        """Queue a protocol line of this session (dropped by ``new_session``)."""
        self._push(priority, clean(line), True)

    def new_session(self) -> None:
        """A new connection: full budgets, and the protocol lines of the session that
        ended dropped; messages stay."""
        self.budget.fill()
        self._heap = [entry for entry in self._heap if not entry[3]]
        heapq.heapify(self._heap)

    def _push(self, priority: int, line: str, protocol: bool) -> None:
        """Send at once when nothing waits and the budget allows; else queue."""
        send, connected = self._send, self._connected
        ready = not self._heap and connected is not None and connected.is_set()
        if ready and send is not None and self.budget.take(line) and send(line):
            return
        heapq.heappush(self._heap, (priority, next(self._order), line, protocol))
        while len(self._heap) > self.max_backlog:
            dropped = max(self._heap)  # the newest of the least urgent
            self._heap.remove(dropped)
            heapq.heapify(self._heap)
            log.warning("send backlog full, dropped: %s", dropped[2])
        self._ready.set()

    def next_line(self) -> tuple[str | None, float]:
        """The most urgent line, oldest first, if the budget allows it now; else None and
        the seconds to wait. It stays queued until ``sent``."""
        if not self._heap:
            return None, 0.0
        line = self._heap[0][2]
        wait = self.budget.wait_time(line)
        return (None, wait) if wait > 0 else (line, 0.0)

    def sent(self) -> None:
        """The line ``next_line`` gave went out: unqueue it and spend what it costs."""
        self.budget.spend(heapq.heappop(self._heap)[2])

    async def run(self, send: Callable[[str], bool], connected: asyncio.Event) -> None:
        """Send forever: wait for a line, a connection and the budget, in that order."""
        self._send, self._connected = send, connected
        while True:
            if not self._heap:
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
