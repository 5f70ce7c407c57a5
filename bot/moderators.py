"""Who may rule (R8.2): a services account or an exact, verified host mask from the
configuration, or, on a network without services, a moderator who logged in to the bot
by private message with a password (``/msg Ref !mod login <password>``).

A password is kept only as a slow hash (``hashlib.scrypt``) in the club's settings, set
on the server with ``ancath-bot moderator password <name>``. A login belongs to the nick
and the ``user@host`` it came from: it ends when that nick quits, parts or is kicked
from the last channel the bot shares with it, or speaks from another host.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

__all__ = ["Logins", "hash_password", "password_key", "unverified_masks", "verify_password"]

_N, _R, _P = 2**14, 8, 1
"""scrypt's cost: about 16 MB and tens of milliseconds a try."""
MAX_FAILURES = 5
LOCKOUT_SECONDS = 600.0


def password_key(name: str) -> str:
    """The setting that holds a moderator's password hash."""
    return f"moderator-password:{name.casefold()}"


def hash_password(password: str) -> dict[str, object]:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P)
    return {"scheme": "scrypt", "n": _N, "r": _R, "p": _P, "salt": salt.hex(),
            "hash": digest.hex()}


def verify_password(stored: object, password: str) -> bool:
    """Whether ``password`` matches a stored hash (False for anything malformed)."""
    if not isinstance(stored, dict) or stored.get("scheme") != "scrypt":
        return False
    try:
        digest = hashlib.scrypt(password.encode(), salt=bytes.fromhex(str(stored["salt"])),
                                n=int(stored["n"]), r=int(stored["r"]), p=int(stored["p"]))
        return hmac.compare_digest(digest.hex(), str(stored["hash"]))
    except (KeyError, ValueError, TypeError):
        return False


def unverified_masks(moderators: list[str]) -> list[str]:
    """Configured masks whose ident the server did not verify (``nick!~user@host``):
    anyone on that host can claim them with ``USER user``."""
    return [m for m in moderators if "!" in m and m.split("!", 1)[1].startswith("~")]


@dataclass(frozen=True, slots=True)
class _Login:
    name: str
    host: str
    """The ``user@host`` the login came from."""


class Logins:
    """Moderators logged in by password, by nick; and failed tries, by identity."""

    def __init__(self) -> None:
        self._by_nick: dict[str, _Login] = {}
        self._failures: dict[str, list[float]] = {}

    def login(self, nick: str, host: str, name: str) -> None:
        self._by_nick[nick.casefold()] = _Login(name, host)

    def name(self, nick: str, host: str | None) -> str | None:
        """The moderator logged in on ``nick`` from ``host``; a line from another host
        ends the login."""
        login = self._by_nick.get(nick.casefold())
        if login is None:
            return None
        if login.host != host:
            del self._by_nick[nick.casefold()]
            return None
        return login.name

    def renamed(self, old: str, new: str) -> None:
        login = self._by_nick.pop(old.casefold(), None)
        if login is not None:
            self._by_nick[new.casefold()] = login

    def gone(self, nick: str) -> None:
        self._by_nick.pop(nick.casefold(), None)

    def clear(self) -> None:
        """A new connection: nobody is logged in any more."""
        self._by_nick.clear()

    def locked_out(self, who: str, now: float) -> bool:
        tries = [t for t in self._failures.get(who, []) if now - t < LOCKOUT_SECONDS]
        self._failures[who] = tries
        return len(tries) >= MAX_FAILURES

    def failed(self, who: str, now: float) -> None:
        self._failures.setdefault(who, []).append(now)
