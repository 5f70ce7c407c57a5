"""Who is logged in as whom, and which channels the bot shares with whom.

``Accounts`` is a nick-to-account map kept from IRCv3 ``account-tag``, ``extended-join``,
``account-notify`` and WHOX replies (shared/IRC-NOTES.md). A nick alone never makes
anyone a moderator (R8.2); this map only answers "which services account is this nick
using". ``Members`` says when the bot stops seeing a nick: the bot never sees the QUIT
of someone who left every channel it is in, so what it knew of them is forgotten when
they leave the last one.
"""

from __future__ import annotations

__all__ = ["Accounts", "Members"]


def _key(name: str) -> str:
    return name.casefold()


class Accounts:
    def __init__(self) -> None:
        self._by_nick: dict[str, str] = {}

    def set(self, nick: str, account: str | None) -> None:
        """Record a nick's account; ``None``, ``*`` or ``0`` means logged out."""
        if account in (None, "", "*", "0"):
            self._by_nick.pop(_key(nick), None)
        else:
            assert account is not None
            self._by_nick[_key(nick)] = account

    def get(self, nick: str) -> str | None:
        return self._by_nick.get(_key(nick))

    def renamed(self, old: str, new: str) -> None:
        account = self._by_nick.pop(_key(old), None)
        if account is not None:
            self._by_nick[_key(new)] = account

    def forget(self, nick: str) -> None:
        self._by_nick.pop(_key(nick), None)

    def clear(self) -> None:
        self._by_nick.clear()


class Members:
    """Which of the bot's channels each nick is in, from JOIN, NAMES and WHO replies."""

    def __init__(self) -> None:
        self._channels: dict[str, set[str]] = {}
        """case-folded nick -> case-folded channels."""

    def joined(self, nick: str, channel: str) -> None:
        self._channels.setdefault(_key(nick), set()).add(_key(channel))

    def left(self, nick: str, channel: str) -> bool:
        """``nick`` left ``channel``; True when it shares no channel with the bot now."""
        channels = self._channels.get(_key(nick), set())
        channels.discard(_key(channel))
        if channels:
            return False
        self._channels.pop(_key(nick), None)
        return True

    def channel_gone(self, channel: str) -> list[str]:
        """The bot left ``channel``: the (case-folded) nicks it shares nothing with now."""
        return [nick for nick in list(self._channels) if self.left(nick, channel)]

    def renamed(self, old: str, new: str) -> None:
        channels = self._channels.pop(_key(old), None)
        if channels is not None:
            self._channels[_key(new)] = channels

    def quit(self, nick: str) -> None:
        self._channels.pop(_key(nick), None)

    def clear(self) -> None:
        self._channels.clear()
