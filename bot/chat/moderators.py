"""Who may rule (R8.2): a services account or an exact, verified host mask from the
configuration or added in chat by one of its moderators (``!mod add``, bot/chat/club.py),
or, on a network without services, a moderator who logged in to the bot by private
message with a password (``/msg Ref !mod login <password>``).

A password is kept only as a slow hash (``hashlib.scrypt``) in the club's settings, set
on the server with ``ancath-bot moderator password <name>``, and sealed with the ledger
key (HMAC-SHA256 over the name and the hash): a database writer without the key cannot
plant a password of their own. A login belongs to the nick
and the ``user@host`` it came from: it ends when that nick quits, parts or is kicked
from the last channel the bot shares with it, or speaks from another host.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from bot.chat.registry import Ctx, Refusal, split_command, sub
from bot.irc.casemap import DEFAULT, Folded
from storage.club import SECRET_SETTING
from storage.keys import Keyring

__all__ = [
    "Logins", "hash_password", "is_secret", "login", "password_key", "unverified_masks",
    "verify_password",
]

_N, _R, _P = 2**14, 8, 1
"""scrypt's cost: about 16 MB and tens of milliseconds a try."""
MAX_FAILURES = 5
LOCKOUT_SECONDS = 600.0


def password_key(name: str) -> str:
    """The setting that holds a moderator's password hash: a secret, so its ledger row
    (``setting-changed``) names the key and never the hash (``storage.club``)."""
    return f"{SECRET_SETTING}{name.casefold()}"


def _seal(key: bytes, name: str, stored: Mapping[str, object]) -> str:
    """The MAC binding a stored hash, with its cost and salt, to the moderator's name."""
    fields = "\0".join(str(stored[k]) for k in ("scheme", "n", "r", "p", "salt", "hash"))
    message = f"moderator-password\0{name.casefold()}\0{fields}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def hash_password(password: str, name: str, keyring: Keyring) -> dict[str, object]:
    """``name``'s password as a salted scrypt hash, sealed with the signing key."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P)
    stored: dict[str, object] = {"scheme": "scrypt", "n": _N, "r": _R, "p": _P,
                                 "salt": salt.hex(), "hash": digest.hex()}
    kid, key = keyring.signing()
    return {**stored, "kid": kid, "mac": _seal(key, name, stored)}


def verify_password(stored: object, password: str, name: str, keyring: Keyring) -> bool:
    """Whether ``password`` is ``name``'s: the stored hash must carry a seal from one of
    ``keyring``'s keys and match (False for anything malformed or unsealed)."""
    if not isinstance(stored, dict) or stored.get("scheme") != "scrypt":
        return False
    try:
        key = keyring.get(str(stored.get("kid")))
        if key is None or not hmac.compare_digest(_seal(key, name, stored),
                                                  str(stored.get("mac"))):
            return False
        digest = hashlib.scrypt(password.encode(), salt=bytes.fromhex(str(stored["salt"])),
                                n=int(stored["n"]), r=int(stored["r"]), p=int(stored["p"]))
        return hmac.compare_digest(digest.hex(), str(stored["hash"]))
    except (KeyError, ValueError, TypeError, OverflowError, MemoryError):
        return False


def unverified_masks(moderators: list[str]) -> list[str]:
    """Configured masks whose ident the server did not verify (``nick!~user@host``):
    anyone on that host can claim them with ``USER user``."""
    return [m for m in moderators if "!" in m and m.split("!", 1)[1].startswith("~")]


def is_secret(text: str, prefix: str) -> bool:
    """Whether ``text`` is a ``!mod login`` (read as the referee reads commands: any
    case, any spacing, the configured ``prefix``): its text is never logged."""
    parsed = split_command(text, prefix)
    return parsed is not None and parsed[0] == "mod" and [
        arg.lower() for arg in parsed[1][:1]] == ["login"]


@dataclass(frozen=True, slots=True)
class _Login:
    name: str
    host: str
    """The ``user@host`` the login came from."""


class Logins:
    """Moderators logged in by password, by nick (compared by the network's casemapping,
    folded again by ``remap``); and failed tries, by identity."""

    def __init__(self, casemapping: str = DEFAULT) -> None:
        self._by_nick: Folded[_Login] = Folded(casemapping)
        self._failures: dict[str, list[float]] = {}

    def remap(self, casemapping: str) -> None:
        self._by_nick.remap(casemapping)

    def login(self, nick: str, host: str, name: str) -> None:
        self._by_nick[nick] = _Login(name, host)

    def name(self, nick: str, host: str | None) -> str | None:
        """The moderator logged in on ``nick`` from ``host``; a line from another host
        ends the login."""
        login = self._by_nick.get(nick)
        if login is None:
            return None
        if login.host != host:
            del self._by_nick[nick]
            return None
        return login.name

    def renamed(self, old: str, new: str) -> None:
        login = self._by_nick.pop(old, None)
        if login is not None:
            self._by_nick[new] = login

    def gone(self, nick: str) -> None:
        self._by_nick.pop(nick, None)

    def clear(self) -> None:
        """A new connection: nobody is logged in any more."""
        self._by_nick.clear()

    def locked_out(self, who: str, now: float) -> bool:
        tries = [t for t in self._failures.get(who, []) if now - t < LOCKOUT_SECONDS]
        self._failures[who] = tries
        return len(tries) >= MAX_FAILURES

    def failed(self, who: str, now: float) -> None:
        self._failures.setdefault(who, []).append(now)


@sub("login", "!mod login <password>", "in private, for a moderator without services (R8.2)",
     reads_only=True)
def login(ctx: Ctx, args: list[str]) -> None:
    """``/msg Ref !mod login <password>``: a moderator without services (R8.2)."""
    referee, sender, password = ctx.referee, ctx.msg.sender, " ".join(args)
    if ctx.msg.channel is not None:
        raise Refusal("log in by private message (/msg the bot), never in a channel; "
                      "that password is seen now: set a new one")
    if not password or sender.host is None:
        raise Refusal("usage: /msg the bot !mod login <password>")
    now = referee.clock.now()
    if referee.logins.locked_out(sender.identity, now):
        raise Refusal("too many wrong passwords; try again in 10 minutes")
    for name in referee.config.moderators:
        if verify_password(referee.store.setting(password_key(name)), password, name,
                           referee.store.keyring):
            referee.logins.login(sender.nick, sender.host, name)
            ctx.reply(f"logged in as moderator {name} until {sender.nick} quits, leaves "
                      "or speaks from another host")
            return
    referee.logins.failed(sender.identity, now)
    raise Refusal("that password is not a moderator's")
