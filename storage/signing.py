"""Ed25519 keys for the ledger: the bot signs with a key derived from its ledger secret,
anyone checks with the public key alone.

A ledger secret (:mod:`storage.keys`: the environment, a key file or ``<db>.key``) is
the seed of an Ed25519 key through HKDF-SHA256, so a club keeps one secret as before
and every secret it ever had (the HMAC keys of older rows) has a public key too. A
public key is written ``ed25519:<64 hex digits>``; its id, the first 16 hex digits of
the SHA-256 of its 32 bytes, is what a signed row's ``key_id`` holds. A signed row's
signature is over ``ROW_CONTEXT`` and its 64-hex-digit hash (:mod:`storage.ledger`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import lru_cache

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

__all__ = ["CHECKED_CONTEXT", "PREFIX", "ROW_CONTEXT", "PublicKey", "SigningKey", "signing_key"]

PREFIX = "ed25519:"
ROW_CONTEXT = b"ancath-bot ledger row "
"""What a row's signature covers before its hash: a signature made for a row is
nothing else's."""
CHECKED_CONTEXT = b"ancath-bot ledger checked through "
"""What the bot's own note of how far it checked the ledger covers before the row's
id and hash (:mod:`storage.proof`): never a row's signature."""
_INFO = b"ancath-bot ledger ed25519 signing key v1"
_PUBLIC = re.compile(r"(?:ed25519:)?([0-9a-fA-F]{64})")


@dataclass(frozen=True, slots=True)
class PublicKey:
    """A club's public key: checks the rows its private key signed."""

    raw: bytes
    _key: Ed25519PublicKey = field(compare=False, repr=False)

    @classmethod
    def of(cls, raw: bytes) -> PublicKey:
        return cls(raw, Ed25519PublicKey.from_public_bytes(raw))

    @classmethod
    def parse(cls, text: str) -> PublicKey:
        """``ed25519:<64 hex digits>`` (the prefix may be left out)."""
        match = _PUBLIC.fullmatch(text.strip())
        if match is None:
            raise ValueError(f"{text.strip()[:80]!r} is not a public key: ed25519:<64 hex "
                             "digits>, as `ancath-bot key public` prints it")
        try:
            return cls.of(bytes.fromhex(match[1]))
        except ValueError as error:
            raise ValueError(f"{text.strip()[:80]!r} is not an Ed25519 public key") from error

    @property
    def text(self) -> str:
        return PREFIX + self.raw.hex()

    @property
    def id(self) -> str:
        """16 hex digits of the SHA-256 of the key's bytes: a signed row's ``key_id``."""
        return hashlib.sha256(self.raw).hexdigest()[:16]

    def verifies(self, signature: str, row_hash: str, context: bytes = ROW_CONTEXT) -> bool:
        """Whether ``signature`` (128 hex digits) is this key's over the row hash."""
        try:
            self._key.verify(bytes.fromhex(signature), context + row_hash.encode())
        except (InvalidSignature, ValueError):
            return False
        return True

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class SigningKey:
    """The private half, derived from a ledger secret; never stored."""

    public: PublicKey
    _key: Ed25519PrivateKey = field(repr=False)

    def sign(self, row_hash: str, context: bytes = ROW_CONTEXT) -> str:
        """The signature of a row hash, 128 hex digits."""
        return self._key.sign(context + row_hash.encode()).hex()


@lru_cache(maxsize=64)
def signing_key(secret: bytes) -> SigningKey:
    """The Ed25519 key a ledger secret is the seed of (HKDF-SHA256, no salt)."""
    seed = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(secret)
    private = Ed25519PrivateKey.from_private_bytes(seed)
    raw = private.public_key().public_bytes(serialization.Encoding.Raw,
                                            serialization.PublicFormat.Raw)
    return SigningKey(PublicKey.of(raw), private)
