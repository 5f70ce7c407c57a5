"""What a line costs the bot on the wire: the two token buckets every line the outbox
(bot/irc/outbox.py) sends spends from, and why the defaults are what they are.

A line spends from two token buckets and waits until both have enough; a cost larger
than a bucket's capacity is capped to it.

* Lines (``burst`` units, refilled at ``per_second``): a line costs its command's weight,
  InspIRCd 3's own penalty: JOIN 2, NICK 4, PART 5, anything else 1. Solanum and ngircd
  count 1 a line, so the weights only make the bot slower there (InspIRCd's penalties as
  measured at its default connect class: docs/irc-notes.md).
* Bytes (``burst_bytes``, refilled at ``bytes_per_second``): a line costs its length
  with CR LF, so a 400-byte line spends ten times what a 40-byte one does. InspIRCd
  checks its receive queue (4096 bytes by default) before it parses anything: ten
  512-byte lines arriving in one read killed a client that had sent nothing else
  ("RecvQ exceeded"), twenty 202-byte lines (4040 bytes) did not. The lines it holds
  back for penalty wait in that queue too, so a backlog kills by its bytes, and one line
  a second of any length lives (the measurements: docs/irc-notes.md).

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

import time
from collections.abc import Callable
from functools import lru_cache

from bot.config import FloodConfig
from bot.irc.line import Line, middle
from bot.safe_text import DEFAULT_BUDGET

__all__ = ["WEIGHTS", "Budget", "Cost", "TokenBucket", "text_room"]

Cost = tuple[float, float]
"""What a line costs: line-budget units, and bytes on the wire (CR LF included)."""

WEIGHTS = {"JOIN": 2, "NICK": 4, "PART": 5}
"""Line-budget units of the commands that cost more than one (InspIRCd 3's penalties)."""
_LIMIT = 510
"""Bytes of a relayed line before CR LF, the sender's prefix included."""


@lru_cache(maxsize=1024)
def text_room(prefix: str | None, command: str, target: str) -> int:
    """The bytes of text a ``command`` to ``target`` may carry once the server puts our
    ``prefix`` (``nick!user@host``) before it; reckoned once while the prefix stays."""
    if prefix is None or not middle(prefix):
        return DEFAULT_BUDGET
    return max(64, _LIMIT - len(Line(command, [target, ""], prefix).format().encode()))


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

    def cost(self, line: Line | str) -> Cost:
        """Units and bytes ``line`` costs, each capped to its bucket; a ``Line`` as
        ``Line.format`` writes it (raises ``LineError`` where it cannot be one line)."""
        if isinstance(line, Line):
            command, text = line.command, line.format()
        else:
            command, text = line.split(" ", 1)[0].upper(), line
        size = len(text.encode()) + 2  # CR LF
        return min(WEIGHTS.get(command, 1), self.lines.burst), min(size, self.bytes.burst)

    def wait_time(self, line: Cost | Line | str) -> float:
        """Seconds until both buckets have what ``line`` costs (or ``cost``, reckoned)."""
        units, size = line if isinstance(line, tuple) else self.cost(line)
        return max(self.lines.wait_time(units), self.bytes.wait_time(size))

    def take(self, line: Cost | Line | str) -> bool:
        """Spend what ``line`` costs if both buckets have it (each refilled once)."""
        units, size = line if isinstance(line, tuple) else self.cost(line)
        if max(self.lines.wait_time(units), self.bytes.wait_time(size)) > 0:
            return False
        self.lines.tokens -= units
        self.bytes.tokens -= size
        return True

    def spend(self, line: Cost | Line | str) -> None:
        units, size = line if isinstance(line, tuple) else self.cost(line)
        self.lines.spend(units)
        self.bytes.spend(size)

    def fill(self) -> None:
        """A new connection: the server counts from nothing again."""
        self.lines.fill()
        self.bytes.fill()
