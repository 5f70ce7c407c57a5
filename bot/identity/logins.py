"""Moderators logged in by password (R8.2), by nick, and the wrong passwords counted by
host and for the club, with the waits they earn: what ``!mod login`` keeps between
lines (:mod:`bot.chat.moderators`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from bot.casemap import DEFAULT, Folded

__all__ = ["CLUB_FREE", "FIRST_WAIT", "FORGET_SECONDS", "HOST_FREE", "MOST_WAIT", "Logins"]

HOST_FREE = 5
"""Wrong passwords from one host before its tries wait."""
CLUB_FREE = 10
"""Wrong passwords from anywhere before every password login waits: each try guesses
every password moderator at once, so this is the limit on guessing any one of them."""
FIRST_WAIT = 60.0
"""The first wait, in seconds; each wrong password after it doubles the wait."""
MOST_WAIT = 3600.0
FORGET_SECONDS = 86400.0
"""A host (or the club) with no wrong password for this long starts afresh."""
_KEPT_HOSTS = 4096
"""Hosts with wrong passwords kept before the quiet ones are forgotten early."""


@dataclass(frozen=True, slots=True)
class _Login:
    name: str
    host: str
    """The ``user@host`` the login came from."""


@dataclass(slots=True)
class _Tries:
    """Wrong passwords from one host (or the club's, from anywhere)."""

    failures: int = 0
    until: float = 0.0
    """No try before this (the clock's seconds)."""
    last: float = 0.0

    def failed(self, now: float, free: int) -> None:
        self.failures += 1
        self.last = now
        if self.failures >= free:
            doubled = FIRST_WAIT * 2 ** min(self.failures - free, 16)
            self.until = now + min(MOST_WAIT, doubled)


class Logins:
    """Moderators logged in by password, by nick (compared by the network's casemapping,
    folded again by ``remap``); wrong passwords, by host and the club's together; and the
    seals of passwords seen in a channel, dead at once in this process. Safe to use from
    the transport's thread and the referee's lanes at once."""

    def __init__(self, casemapping: str = DEFAULT) -> None:
        self._by_nick: Folded[_Login] = Folded(casemapping)
        self._hosts: dict[str, _Tries] = {}
        self._club = _Tries()
        self._burnt: set[str] = set()
        self._lock = threading.Lock()
        self.trying = threading.Lock()
        """Held for one password try, from the wait's check to its outcome, so tries
        from the two lanes are counted one after the other."""

    def remap(self, casemapping: str) -> None:
        with self._lock:
            self._by_nick.remap(casemapping)

    def login(self, nick: str, host: str, name: str,
              shares: Callable[[str], bool] | None = None) -> bool:
        """Log ``nick`` in as moderator ``name``; False (no login) when ``shares`` says
        the bot shares no channel with ``nick`` now. Checked and kept under the lock that
        ``gone`` and ``renamed`` take, so a part seen meanwhile is never missed."""
        with self._lock:
            if shares is not None and not shares(nick):
                return False
            self._by_nick[nick] = _Login(name, host)
            return True

    def name(self, nick: str, host: str | None) -> str | None:
        """The moderator logged in on ``nick`` from ``host``; a line from another host
        ends the login."""
        with self._lock:
            login = self._by_nick.get(nick)
            if login is None:
                return None
            if login.host != host:
                del self._by_nick[nick]
                return None
            return login.name

    def renamed(self, old: str, new: str) -> None:
        """A nick change ends the login: the moderator logs in again on the new nick."""
        self.gone(old)

    def gone(self, nick: str) -> None:
        with self._lock:
            self._by_nick.pop(nick, None)

    def clear(self) -> None:
        """A new connection: nobody is logged in any more."""
        with self._lock:
            self._by_nick.clear()

    def wait(self, host: str, now: float) -> tuple[str, float] | None:
        """How long before a password may be tried from ``host`` (:func:`host_of`), and
        whose wait it is (``host`` or ``club``, the longer); None: now."""
        with self._lock:
            waits = [(who, tries.until - now) for who, tries in
                     (("host", self._hosts.get(host)), ("club", self._club))
                     if tries is not None and tries.until > now]
        return max(waits, key=lambda wait: wait[1]) if waits else None

    def failed(self, host: str, now: float) -> None:
        """A wrong password from ``host``: it counts for the host and for the club."""
        with self._lock:
            if len(self._hosts) >= _KEPT_HOSTS:
                self._hosts = {h: t for h, t in self._hosts.items()
                               if now - t.last < FORGET_SECONDS and t.until > now}
            for tries, free in ((self._host(host, now), HOST_FREE), (self._fresh_club(now),
                                                                     CLUB_FREE)):
                tries.failed(now, free)

    def succeeded(self, host: str) -> None:
        """A right password from ``host``: its wrong ones are forgotten (the club's are
        not: they were guesses all the same)."""
        with self._lock:
            self._hosts.pop(host, None)

    def _host(self, host: str, now: float) -> _Tries:
        tries = self._hosts.get(host)
        if tries is None or now - tries.last >= FORGET_SECONDS:
            tries = self._hosts[host] = _Tries()
        return tries

    def _fresh_club(self, now: float) -> _Tries:
        if now - self._club.last >= FORGET_SECONDS:
            self._club = _Tries()
        return self._club

    def burn(self, seal: str) -> None:
        """A password whose seal digest is ``seal`` was seen in a channel: dead now."""
        with self._lock:
            self._burnt.add(seal)

    def burnt(self, seal: str | None) -> bool:
        with self._lock:
            return seal in self._burnt
