"""Per-player command pacing on IRC: a burst of commands at once, then one every
``1 / rate`` seconds (CTCP requests count too; bot/irc/supervisor.py sets 5 and one every
2 s); more are dropped, and the first dropped in ``NOTICE_EVERY`` seconds earns the
player one line saying so (``NOTICE``).

Keyed by identity (services account, else ``user@host``), so a nick change does not
refill it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.irc.outbox import TokenBucket

__all__ = ["NOTICE_EVERY", "Pace"]
NOTICE_EVERY = 60.0
"""Seconds between two slow-down lines to the same player."""


class Pace:
    def __init__(self, burst: float, rate: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.burst, self.rate, self._clock = burst, rate, clock
        self._buckets: dict[str, TokenBucket] = {}
        self._told: dict[str, float] = {}
        self.notice = f"slow down: one command every {1 / rate:g} s"
        """The one line a player over the limit gets, at most every ``NOTICE_EVERY``."""

    def allowed(self, identity: str) -> bool:
        """Whether a command from ``identity`` goes on now (it spends from its budget)."""
        bucket = self._buckets.get(identity)
        if bucket is None:
            bucket = self._buckets[identity] = TokenBucket(self.burst, self.rate, self._clock)
        return bucket.take()

    def tell(self, identity: str) -> bool:
        """For a dropped command: whether to say ``notice`` to ``identity`` now (once
        every ``NOTICE_EVERY`` seconds at most)."""
        now = self._clock()
        last = self._told.get(identity)
        if last is not None and now - last < NOTICE_EVERY:
            return False
        self._told = {who: at for who, at in self._told.items() if now - at < NOTICE_EVERY}
        self._told[identity] = now
        return True
