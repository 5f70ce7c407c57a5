"""The ledger chain row by row: how each kind of row is hashed, and ``Walker``, which
proves a chain one row at a time from the rows alone (a database's, or an export's).

Three kinds of row, in this order on any chain:

- legacy rows (``key_id`` None): a plain SHA-256 over the previous hash and the row's
  canonical content, from before keys;
- HMAC rows (``key_id`` set, no ``signature``): HMAC-SHA256 under a ledger secret over
  the same, key id included; only a holder of the secret can check one;
- signed rows (``signature`` set): a plain SHA-256 over the previous hash and the
  content, key id included, and an Ed25519 signature over that hash by the key
  ``key_id`` names (:mod:`storage.signing`); anyone with the public key checks one.

The first signed row is row 1 of a new club, or a ``ledger-keyed`` row that seals every
row before it: its detail holds its public key, how many rows it seals and their
``seal`` digest (a SHA-256 chain over each row's whole content, hash included), so a
holder of the public key alone proves the older rows too. From there every row is
signed, by the key in force: a ``key-rotated`` row, signed by the key it replaces,
introduces the next. A chain proves nothing cut off its end: anchors do (R7.3).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from storage.keys import Keyring
from storage.models import Entry
from storage.signing import PublicKey

__all__ = [
    "CONTENT",
    "GENESIS",
    "UNSEALED",
    "Conclusion",
    "Walker",
    "canonical",
    "ranges",
    "row_hash",
    "row_mac",
    "seal_step",
    "signed_hash",
]

GENESIS = "0" * 64
UNSEALED = "that no signed row seals"
"""What the walk's problem says of legacy rows no signed row seals, with a key given."""
CONTENT = (
    "id", "warrior_id", "entry", "bp", "spent", "skill", "skill_value", "status",
    "captor_id", "detail", "actor", "moderator", "fight_id", "command_seq", "reason",
    "created_at",
)
"""The fields a row's hash covers (with ``key_id`` on keyed and signed rows)."""


class Row(Protocol):
    """What the chain reads of a ledger row: an ORM row, a Core row, an export's."""

    @property
    def id(self) -> int: ...
    @property
    def entry(self) -> str: ...
    @property
    def detail(self) -> dict[str, Any] | None: ...
    @property
    def prev_hash(self) -> str: ...
    @property
    def hash(self) -> str: ...
    @property
    def key_id(self) -> str | None: ...
    @property
    def signature(self) -> str | None: ...


def canonical(value: Any) -> str:
    """The JSON text rows and digests are computed over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _content(row: Any, keyed: bool) -> str:
    content = {name: getattr(row, name) for name in CONTENT}
    if keyed:
        content["key_id"] = row.key_id
    return canonical(content)


def row_hash(prev_hash: str, row: Any) -> str:
    """A legacy row's hash: SHA-256 over the previous hash and its canonical content."""
    return hashlib.sha256((prev_hash + _content(row, False)).encode()).hexdigest()


def row_mac(key: bytes, prev_hash: str, row: Any) -> str:
    """An HMAC row's MAC: HMAC-SHA256 under ``key`` over the previous row's MAC and the
    row's canonical content, key id included."""
    message = (prev_hash + _content(row, True)).encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def signed_hash(prev_hash: str, row: Any) -> str:
    """A signed row's hash: SHA-256 over the previous hash and its canonical content,
    key id included (its signature is over this)."""
    return hashlib.sha256((prev_hash + _content(row, True)).encode()).hexdigest()


def seal_step(digest: str, row: Any) -> str:
    """The seal digest with one more row: SHA-256 over the digest so far and the row's
    whole content, its links, key id and hash included."""
    whole = {name: getattr(row, name) for name in CONTENT}
    whole.update(prev_hash=row.prev_hash, hash=row.hash, key_id=row.key_id)
    return hashlib.sha256((digest + canonical(whole)).encode()).hexdigest()


def ranges(ids: Sequence[int]) -> str:
    """``1..4, 7, 9..12``."""
    parts: list[str] = []
    start = previous = None
    for i in [*sorted(ids), None]:
        if start is not None and previous is not None and (i is None or i != previous + 1):
            parts.append(str(start) if start == previous else f"{start}..{previous}")
            start = None
        if start is None:
            start = i
        previous = i
    return ", ".join(parts)


@dataclass
class Walker:
    """Proves a chain one row at a time (``step``), then ``finish``.

    ``keyring``: secrets, for HMAC rows (and their public keys, trusted); ``trusted``:
    public keys given from outside (``--public-key``); ``known``: public keys that may
    have signed the first signed row (an export's header), trusted only through the
    chain. ``broken`` is the newest row id where the chain is broken or unproved."""

    keyring: Keyring = field(default_factory=Keyring)
    trusted: Sequence[PublicKey] = ()
    known: Sequence[PublicKey] = ()
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    missing: dict[str, list[int]] = field(default_factory=dict)
    """Key id to the ids of the rows it signed, for keys not available here."""
    broken: int | None = None
    first_broken: int | None = None
    """The oldest row from which the chain is broken or unproved: nothing from it on is
    proved (``broken`` is the newest such row, for anchors)."""
    previous: str = GENESIS
    last_id: int = 0
    walked: bool = False
    keyed: bool = False
    """Whether any row is keyed or signed."""
    signed_from: int | None = None
    """The first signed row's id."""
    in_force: PublicKey | None = None
    keys_seen: list[PublicKey] = field(default_factory=list)
    """Every key in force, in order (a rotation adds one)."""
    signers: set[str] = field(default_factory=set)
    """The ids of the keys that signed a row that holds: a trusted key must be one, so a
    chain whose last row only introduces the club's key proves nothing."""
    seal: str = GENESIS
    """The seal digest of the rows before the first signed row."""
    sealed: bool = False
    """Whether a ``ledger-keyed`` row's seal holds, proving the rows before it."""
    _seal_matches: bool = False
    _legacy: list[int] = field(default_factory=list)
    _unproved: dict[str, list[int]] = field(default_factory=dict)
    _newest_rank: int | None = None
    _newest_key: str = ""

    @classmethod
    def after(cls, keyring: Keyring, last_id: int, last_hash: str, key: PublicKey) -> Walker:
        """A walker that takes rows ``1..last_id`` as proved (they end in ``last_hash``,
        signed by ``key``, the key in force) and goes on from there."""
        return cls(keyring, previous=last_hash, last_id=last_id, walked=True, keyed=True,
                   signed_from=last_id, in_force=key, keys_seen=[key], signers={key.id},
                   sealed=True)

    def _break(self, row: Row, problem: str | None = None) -> None:
        if problem is not None:
            self.problems.append(problem)
        self.broken = row.id
        if self.first_broken is None:
            self.first_broken = row.id

    def step(self, row: Row) -> None:
        if row.id != self.last_id + 1:
            self._break(row, f"ledger rows {self.last_id + 1}..{row.id - 1} are missing")
        if row.prev_hash != self.previous:
            self._break(row, f"ledger row {row.id}: chain broken before it (row removed or "
                        "changed)")
        if row.signature is not None:
            self._signed(row)
        elif self.signed_from is not None:
            self._break(row, f"ledger row {row.id}: not signed, after signed rows (written "
                        "without the key)")
        elif row.key_id is None:
            self._legacy_row(row)
        else:
            self._hmac(row)
        if self.signed_from is None:
            self.seal = seal_step(self.seal, row)
        self.previous, self.last_id, self.walked = row.hash, row.id, True

    def _legacy_row(self, row: Row) -> None:
        if self.keyed:
            self._break(row, f"ledger row {row.id}: no key id after keyed rows (forged as a "
                        "legacy row)")
        elif row_hash(row.prev_hash, row) != row.hash:
            self._break(row, f"ledger row {row.id}: content does not match its hash (edited)")
        else:
            self._legacy.append(row.id)

    def _hmac(self, row: Row) -> None:
        assert row.key_id is not None
        self.keyed = True
        key = self.keyring.get(row.key_id)
        rank = self.keyring.rank(row.key_id)
        if key is None or rank is None:
            self._unproved.setdefault(row.key_id, []).append(row.id)
        elif not hmac.compare_digest(row_mac(key, row.prev_hash, row), row.hash):
            self._break(row, f"ledger row {row.id}: content does not match its MAC (edited, "
                        "or written without the key)")
        elif self._newest_rank is not None and rank > self._newest_rank:
            self._break(row, f"ledger row {row.id}: signed with key {row.key_id}, which the "
                        f"keys list as older than key {self._newest_key} that signed before "
                        "it (a retired key in use?)")
        else:
            self._newest_rank, self._newest_key = rank, row.key_id

    def _first_key(self, row: Row) -> PublicKey | None:
        """The key of the first signed row: its own (a ``ledger-keyed`` row's seal), or
        a key known here by its id."""
        detail = row.detail if isinstance(row.detail, dict) else {}
        if row.entry == Entry.LEDGER_KEYED and row.id == 1:
            self._break(row, "ledger row 1: a ledger-keyed row that seals no row (a new club "
                        "signs its first row with its key; only an older chain is sealed)")
            return None
        if row.entry == Entry.LEDGER_KEYED:
            try:
                key = PublicKey.parse(str(detail.get("public_key")))
            except ValueError:
                self._break(row, f"ledger row {row.id}: its public key is unreadable")
                return None
            self._seal_matches = (detail.get("sealed") == row.id - 1
                                  and detail.get("seal") == self.seal)
            if not self._seal_matches:
                self._break(row, f"ledger row {row.id}: its seal does not match rows "
                            f"1..{row.id - 1} (an older row edited, dropped or inserted)")
            return key
        if row.id != 1:
            self._break(row, f"ledger row {row.id}: the first signed row, but it seals none "
                        "of the rows before it")
        for key in (*self.trusted, *self.keyring.public_keys, *self.known):
            if key.id == row.key_id:
                return key
        return None

    def _signed(self, row: Row) -> None:
        assert row.signature is not None
        self.keyed = True
        if self.signed_from is None:
            self.signed_from = row.id
            self.in_force = self._first_key(row)
            if self.in_force is not None:
                self.keys_seen.append(self.in_force)
                if self.in_force.id != row.key_id:
                    self._break(row, f"ledger row {row.id}: names key {row.key_id}, not its "
                                f"own {self.in_force.id}")
        key = self.in_force
        if key is None:
            self.missing.setdefault(str(row.key_id), []).append(row.id)
            self._break(row)
            return
        if row.key_id != key.id:
            self._break(row, f"ledger row {row.id}: signed by key {row.key_id}, but key "
                        f"{key.id} is in force (a key changes only by a key-rotated row)")
        elif signed_hash(row.prev_hash, row) != row.hash:
            self._break(row, f"ledger row {row.id}: content does not match its hash (edited)")
        elif not key.verifies(row.signature, row.hash):
            self._break(row, f"ledger row {row.id}: its signature does not hold under key "
                        f"{key.id} (forged, or edited and hashed again)")
        else:
            self.signers.add(key.id)
            if row.entry == Entry.LEDGER_KEYED:
                self.sealed = self._seal_matches and row.id == self.signed_from
            elif row.entry == Entry.KEY_ROTATED:
                self._rotated(row)

    def _rotated(self, row: Row) -> None:
        try:
            self.in_force = PublicKey.parse(str((row.detail or {}).get("public_key")))
        except ValueError:
            self._break(row, f"ledger row {row.id}: the key it introduces is unreadable")
            return
        self.keys_seen.append(self.in_force)

    def finish(self) -> None:
        """What holds only once every row is walked: the seal of the older rows, and
        that a key trusted here signed."""
        end = self.conclusion()
        self.problems += end.problems
        self.notes += end.notes
        self.missing = end.missing
        self.broken, self.first_broken = end.broken, end.first_broken

    def conclusion(self) -> Conclusion:
        """What :meth:`finish` would add if the chain ended here, the walker unchanged
        (so a walk can go on when more rows come: :mod:`storage.proof`)."""
        end = Conclusion([], [], {kid: list(ids) for kid, ids in self.missing.items()},
                         self.broken, self.first_broken)
        if not self.sealed:
            for kid, ids in self._unproved.items():
                end.missing.setdefault(kid, []).extend(ids)
                end.unproved(min(ids), max(ids))
        trusted = {key.id for key in (*self.trusted, *self.keyring.public_keys)}
        if self.signed_from is not None and not trusted:
            if not end.missing and self.keys_seen:
                # no key given or kept here: a chain that names its own key proves nothing
                end.missing[self.keys_seen[0].id] = list(range(self.signed_from,
                                                               self.last_id + 1))
            end.unproved(1, self.last_id)
        elif self.signed_from is not None and self.signers and trusted \
                and not trusted & self.signers:
            end.problems.append(
                f"the ledger is signed by key {', '.join(sorted(self.signers))}, none of them "
                f"the key given ({', '.join(sorted(trusted))})")
            end.unproved(1, self.last_id)
        elif self.signed_from is None and self.walked and self.trusted \
                and not self.keyring.keys:
            end.problems.append("no ledger row is signed: a public key proves nothing here "
                                "(the bot signs the ledger from its next start; legacy rows "
                                "once ancath-bot db seal-legacy seals them)")
            end.unproved(1, self.last_id)
        if self._legacy and self.signed_from is None and self.keyring.keys:
            # with the key, rows no signed row seals are a failure: a writer without it
            # can make a whole chain of them (the bot seals them only when told: R7.3)
            end.problems.append(
                f"ledger rows {ranges(self._legacy)} are legacy rows (plain SHA-256, from "
                f"before ledger keys) {UNSEALED}: anyone who can write the database can have "
                "rewritten them; if this club is from before ledger keys, run ancath-bot db "
                "seal-legacy once")
            end.unproved(min(self._legacy), max(self._legacy))
        elif self._legacy:
            how = ("the first signed row seals them" if self.signed_from is not None else
                   "no signed row seals them yet, so anyone who can write the database "
                   "can still rewrite them (ancath-bot db seal-legacy seals them, once)")
            end.notes.append(f"ledger rows {ranges(self._legacy)} are legacy rows (plain "
                             f"SHA-256, from before ledger keys): {how}")
        return end

    @property
    def legacy(self) -> list[int]:
        """The ids of the legacy rows walked (plain SHA-256, no key id)."""
        return self._legacy


@dataclass
class Conclusion:
    """What holds only at a walk's end: more problems and notes, every key not
    available here with its rows, and the newest row from which nothing is proved
    (``broken``: no anchor at or below it holds)."""

    problems: list[str]
    notes: list[str]
    missing: dict[str, list[int]]
    broken: int | None
    first_broken: int | None = None
    """The oldest row from which nothing is proved."""

    def unproved(self, first: int, last: int) -> None:
        """Rows ``first..last`` are not proved."""
        self.broken = max(self.broken or 0, last)
        self.first_broken = min(self.first_broken or first, first)
