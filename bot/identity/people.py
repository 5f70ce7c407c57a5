"""Who is behind which nick, for the words the bot says: "Olaf (olaf) to act".

Transports report what they see (a message, a JOIN, a WHOX reply, a nick change, a
QUIT or PART); the referee uses this book only to name people in the channel and to
find "the warriors of nick X". It never decides a permission: that is the identity on
the message itself (R8.2). A ``user@host`` identity is never shown: a person whose nick
the bot has not seen is named by account, or not at all. Nicks compare by the network's
casemapping (bot/casemap.py), folded again when ``remap`` names another.
"""

from __future__ import annotations

from bot.casemap import DEFAULT, Folded, fold

__all__ = ["People", "is_host_identity"]


def is_host_identity(identity: str) -> bool:
    """A ``user@host`` identity (a network without services), as opposed to an account."""
    return "@" in identity


class People:
    def __init__(self, casemapping: str = DEFAULT) -> None:
        self._nick: dict[str, str] = {}
        """identity -> the nick last seen using it."""
        self._identity: Folded[str] = Folded(casemapping)
        """nick -> identity."""

    def remap(self, casemapping: str) -> None:
        self._identity.remap(casemapping)

    def _same(self, one: str, other: str) -> bool:
        mapping = self._identity.casemapping
        return fold(one, mapping) == fold(other, mapping)

    def saw(self, nick: str, identity: str) -> None:
        """``nick`` is in use by ``identity`` now."""
        old = self._identity.get(nick)
        if old is not None and old != identity and self._same(self._nick.get(old, ""), nick):
            del self._nick[old]
        self._identity[nick] = identity
        self._nick[identity] = nick

    def renamed(self, old: str, new: str) -> None:
        identity = self._identity.pop(old, None)
        if identity is not None:
            self.saw(new, identity)

    def gone(self, nick: str) -> None:
        """The nick quit, parted or was kicked: it no longer names anyone here."""
        identity = self._identity.pop(nick, None)
        if identity is not None and self._same(self._nick.get(identity, ""), nick):
            del self._nick[identity]

    def clear(self) -> None:
        self._nick.clear()
        self._identity.clear()

    def nick(self, identity: str) -> str | None:
        return self._nick.get(identity)

    def identity(self, nick: str) -> str | None:
        return self._identity.get(nick)

    def name(self, identity: str) -> str | None:
        """How to name ``identity`` in a channel: its nick, else its account; None for a
        ``user@host`` whose nick is unknown (never shown)."""
        nick = self.nick(identity)
        if nick is not None:
            return nick
        return None if is_host_identity(identity) else identity

    def label(self, warrior: str, identity: str) -> str:
        """``Olaf (olaf)``: a warrior with the person who plays it, when they can be named."""
        name = self.name(identity)
        return f"{warrior} ({name})" if name and name != warrior else warrior
