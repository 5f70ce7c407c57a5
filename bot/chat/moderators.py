"""Who may rule (R8.2): a services account or an exact, verified host mask from the
configuration or added in chat by one of its moderators (``!mod add``, bot/chat/club.py;
a mask counts only where the operator says the network verifies idents,
``irc.verified_idents``), or, on a network without services, a moderator who logged in
to the bot by private message with a password (``/msg Ref !mod login <password>``).

A password is kept only as a slow hash (``hashlib.scrypt``) in the club's settings, set
on the server with ``ancath-bot moderator password <name>``, and sealed with the ledger
key (HMAC-SHA256 over the name and the hash): a database writer without the key cannot
plant a password of their own. The ``setting-changed`` ledger row that set it holds a
digest of the seal (``storage.club.seal_digest``), and only the hash whose seal the
newest such row names counts, so an older sealed hash put back in the settings is dead.
A password said in a channel is dead at once: removed (a ``setting-changed`` row, reason
``seen in a channel``), and refused in this process from the moment it is seen.

A login belongs to the nick and the ``user@host`` it came from, and only to a nick that
shares a channel with the bot (the bot sees the quits and nick changes of those only):
it ends when that nick quits, changes nick, parts or is kicked from the last channel
the bot shares with it, or speaks from another host. Wrong passwords are limited by the
host they come from (whatever the ident, which a client picks) and, since every try
guesses every password moderator at once, by the club: past a few, each more doubles
the wait (:class:`bot.identity.logins.Logins`).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import math
import secrets
from collections.abc import Mapping

from bot.commands.registry import Ctx, split_command, sub
from bot.masks import is_mask
from bot.refusals import Refusal, WritesAfterAll
from storage.club import SECRET_SETTING, seal_digest
from storage.keys import Keyring

__all__ = [
    "hash_password", "host_of", "is_secret", "login", "password_key", "verify_password",
    "wait_words",
]

log = logging.getLogger("ancath.moderators")

_N, _R, _P = 2**14, 8, 1
"""scrypt's cost: about 16 MB and tens of milliseconds a try."""
SEEN = "seen in a channel"
"""The reason of the ledger row that removes a password said in a channel."""


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


def verify_password(stored: object, password: str, name: str, keyring: Keyring, *,
                    newest: str | None) -> bool:
    """Whether ``password`` is ``name``'s: the stored hash must carry a seal from one of
    ``keyring``'s keys, be the one whose seal digest ``newest`` names (the newest
    ``setting-changed`` row of the key that holds: ``Store.newest_seal``), and match
    (False for anything malformed, unsealed or older)."""
    if not isinstance(stored, dict) or stored.get("scheme") != "scrypt":
        return False
    try:
        key = keyring.get(str(stored.get("kid")))
        if key is None or not hmac.compare_digest(_seal(key, name, stored),
                                                  str(stored.get("mac"))):
            return False
        digest = hashlib.scrypt(password.encode(), salt=bytes.fromhex(str(stored["salt"])),
                                n=int(stored["n"]), r=int(stored["r"]), p=int(stored["p"]))
        if not hmac.compare_digest(digest.hex(), str(stored["hash"])):
            return False
    except (KeyError, ValueError, TypeError, OverflowError, MemoryError):
        return False
    if newest is None or not hmac.compare_digest(seal_digest(stored) or "", newest):
        log.warning("a login gave moderator %s's password, but the stored hash is not the "
                    "one the ledger's newest password row for %s names (put back from an "
                    "older one, or set before rows named it): refused; set it again with "
                    "ancath-bot moderator password %s", name, name, name)
        return False
    return True


def is_secret(text: str, prefix: str) -> bool:
    """Whether ``text`` is a ``!mod login`` (read as the referee reads commands: any
    case, any spacing, the configured ``prefix``): its text is never logged."""
    parsed = split_command(text, prefix)
    return parsed is not None and parsed[0] == "mod" and [
        arg.lower() for arg in parsed[1][:1]] == ["login"]


def host_of(user_host: str) -> str:
    """What wrong passwords are counted by: the host after the ``@``, whatever the ident
    (a client picks its ident), in lower case; an IPv6 address by its /64 (one machine
    commonly has the whole /64)."""
    host = user_host.rsplit("@", 1)[-1].lower()
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(address) >> 64 << 64, 64)))
    return host


def wait_words(seconds: float) -> str:
    """``45 s``, ``2 min``: a wait, rounded up."""
    if seconds < 60:
        return f"{max(1, math.ceil(seconds))} s"
    return f"{math.ceil(seconds / 60)} min"


def _matching(ctx: Ctx, password: str, *, burnt_too: bool = False) -> tuple[str, str] | None:
    """The config-file moderator ``password`` is the password of, with its seal digest;
    a password seen in a channel only when ``burnt_too``."""
    services = ctx.services
    store, logins = services.store, services.identity.logins
    for name in services.config.moderators:
        key = password_key(name)
        stored = None if is_mask(name) else store.setting(key)
        if stored is None:
            continue
        seal = seal_digest(stored)
        if seal is None or (logins.burnt(seal) and not burnt_too):
            continue
        if verify_password(stored, password, name, store.keyring,
                           newest=store.newest_seal(key)):
            return name, seal
    return None


def _waited(ctx: Ctx, host: str, now: float, in_channel: bool) -> None:
    """Refuse a try while ``host`` (or the club) must wait, saying how long."""
    wait = ctx.services.identity.logins.wait(host, now)
    if wait is None:
        return
    who, seconds = wait
    if in_channel:
        raise Refusal("log in by private message (/msg the bot), never in a channel; if "
                      "that was a moderator's password, set a new one (ancath-bot "
                      "moderator password <name>)")
    if who == "host":
        raise Refusal(f"too many wrong passwords from your host: try again in "
                      f"{wait_words(seconds)}")
    raise Refusal(f"too many wrong moderator passwords lately: password logins wait "
                  f"{wait_words(seconds)} (moderators by services account are not held up)")


def _seen_in_channel(ctx: Ctx, password: str) -> None:
    """``!mod login <password>`` said in a channel: a moderator's password is dead at
    once. Checked where ``/msg`` logins are (the talk lane), so no login after this line
    takes it: its seal is burnt there, and the line runs again as a writer
    (``WritesAfterAll``) to remove the password, one ``setting-changed`` row."""
    services, sender = ctx.services, ctx.msg.sender
    if not password:
        raise Refusal("log in by private message (/msg the bot !mod login <password>), "
                      "never in a channel")
    host = host_of(sender.host or sender.identity)
    logins = services.identity.logins
    with logins.trying:
        now = services.clock.now()
        _waited(ctx, host, now, in_channel=True)
        found = _matching(ctx, password, burnt_too=True)
        if found is None:
            logins.failed(host, now)
            raise Refusal("log in by private message (/msg the bot), never in a channel")
        name, seal = found
        logins.burn(seal)
        if not ctx.writes:
            raise WritesAfterAll("!mod login ...")   # never the password
        services.settings.set_setting(password_key(name), None, "bot", SEEN)
    ctx.reply(f"never log in in a channel: that was {name}'s password, so it is dead now; "
              f"set a new one (ancath-bot moderator password {name}), then /msg me")


@sub("login", "!mod login <password>", "in private, for a moderator without services (R8.2)",
     reads_only=True)
def login(ctx: Ctx, args: list[str]) -> None:
    """``/msg Ref !mod login <password>``: a moderator without services (R8.2)."""
    services, sender, password = ctx.services, ctx.msg.sender, " ".join(args)
    if ctx.msg.channel is not None:
        _seen_in_channel(ctx, password)
        return
    if not password or sender.host is None:
        raise Refusal("usage: /msg the bot !mod login <password>")
    shares, logins = services.identity.shares_channel, services.identity.logins
    alone = Refusal("join a channel the bot is in first, then /msg me: I see quits and "
                    "nick changes only there")
    if shares is not None and not shares(sender.nick):
        raise alone
    host = host_of(sender.host)
    with logins.trying:
        now = services.clock.now()
        _waited(ctx, host, now, in_channel=False)
        found = _matching(ctx, password)
        if found is None:
            logins.failed(host, now)
            raise Refusal("that password is not a moderator's")
        logins.succeeded(host)
        name = found[0]
        if not logins.login(sender.nick, sender.host, name, shares):
            raise alone
    ctx.reply(f"logged in as moderator {name} until {sender.nick} quits, changes nick, "
              "leaves my channels or speaks from another host")
