"""Ledger keys: the secret the ledger's MACs are made with, kept out of the database.

Keys are looked for in this order, and the first place that has any is used alone:

1. the environment variable ``ANCATH_LEDGER_KEY`` (one key, or several one per line);
2. a key file named by the config key ``ledger_key_file`` (or ``--key-file``);
3. with neither, a SQLite database's own ``<db file>.key``, made on the first start
   (a random key, mode 0600) so the embedded default needs no set-up. A PostgreSQL
   database has no default: loading fails with a line naming 1 and 2.

A key is a line of at least 32 characters (``#`` starts a comment line); its bytes are
the line's UTF-8. Each key is the seed of an Ed25519 key (:mod:`storage.signing`):
the first signs new rows, and anyone checks them with its public key alone
(``ancath-bot key public``). Older rows, MACs made with the keys themselves, are
checked with the keys (``key_id``: the first 16 hex digits of the key's SHA-256). Rotate
by putting a new key first and keeping the old one below it until the bot has started
once: the old key signs the row that introduces the new one.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import make_url

from storage.signing import PublicKey, SigningKey, signing_key

__all__ = [
    "CONFIG_KEY",
    "KEY_ENV",
    "MIN_LENGTH",
    "Keyring",
    "KeyringError",
    "default_key_path",
    "key_id",
    "load_keyring",
    "new_key",
    "parse_keys",
]

KEY_ENV = "ANCATH_LEDGER_KEY"
CONFIG_KEY = "ledger_key_file"
MIN_LENGTH = 32
_HEADER = (
    "# ancath-bot ledger key, made on the first start beside the database.\n"
    "# Keep a copy somewhere else (not with the database or its backups): without it the\n"
    "# ledger cannot be verified, and whoever holds it can forge rows. One key per line;\n"
    "# the first signs new rows, all of them verify (see README, Security: the ledger).\n"
)

log = logging.getLogger(__name__)


class KeyringError(Exception):
    """No usable ledger key; the message says where keys are looked for."""


def key_id(secret: bytes) -> str:
    """The key's fingerprint as rows record it: 16 hex digits of its SHA-256."""
    return hashlib.sha256(secret).hexdigest()[:16]


def new_key() -> str:
    """A fresh random key: 64 hex digits (256 bits)."""
    return secrets.token_hex(32)


def parse_keys(text: str, source: str) -> tuple[bytes, ...]:
    """The keys in ``text``, one per line, in order, without repeats."""
    keys: list[bytes] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if len(line) < MIN_LENGTH:
            raise KeyringError(f"{source}: line {number}: a ledger key must be at least "
                               f"{MIN_LENGTH} characters (`ancath-bot key new` makes one)")
        try:
            key = line.encode()
        except UnicodeEncodeError as error:   # bytes of no encoding, through the environment
            raise KeyringError(f"{source}: line {number}: a ledger key is text, and this is "
                               "not UTF-8 (`ancath-bot key new` makes one)") from error
        if key not in keys:
            keys.append(key)
    return tuple(keys)


@dataclass(frozen=True, slots=True)
class Keyring:
    """The keys the ledger is signed and checked with; the first one signs."""

    keys: tuple[bytes, ...] = ()
    source: str = "no keys"
    """Where these keys came from, for messages."""
    looked: str = f"${KEY_ENV} or the config key {CONFIG_KEY}"
    """Where keys are looked for, for messages."""

    @classmethod
    def of(cls, *keys: str | bytes, source: str = "given keys") -> Keyring:
        """A keyring of the given keys (tests, tools), the first one signing."""
        raw = tuple(k.encode() if isinstance(k, str) else k for k in keys)
        return cls(raw, source, source)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(key_id(k) for k in self.keys)

    def get(self, kid: str) -> bytes | None:
        """The key with id ``kid``, if this keyring has it."""
        for key in self.keys:
            if key_id(key) == kid:
                return key
        return None

    def rank(self, kid: str) -> int | None:
        """The key's place: 0 for the signing key, higher for older keys."""
        ids = self.ids
        return ids.index(kid) if kid in ids else None

    @property
    def public_keys(self) -> tuple[PublicKey, ...]:
        """The public key of each key, in the keys' order."""
        return tuple(signing_key(k).public for k in self.keys)

    def signer(self, kid: str | None = None) -> SigningKey:
        """The Ed25519 key that signs new rows (the first key's), or the one whose public
        key has id ``kid``."""
        if kid is None:
            return signing_key(self.signing()[1])
        for key in self.keys:
            if signing_key(key).public.id == kid:
                return signing_key(key)
        raise KeyringError(f"no ledger key here has the public key {kid} "
                           f"({self.describe()})")

    def public(self, kid: str) -> PublicKey | None:
        """The public key with id ``kid``, if one of these keys is its seed."""
        for key in self.keys:
            public = signing_key(key).public
            if public.id == kid:
                return public
        return None

    def signing(self) -> tuple[str, bytes]:
        """The id and bytes of the key that signs new rows."""
        if not self.keys:
            raise KeyringError(f"no ledger key to sign with: set {KEY_ENV} or the config key "
                               f"{CONFIG_KEY}")
        return key_id(self.keys[0]), self.keys[0]

    def describe(self) -> str:
        if not self.keys:
            return f"no keys (looked in {self.looked})"
        ids = ", ".join(f"{public.id} (HMAC {kid})"
                        for public, kid in zip(self.public_keys, self.ids, strict=True))
        return f"key {ids} from {self.source}"


def default_key_path(database: str) -> Path | None:
    """``<db file>.key`` for a SQLite file database; None for anything else."""
    url = make_url(database if "://" in database else f"sqlite:///{database}")
    name = url.database
    if not url.drivername.startswith("sqlite") or not name or name == ":memory:":
        return None
    if name.startswith("file:"):   # a SQLite URI filename
        name = name.removeprefix("file:").split("?", 1)[0]
    return Path(f"{Path(name).expanduser()}.key")


def _is_memory(database: str) -> bool:
    url = make_url(database if "://" in database else f"sqlite:///{database}")
    return url.drivername.startswith("sqlite") and url.database in (None, "", ":memory:")


def _read(path: Path) -> tuple[bytes, ...]:
    try:
        text = path.read_text(encoding="utf-8")
        mode = path.stat().st_mode
    except OSError as error:
        raise KeyringError(f"{path}: cannot read the ledger key file: "
                           f"{error.strerror}") from error
    except UnicodeDecodeError as error:   # random bytes, or a binary file named by mistake
        raise KeyringError(f"{path}: not a ledger key file (not UTF-8 text at byte "
                           f"{error.start}): it holds keys one per line, as `ancath-bot key "
                           "new` prints them; name the right file, or restore it") from error
    keys = parse_keys(text, str(path))
    if not keys:
        raise KeyringError(f"{path}: holds no ledger key (one key per line)")
    if mode & 0o077:
        log.warning("ledger key file %s can be read by others (mode %o): chmod 600 it",
                    path, mode & 0o777)
    return keys


def _create(path: Path) -> None:
    """Write a new random key to ``path`` (0600), atomically and never over another: when
    two processes start at once, the second one reads the first one's key."""
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as error:
        raise KeyringError(
            f"cannot make a ledger key beside the database ({path}): {error.strerror}; "
            f"set {KEY_ENV} or the config key {CONFIG_KEY}") from error
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:   # mkstemp makes it 0600
            out.write(f"{_HEADER}{new_key()}\n")
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:
            return
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)   # the key is on disk before any row signed with it
        finally:
            os.close(directory)
    finally:
        os.unlink(temporary)
    log.warning("made a new ledger key in %s (mode 0600): keep a copy away from the "
                "database and its backups; in production keep the key elsewhere and name "
                "it with %s or the config key %s", path, KEY_ENV, CONFIG_KEY)


def load_keyring(
    database: str,
    key_file: str | Path | None = None,
    *,
    create: bool = True,
    environ: Mapping[str, str] | None = None,
) -> Keyring:
    """The ledger keys for ``database`` (a URL or a SQLite path), looked for in the
    order the module says. ``create`` makes a SQLite database's default key when it has
    none yet (the first start); without it (a read-only check) the keyring may be empty."""
    env = os.environ if environ is None else environ
    default = default_key_path(database)
    looked = f"${KEY_ENV}, the config key {CONFIG_KEY} (or --key-file)"
    looked += f", then {default}" if default else " (a PostgreSQL database has no default)"
    text = env.get(KEY_ENV, "")
    if text.strip():
        return Keyring(parse_keys(text, f"${KEY_ENV}"), f"${KEY_ENV}", looked)
    if key_file is not None:
        path = Path(key_file).expanduser()
        return Keyring(_read(path), str(path), looked)
    if default is not None:
        if not default.exists() and create:
            _create(default)
        if default.exists():
            return Keyring(_read(default), str(default), looked)
        return Keyring((), "no keys", looked)
    if _is_memory(database):
        return Keyring((new_key().encode(),) if create else (), "an in-memory database's "
                       "own random key", looked)
    if create:
        raise KeyringError(f"no ledger key: set {KEY_ENV} or the config key {CONFIG_KEY} "
                           "(a file of keys, one per line) for this database")
    return Keyring((), "no keys", looked)
