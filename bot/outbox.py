"""The send queue: one per connection, paced by a token bucket, fight output first.

Every parameter is cleaned of CR, LF and NUL and text is split on UTF-8 boundaries
within what the server leaves after our own prefix (shared/IRC-NOTES.md). Lines wait
here across a reconnect; past ``max_backlog`` the newest chatter is dropped first.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import re
import time
from collections.abc import Callable

from bot.messages import Priority
from bot.text import DEFAULT_BUDGET, clean, split_utf8

__all__ = ["Outbox", "TokenBucket", "valid_target"]

log = logging.getLogger("ancath.outbox")

_CHANNEL = re.compile(r"[#&][^\s,\x07\x00-\x1f]{1,49}")
_NICK = re.compile(r"[A-Za-z\[\]\\`_^{|}][A-Za-z0-9\[\]\\`_^{|}-]{0,29}")
_LIMIT = 510
"""Bytes of a relayed line before CR LF, the sender's prefix included."""


def valid_target(target: str) -> bool:
    """A channel or nick the bot may address; anything else is never sent."""
    return bool(_CHANNEL.fullmatch(target) or _NICK.fullmatch(target))


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` per second."""

    def __init__(self, burst: float, rate: float, clock: Callable[[], float] = time.monotonic):
        self.burst, self.rate, self._clock = burst, rate, clock
        self.tokens, self._stamp = float(burst), clock()

    def _refill(self) -> None:
        now = self._clock()
        self.tokens = min(self.burst, self.tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def take(self) -> bool:
        """Spend a token if one is there."""
        self._refill()
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def wait_time(self) -> float:
        """Seconds until a token is there."""
        self._refill()
        return max(0.0, (1 - self.tokens) / self.rate)


class Outbox:
    def __init__(self, burst: int = 4, per_second: float = 1.0, max_backlog: int = 200) -> None:
        self.bucket = TokenBucket(burst, per_second)
        self.max_backlog = max_backlog
        self.prefix: str | None = None
        """Our own ``nick!user@host`` once seen; it sets the text budget."""
        self._heap: list[tuple[int, int, str]] = []
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
                command: str = "PRIVMSG") -> int:
        """Queue a PRIVMSG (or NOTICE), split as needed; returns the lines queued."""
        target = clean(target).strip()
        if not valid_target(target):
            log.warning("not sending to invalid target %r", target)
            return 0
        pieces = [p for p in split_utf8(text, self._budget(command, target)) if p]
        for piece in pieces:
            self._push(priority, f"{command} {target} :{piece}")
        return len(pieces)

    def _push(self, priority: int, line: str) -> None:
        """Send at once when nothing waits and the bucket allows; else queue."""
        send, connected = self._send, self._connected
        ready = not self._heap and connected is not None and connected.is_set()
        if ready and send is not None and self.bucket.take() and send(line):
            return
        heapq.heappush(self._heap, (int(priority), next(self._order), line))
        while len(self._heap) > self.max_backlog:
            dropped = max(self._heap)  # the newest of the least urgent
            self._heap.remove(dropped)
            heapq.heapify(self._heap)
            log.warning("send backlog full, dropped: %s", dropped[2])
        self._ready.set()

    async def run(self, send: Callable[[str], bool], connected: asyncio.Event) -> None:
        """Send forever: wait for a line, a connection and a token, in that order."""
        self._send, self._connected = send, connected
        while True:
            if not self._heap:
                self._ready.clear()
                await self._ready.wait()
            await connected.wait()
            wait = self.bucket.wait_time()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            if not self._heap:
                continue
            priority, order, line = heapq.heappop(self._heap)
            if not self.bucket.take() or not send(line):
                heapq.heappush(self._heap, (priority, order, line))
                await asyncio.sleep(0.05)
