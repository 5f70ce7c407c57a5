"""Per-player pacing on IRC, and what askers are told of answers dropped.

Commands (``Pace``): a burst at once, then one every ``1 / rate`` seconds (CTCP requests
count too; bot/irc/supervisor.py sets 5 and one every 2 s); more are dropped, and the
first dropped in ``NOTICE_EVERY`` seconds earns the player one line saying so
(``NOTICE``). Answers (``Busy``): the askers whose answers the send queue dropped
(bot/irc/outbox.py) are named, per target, in one line (issue 32).

Keyed by identity (services account, else ``user@host``), so a nick change does not
refill or forget it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.irc.budget import TokenBucket

__all__ = ["NOTICE_EVERY", "Busy", "Pace"]
NOTICE_EVERY = 60.0
"""Seconds between two slow-down lines to the same player, and between two busy lines
naming the same asker."""


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


class Busy:
    """Per target (a channel, or a nick for a private answer), the askers whose answers
    were dropped, until one line names them all: ``busy with fights: c, d: ask again in
    a minute``. Someone named is not named again for ``NOTICE_EVERY`` seconds (the line
    told them to wait that long; the log still has each drop). At most ``most`` nicks
    wait to be told of a private answer, and ``NAMED`` askers per target (the rest are
    only counted): what a flood of identities costs is bounded."""

    NAMED = 32

    def __init__(self, most: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock, self._most = clock, most
        self._waiting: dict[str, dict[str, str]] = {}
        """Target -> identity -> nick, of the askers not told yet, in order."""
        self._more: dict[str, int] = {}
        """Target -> askers past ``NAMED``, counted only."""
        self._told: dict[str, float] = {}
        """Identity -> when a line last named them."""

    def dropped(self, target: str, identity: str, nick: str) -> bool:
        """An answer to ``nick`` (``identity``) in ``target`` was dropped: whether they
        wait to be told (not when named lately, nor past the bounds)."""
        now = self._clock()
        if now - self._told.get(identity, now - NOTICE_EVERY) < NOTICE_EVERY:
            return False
        names = self._waiting.get(target)
        if names is None:
            private = sum(1 for t in self._waiting if t[:1] not in "#&")
            if target[:1] not in "#&" and private >= self._most:
                return False
            names = self._waiting[target] = {}
        if identity in names or len(names) < self.NAMED:
            names[identity] = nick
        else:
            self._more[target] = self._more.get(target, 0) + 1
        return True

    def words(self, target: str, room: int, fights: bool) -> tuple[str, list[str]]:
        """The line that tells ``target``'s askers, in at most ``room`` bytes (as many
        nicks as fit, then ``, N more``), and the identities it tells; ``fights``: fight
        output is what the bot is busy with."""
        names = self._waiting.get(target, {})
        nicks, total = list(names.values()), len(names) + self._more.get(target, 0)
        head = "busy with fights" if fights else "busy"
        text = f"{head}: {total} answers dropped: ask again in a minute"
        for shown in range(len(nicks), 0, -1):
            more = f", {total - shown} more" if total > shown else ""
            said = f"{head}: {', '.join(nicks[:shown])}{more}: ask again in a minute"
            if len(said.encode()) <= room:
                text = said
                break
        return text, list(names)

    def told(self, target: str, identities: list[str]) -> None:
        """A line told ``target``'s askers ``identities`` (and those only counted)."""
        now = self._clock()
        if len(self._told) > 4 * self._most:  # forget who was told long ago
            self._told = {k: at for k, at in self._told.items() if now - at < NOTICE_EVERY}
        names = self._waiting.get(target, {})
        for identity in identities:
            self._told[identity] = now
            names.pop(identity, None)
        self._more.pop(target, None)
        if not names:
            self._waiting.pop(target, None)
