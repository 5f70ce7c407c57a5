"""Who is logged in as whom, and which channels the bot shares with whom.

``Accounts`` is a nick-to-account map kept from IRCv3 ``account-tag``, ``extended-join``,
``account-notify`` and WHOX replies (docs/irc-notes.md#identity). A nick alone never makes
anyone a moderator (R8.2); this map only answers "which services account is this nick
using". ``Members`` says when the bot stops seeing a nick: the bot never sees the QUIT
of someone who left every channel it is in, so what it knew of them is forgotten when
they leave the last one. Both compare nicks and channels by the network's casemapping
(bot/casemap.py) and fold again when ``remap`` names another.
"""

from __future__ import annotations

from bot.casemap import DEFAULT, Folded

__all__ = ["Accounts", "Members", "logged_in"]


def logged_in(account: str | None) -> str | None:
    """A services account as a server gives it (a tag, a JOIN, a WHOX reply), or None
    for none: empty, ``*`` or ``0``, or one with a ``:`` (no services allow it, and the
    club writes another network's accounts ``<network>:<account>``: one could pass for
    such a name)."""
    return None if account in (None, "", "*", "0") or ":" in str(account) else account


class Accounts:
    def __init__(self, casemapping: str = DEFAULT) -> None:
        self._by_nick: Folded[str] = Folded(casemapping)

    def remap(self, casemapping: str) -> None:
        self._by_nick.remap(casemapping)

    def set(self, nick: str, account: str | None) -> None:
        """Record a nick's account (:func:`logged_in`'s: none means logged out)."""
        account = logged_in(account)
        if account is None:
            self._by_nick.pop(nick, None)
        else:
            self._by_nick[nick] = account

    def get(self, nick: str) -> str | None:
        return self._by_nick.get(nick)

    def renamed(self, old: str, new: str) -> None:
        account = self._by_nick.pop(old, None)
        if account is not None:
            self._by_nick[new] = account

    def forget(self, nick: str) -> None:
        self._by_nick.pop(nick, None)

    def clear(self) -> None:
        self._by_nick.clear()


class Members:
    """Which of the bot's channels each nick is in, from JOIN, NAMES and WHO replies."""

    def __init__(self, casemapping: str = DEFAULT) -> None:
        self._channels: Folded[Folded[None]] = Folded(casemapping)
        """nick -> its channels."""

    def remap(self, casemapping: str) -> None:
        self._channels.remap(casemapping)
        for channels in self._channels.values():
            channels.remap(casemapping)

    def joined(self, nick: str, channel: str) -> None:
        self._channels.setdefault(nick, Folded(self._channels.casemapping))[channel] = None

    def left(self, nick: str, channel: str) -> bool:
        """``nick`` left ``channel``; True when it shares no channel with the bot now."""
        channels = self._channels.get(nick)
        if channels is not None:
            channels.pop(channel, None)
            if channels:
                return False
        self._channels.pop(nick, None)
        return True

    def channel_gone(self, channel: str) -> list[str]:
        """The bot left ``channel``: the nicks it shares nothing with now."""
        return [nick for nick in self._channels if self.left(nick, channel)]

    def renamed(self, old: str, new: str) -> None:
        channels = self._channels.pop(old, None)
        if channels is not None:
            self._channels[new] = channels

    def quit(self, nick: str) -> None:
        self._channels.pop(nick, None)

    def shares(self, nick: str) -> bool:
        """Whether ``nick`` is in a channel with the bot now (safe from another thread:
        one look)."""
        return bool(self._channels.get(nick))

    def clear(self) -> None:
        self._channels.clear()
