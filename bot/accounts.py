"""Who is logged in as whom: a nick-to-account map kept from IRCv3 ``account-tag``,
``extended-join``, ``account-notify`` and WHOX replies (shared/IRC-NOTES.md).

A nick alone never makes anyone a moderator (R8.2); this map only answers "which
services account is this nick using", and forgets a nick that quits or changes.
"""

from __future__ import annotations

__all__ = ["Accounts"]


class Accounts:
    def __init__(self) -> None:
        self._by_nick: dict[str, str] = {}

    @staticmethod
    def _key(nick: str) -> str:
        return nick.casefold()

    def set(self, nick: str, account: str | None) -> None:
        """Record a nick's account; ``None``, ``*`` or ``0`` means logged out."""
        if account in (None, "", "*", "0"):
            self._by_nick.pop(self._key(nick), None)
        else:
            assert account is not None
            self._by_nick[self._key(nick)] = account

    def get(self, nick: str) -> str | None:
        return self._by_nick.get(self._key(nick))

    def renamed(self, old: str, new: str) -> None:
        account = self._by_nick.pop(self._key(old), None)
        if account is not None:
            self._by_nick[self._key(new)] = account

    def forget(self, nick: str) -> None:
        self._by_nick.pop(self._key(nick), None)

    def clear(self) -> None:
        self._by_nick.clear()
