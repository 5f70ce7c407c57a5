"""The fair order of chatter in the send queue (bot/irc/outbox.py), issue 31.

On a network without services an identity costs a flooder one ``USER``, so replies are
counted by the host they answer as well as by the identity (``owed``). Chatter goes to
the host that asked least lately first (``Fair.asked``, decaying by half every
``HALF_LIFE`` seconds, plus the lines queued for it), within it to the identity that
asked least, then oldest first; so a bystander's answer goes before a flood's, from
another host or the same one. Protocol lines and fight output go first, oldest first.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import lru_cache
from typing import Protocol

from bot.chat.moderators import host_of
from bot.messages import Priority, Sender

__all__ = ["HALF_LIFE", "Fair", "Owed", "Rank", "owed"]

HALF_LIFE = 30.0
"""Seconds in which the weight of a request (:meth:`Fair.asked`) halves."""
Owed = tuple[str, str]
"""Whom a reply answers: the host part of their ``nick!user@host`` and their identity."""
Rank = tuple[int, float, float, int]
"""Where a line stands: its priority, its host's load, its identity's, its order."""


def owed(sender: Sender) -> Owed:
    """Whom a reply to ``sender`` is owed to: the host part of their ``nick!user@host``
    (whatever nick and ident they chose: a new one costs an attacker only a ``USER``; an
    IPv6 address by its /64, as wrong passwords are counted) and their identity."""
    mask = sender.mask or sender.host
    return (_host_of(mask) if mask else sender.identity), sender.identity


_host_of = lru_cache(maxsize=4096)(host_of)
"""``host_of`` remembered for the masks seen lately (an address parsed once, not twice
a line); bounded, so many identities only evict each other."""


class Queued(Protocol):
    @property
    def priority(self) -> int: ...
    @property
    def owed(self) -> Owed: ...
    @property
    def order(self) -> int: ...


class Fair:
    """What each host and identity asked lately, and the lines queued for each."""

    def __init__(self, most: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._most, self._clock = most, clock
        self._owes: dict[tuple[str, str], int] = {}
        """("host" or "who", its name) -> lines queued that answer it."""
        self._asked: dict[tuple[str, str], tuple[float, float]] = {}
        """("host" or "who", its name) -> (requests from it, decayed, and when)."""

    def count(self, owed: Owed, lines: int) -> None:
        """``lines`` more (or fewer) lines queued that answer ``owed``."""
        for key in (("host", owed[0]), ("who", owed[1])):
            left = self._owes.get(key, 0) + lines
            if left > 0:
                self._owes[key] = left
            else:
                self._owes.pop(key, None)

    def asked(self, owed: Owed) -> None:
        """A request (a command, a CTCP) came from ``owed``, answered or not: it weighs
        on their host's place in the order of chatter, and on their own."""
        now = self._clock()
        for key in (("host", owed[0]), ("who", owed[1])):
            self._asked[key] = (self._requests(key, now) + 1, now)
        if len(self._asked) > self._most:  # forget who has been quiet long
            self._asked = {k: v for k, v in self._asked.items()
                           if self._requests(k, now) > 0.01}

    def _requests(self, key: tuple[str, str], now: float) -> float:
        count, at = self._asked.get(key, (0.0, now))
        return float(count * 0.5 ** ((now - at) / HALF_LIFE))

    def rank_now(self) -> Callable[[Queued], Rank]:
        """The order lines go in, as things stand (but for chatter's share, the
        outbox's ``_pick``): protocol lines, then fight output, each oldest first; then
        chatter, the lightest host first, within a host the lightest identity, then the
        oldest line."""
        now = self._clock()
        loads: dict[tuple[str, str], float] = {}

        def load(key: tuple[str, str]) -> float:
            if key not in loads:
                loads[key] = self._owes.get(key, 0) + self._requests(key, now)
            return loads[key]

        def rank(entry: Queued) -> Rank:
            if entry.priority < Priority.CHATTER:
                return entry.priority, 0.0, 0.0, entry.order
            host, who = entry.owed
            return entry.priority, load(("host", host)), load(("who", who)), entry.order

        return rank
