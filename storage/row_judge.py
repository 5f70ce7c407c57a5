"""Judging one ledger row on its own, as the leadership pages show it
(:meth:`storage.proved.ProvedView.unheld_rows`), by the rules of the chain a walk found
(``storage.chain.Walker``): from the first signed row on, a row holds when it is signed
by the key in force at it (the first signed row's, or the one the last ``key-rotated``
row before it brought in); a legacy or HMAC row holds only before the first signed row,
and only as the seal of that row covers it (the seal's digest after each such row is
kept, so a row edited since the walk no longer gives it); a row signed with a key not
known here is not proved, never held. A signed row found to hold is remembered
(:attr:`RowWalker.verified`) by its key and every column as read: a row edited since
misses it and is checked again; the link to the row before is checked every time."""

from __future__ import annotations

import hashlib
import hmac
from bisect import bisect_right
from collections import OrderedDict
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from storage.chain import CONTENT, GENESIS, Walker, row_hash, row_mac, seal_step, signed_hash
from storage.keys import Keyring
from storage.signing import PublicKey

__all__ = ["VERIFIED", "Judge", "RowWalker"]

VERIFIED = 200_000
"""Rows whose signature held a :class:`RowWalker` remembers at most (the least recently
used forgotten first): about 150 bytes each."""


@dataclass(eq=False)
class RowWalker(Walker):
    """A :class:`Walker` that keeps what judging one row on its own takes
    (:meth:`ProvedView.unheld_rows`): the seal after each row before the first signed
    row, the keys in force and from which row, and what it found of each row that
    failed."""

    keys_from: list[tuple[int, PublicKey]] = field(default_factory=list)
    """Each key in force with the first row it signs, oldest first: the first signed
    row's key from that row, a ``key-rotated`` row's from the row after it."""
    seals: bytearray = field(default_factory=bytearray)
    """The seal digest after each of rows ``1..`` before the first signed row, 32 bytes
    each (:meth:`seal_at`)."""
    why: dict[int, str] = field(default_factory=dict)
    """What the walk found of each row that failed (the first thing)."""
    verified: OrderedDict[bytes, None] = field(default_factory=OrderedDict)
    """Rows whose hash and signature held (:meth:`held`), by a digest of the key and
    the row as read, least recently used first."""

    def __post_init__(self) -> None:
        if self.in_force is not None and not self.keys_from:   # Walker.after
            self.keys_from.append((self.signed_from or self.last_id + 1, self.in_force))

    def step(self, row: Any) -> None:
        said, seen = len(self.problems), len(self.keys_seen)
        super().step(row)
        for problem in self.problems[said:said + 1]:
            self.why.setdefault(row.id, problem.removeprefix(f"ledger row {row.id}: "))
        if self.signed_from is None:
            if len(self.seals) == 32 * (row.id - 1):   # rows 1.. in order only
                self.seals += bytes.fromhex(self.seal)
            return
        for place, key in enumerate(self.keys_seen[seen:]):
            first = row.id if place == 0 and row.id == self.signed_from else row.id + 1
            self.keys_from.append((first, key))

    def held(self, key: PublicKey, row: Any) -> tuple[bytes, bool]:
        """Whether the signature of ``row`` as read now was found to hold under ``key``
        (remembered: :meth:`holds`), with what it is remembered by: a digest of the
        key and every column read, which the signature covers and more."""
        seen = hashlib.blake2b(key.raw + repr(_read(row)).encode(), digest_size=16).digest()
        if seen in self.verified:
            self.verified.move_to_end(seen)
            return seen, True
        return seen, False

    def holds(self, seen: bytes) -> None:
        """Remember a signature that held (:meth:`held`), forgetting the least recently
        used beyond ``VERIFIED``."""
        self.verified[seen] = None
        if len(self.verified) > VERIFIED:
            self.verified.popitem(last=False)

    def key_at(self, row_id: int) -> PublicKey | None:
        """The key in force at row ``row_id``: the one that must have signed it; None
        before the first signed row, or when the first signed row's key is not known
        here."""
        place = bisect_right(self.keys_from, row_id, key=lambda start: start[0])
        return self.keys_from[place - 1][1] if place else None

    def seal_at(self, row_id: int) -> tuple[str, str] | None:
        """The seal digest before row ``row_id`` and after it, as walked; None: the walk
        did not seal it (a signed row, or not walked in order from row 1)."""
        end = 32 * row_id
        if row_id < 1 or end > len(self.seals):
            return None
        before = self.seals[end - 64:end - 32].hex() if row_id > 1 else GENESIS
        return before, self.seals[end - 32:end].hex()


_FIELDS = (*CONTENT, "prev_hash", "hash", "key_id", "signature")
"""A ledger row's every column (``storage.ledger.ROW_FIELDS``)."""
_fields = attrgetter(*_FIELDS)


def _read(row: Any) -> tuple[Any, ...]:
    """A row's every column as read (a row of ``storage.ledger.ROWS`` as it is)."""
    return tuple(row) if getattr(row, "_fields", None) == _FIELDS else _fields(row)


_UNREADABLE = "its hash, key id or signature is not what a ledger row holds (edited)"


def _texts(row: Any) -> bool:
    return isinstance(row.prev_hash, str) and isinstance(row.hash, str) \
        and isinstance(row.key_id, str | None) and isinstance(row.signature, str | None)


class Judge:
    """One row at a time, by the rules of the chain ``walker`` walked (module
    docstring): None when it holds, else whether it does not hold (True: edited,
    forged) or is not proved here (False), and why."""

    def __init__(self, walker: Walker, keyring: Keyring) -> None:
        self.walker = walker
        self.keyring = keyring
        self.kept = walker if isinstance(walker, RowWalker) else None
        trusted = {key.id for key in (*walker.trusted, *keyring.public_keys)}
        self.untrusted: tuple[bool, str] | None = None
        if not trusted:
            self.untrusted = (False, "no key of the club is given here to prove it by")
        elif walker.signers and not trusted & walker.signers:
            self.untrusted = (True, f"signed by key {', '.join(sorted(walker.signers))}, "
                              "none of them the club's key given here")

    def __call__(self, row: Any) -> tuple[bool, str] | None:
        walker, kept = self.walker, self.kept
        if kept is None or not walker.walked:
            return False, "the ledger is not walked yet"
        if row.id in kept.why:
            return True, kept.why[row.id]
        if not _texts(row):
            return True, _UNREADABLE
        try:
            if row.id > walker.last_id:
                signed_hash(row.prev_hash, row)   # its content can be read, at least
                return False, "written after the ledger was walked: not proved yet"
            if walker.signed_from is not None and row.id >= walker.signed_from:
                return self._signed(row, kept)
            return self._sealed(row, kept.seal_at(row.id))
        except (TypeError, ValueError):   # no JSON holds it: written outside the bot
            return True, "its content is not what a ledger row holds (edited)"

    def _signed(self, row: Any, kept: RowWalker) -> tuple[bool, str] | None:
        """A row from the first signed row on."""
        key = kept.key_at(row.id)
        if row.signature is None:
            kind = "a legacy row" if row.key_id is None else "an HMAC row"
            return True, (f"not signed, after signed rows ({kind}: written without the "
                          "key)")
        if key is None:
            return False, f"signed with key {row.key_id}, which is not known here"
        if row.key_id != key.id:
            return True, (f"signed by key {row.key_id}, but key {key.id} is in force (a "
                          "key changes only by a key-rotated row)")
        seen, held = kept.held(key, row)
        if held:   # this very row was proved before: the same verdict
            return self.untrusted
        if signed_hash(row.prev_hash, row) != row.hash:
            return True, "content does not match its hash (edited)"
        if not key.verifies(row.signature, row.hash):
            return True, (f"its signature does not hold under key {key.id} (forged, or "
                          "edited and hashed again)")
        kept.holds(seen)
        return self.untrusted

    def _sealed(self, row: Any, seal: tuple[str, str] | None) -> tuple[bool, str] | None:
        """A row before the first signed row (or of a chain not signed yet)."""
        signed_from = self.walker.signed_from
        key = self.keyring.get(row.key_id) if row.key_id is not None else None
        if row.key_id is None and row.signature is None \
                and row_hash(row.prev_hash, row) != row.hash:
            return True, "content does not match its hash (edited)"
        if key is not None and row.signature is None and not hmac.compare_digest(
                row_mac(key, row.prev_hash, row), row.hash):
            return True, "content does not match its MAC (edited, or written without the key)"
        if seal is None:
            return False, "the walk did not seal it"
        if seal_step(seal[0], row) != seal[1]:
            return True, ("changed since the ledger was walked (the seal of the rows before "
                          "the first signed row no longer covers it)")
        if signed_from is not None:
            if not self.walker.sealed:
                return True, f"the first signed row, #{signed_from}, does not seal it"
            return self.untrusted
        if row.key_id is None:
            return False, ("a legacy row (plain SHA-256): no signed row seals it yet, so "
                           "anyone who can write the database can rewrite it")
        if key is None:
            return False, f"keyed with key {row.key_id}, which is not known here"
        return None
