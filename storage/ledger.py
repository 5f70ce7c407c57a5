"""The append-only ledger: a chain of signed rows, appended to inside the caller's
transaction (:mod:`storage.chain` says how each kind of row is proved;
``storage.audit.verify`` proves the chain and everything the records derive from it).

Each row carries the previous row's hash and its own: SHA-256 over the previous hash
and the row's canonical content, its key id included, and an Ed25519 signature over that
hash by a key derived from the ledger secret (:mod:`storage.signing`, the secret from
:mod:`storage.keys`, never in the database). Without the secret nobody can make a row
that verifies, and anyone with the club's public key can check every row. Older chains
are sealed by the first signed row: HMAC rows by the bot's next append or start, legacy
plain SHA-256 rows only by the operator's ``ancath-bot db seal-legacy`` (``seal(...,
legacy=True)``), since anyone who can write the database can make a chain of them
(``LegacyRows`` otherwise); a new key is introduced by a row the old key signs.

The chain holds each warrior's creation (name, owner, system, sheet) and every change
of its BP, skills, armour, status, captor, name and owner; each fight's end
(``fight-closed``: digests of its setup, command log and event log, with its ending),
or an undo that reopens it (``fight-reopened``); the moderators added and removed in
chat (the bot's list of them is read from these rows, each checked by its signature);
the settings changed and the undos made. ``storage.audit.verify`` rebuilds every
warrior's cached fields and every fight's digests from the chain and names what
disagrees.

Appends lock the single ``ledger_head`` row, which keeps the chain linear under
concurrency. A chain cannot prove that nothing was cut off its end (delete the newest
rows, rewind the head): anchors do, ``ledger #<id> <16 hex digits>`` published outside
the database and checked with ``storage.audit.verify(anchors=...)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.orm import Session

from storage.chain import (
    CONTENT,
    GENESIS,
    UNSEALED,
    Walker,
    canonical,
    ranges,
    row_hash,
    row_mac,
    signed_hash,
)
from storage.errors import StorageError
from storage.fight_digests import fight_fields
from storage.keys import Keyring, KeyringError
from storage.models import (
    Entry,
    Fight,
    LedgerHead,
    LedgerRow,
    Warrior,
)
from storage.signing import SigningKey

__all__ = [
    "ANCHOR_DIGITS",
    "BATCH",
    "FIGHT_ENTRIES",
    "GENESIS",
    "MODERATOR_ENTRIES",
    "ROWS",
    "ROW_FIELDS",
    "Anchor",
    "Chain",
    "LegacyRows",
    "anchors_in",
    "append",
    "append_fight",
    "canonical",
    "chain_rows",
    "head",
    "head_row",
    "identity",
    "is_keyed",
    "row_hash",
    "row_mac",
    "seal",
    "signed_hash",
]

FIGHT_ENTRIES = (Entry.FIGHT_CLOSED, Entry.FIGHT_REOPENED)
"""Rows about a fight, on no warrior."""
Recorded = Callable[[Warrior], dict[str, Any]]
"""A warrior's sheet as the ledger records it (``storage.sheets.Systems.recorded``)."""
MODERATOR_ENTRIES = (Entry.MODERATOR_ADDED, Entry.MODERATOR_REMOVED)
"""Rows about a moderator named in chat (``detail["name"]``), on no warrior."""
ANCHOR_DIGITS = 16
"""Hex digits of a row's hash an anchor says: 64 bits, too many to search for a
rewrite whose row matches."""
_ANCHOR = re.compile(r"ledger #(\d{1,18}) ([0-9a-fA-F]{8,64})\b")
"""A row id is at most 18 digits (below 2**63, SQLite's largest)."""


# -- anchors ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Anchor:
    """A ledger head as published outside the database: a row id and the start of its
    hash (16 hex digits, 64 bits, said; 8 or more accepted from older logs)."""

    id: int
    mac: str

    def __str__(self) -> str:
        return f"ledger #{self.id} {self.mac[:ANCHOR_DIGITS]}"

    @classmethod
    def parse(cls, text: str) -> Anchor:
        """``4123:9f2c1a7e`` (a leading ``#`` allowed)."""
        match = re.fullmatch(r"#?(\d{1,18}):([0-9a-fA-F]{8,64})", text.strip())
        if match is None:
            raise ValueError(f"{text!r} is not an anchor: <row id>:<8 or more hex digits>, "
                             "e.g. 4123:9f2c1a7e")
        return cls(int(match[1]), match[2].lower())


def anchors_in(text: str) -> list[Anchor]:
    """Every ``ledger #<id> <mac>`` in any text (a channel log, a topic), once each."""
    found: list[Anchor] = []
    for match in _ANCHOR.finditer(text):
        anchor = Anchor(int(match[1]), match[2].lower())
        if anchor not in found:
            found.append(anchor)
    return found


def is_keyed(engine: Engine) -> bool:
    """Whether the chain already has a keyed row (its head names a key)."""
    with engine.connect() as connection:
        return connection.execute(
            select(LedgerHead.key_id).where(LedgerHead.id == 1)).scalar() is not None


def head(session: Session) -> Anchor | None:
    """The chain's newest row as an anchor; None while it is empty."""
    row = head_row(session)
    if row is None or not row.last_id:
        return None
    return Anchor(row.last_id, row.last_hash[:ANCHOR_DIGITS])


def head_row(session: Session) -> Chain | None:
    """The ``ledger_head`` row as it is now (not locked); None before migrations made it."""
    row = session.connection().execute(_HEAD).one_or_none()
    return Chain(*row) if row is not None else None


# -- appending --------------------------------------------------------------------------

REASON_MOST: int = LedgerRow.__table__.c.reason.type.length   # type: ignore[attr-defined]
"""The longest reason a ledger row holds."""


def append(session: Session, keyring: Keyring, **fields: Any) -> LedgerRow:
    """Append one row at the end of the chain, signed with the keyring's first key,
    inside the caller's transaction.

    The first signed row on a chain of HMAC rows is a ``ledger-keyed`` row sealing them;
    on a chain with legacy rows none is written (``LegacyRows``: ``seal`` with
    ``legacy``, the operator's command, writes it, and ``attested`` rows after it: what
    legacy rows never held, each warrior's name, owner, system and sheet, each finished
    fight's digests, pinned as stored at that moment); the first row a new key signs
    follows a ``key-rotated`` row the old key signs. A reason longer than the column
    holds is refused on every database (PostgreSQL would end the transaction over it,
    SQLite would keep it)."""
    if len(str(fields.get("reason", ""))) > REASON_MOST:
        raise StorageError(f"a reason holds at most {REASON_MOST} characters: say it "
                           "shorter")
    signer = keyring.signer()
    chain = _locked_head(session)
    _ready(session, chain, keyring, signer, str(fields.get("created_at", "")))   # no legacy
    row = _write(session, chain, signer, fields)
    _keep_head(session, chain)
    return row


def seal(session: Session, keyring: Keyring, created_at: str, recorded: Recorded,
         legacy: bool = False) -> int:
    """Write now, rather than at the next append (the bot does at its start), the rows
    ``append`` would write first: a seal of older HMAC rows, or a new key's
    introduction; with ``legacy`` (``ancath-bot db seal-legacy``, the operator's word),
    a seal of legacy rows too, which nothing else writes (``LegacyRows``). Returns how
    many. ``recorded`` gives a warrior's sheet as the ledger records it, for the
    ``attested`` rows of a legacy seal."""
    signer = keyring.signer()
    chain = _locked_head(session)
    before = chain.last_id
    _ready(session, chain, keyring, signer, created_at, legacy, recorded)
    if chain.last_id != before:
        _keep_head(session, chain)
    return chain.last_id - before


@dataclass
class Chain:
    """The ``ledger_head`` row as an append locked it, moved on by each row written."""

    last_id: int
    last_hash: str
    key_id: str | None


_HEAD = select(LedgerHead.last_id, LedgerHead.last_hash, LedgerHead.key_id
               ).where(LedgerHead.id == 1)
_LOCKED_HEAD = _HEAD.with_for_update()
_KEEP_HEAD = update(LedgerHead).where(LedgerHead.id == 1)
_INSERT_ROW = insert(LedgerRow)
"""Built once, their values given as parameters (``.values()`` per row cost as much as
the INSERT)."""


def _locked_head(session: Session) -> Chain:
    """The head, locked. The head and the rows are read and written on the connection
    (Core), never as ORM objects: each append's ORM flush cost more than the rest of it,
    three or four of them at a fight's end, and with no head object in a session none is
    left stale there."""
    return Chain(*session.connection().execute(_LOCKED_HEAD).one())


def _keep_head(session: Session, chain: Chain) -> None:
    session.connection().execute(_KEEP_HEAD, {"last_id": chain.last_id,
                                              "last_hash": chain.last_hash,
                                              "key_id": chain.key_id})


def _ready(session: Session, chain: Chain, keyring: Keyring, signer: SigningKey,
           created_at: str, legacy: bool = False, recorded: Recorded | None = None) -> None:
    """Make the chain's end ready for a row ``signer`` signs: introduce its key when an
    older key of the keyring signed the newest row; seal the rows before when the
    newest is not signed (an HMAC row; legacy rows only with ``legacy``: anyone who can
    write the database can make a chain of legacy rows, so sealing them is the
    operator's decision, never the bot's)."""
    if not chain.last_id or chain.key_id == signer.public.id:
        return
    older = keyring.public(chain.key_id) if chain.key_id is not None else None
    if older is not None:
        _write(session, chain, keyring.signer(older.id), {
            "warrior_id": None, "entry": Entry.KEY_ROTATED, "actor": "bot",
            "detail": {"public_key": signer.public.text, "previous": older.text},
            "created_at": created_at,
            "reason": f"key {signer.public.id} signs from here, introduced by key {older.id}"})
        chain.key_id = signer.public.id   # the head names the key in force
        return
    if chain.key_id is not None and keyring.get(chain.key_id) is None:
        raise KeyringError(f"the newest ledger row #{chain.last_id} is signed with key "
                           f"{chain.key_id}, which is not available ({keyring.describe()})")
    all_legacy = chain.key_id is None
    if all_legacy and not legacy:   # a chain of legacy rows: no walk needed to refuse
        raise LegacyRows(f"1..{chain.last_id}")
    count, digest, old = _sealable(session, chain, keyring)
    if old and not legacy:
        raise LegacyRows(ranges(old))
    told = f" (legacy rows {ranges(old)} by the operator's db seal-legacy)" if old else ""
    _write(session, chain, signer, {
        "warrior_id": None, "entry": Entry.LEDGER_KEYED, "actor": "bot",
        "detail": {"public_key": signer.public.text, "sealed": count, "seal": digest},
        "created_at": created_at,
        "reason": f"rows 1..{count} sealed{told}; from here every row is signed with key "
                  f"{signer.public.id}, which anyone can check"})
    if all_legacy and recorded is not None:
        _attest_legacy(session, chain, signer, created_at, recorded)


ROW_FIELDS = (*CONTENT, "prev_hash", "hash", "key_id", "signature")
"""A ledger row's every column: what proves it and what it says."""
ROWS = select(*(getattr(LedgerRow, name) for name in ROW_FIELDS))
"""Whole ledger rows, read as Core rows (never ORM objects)."""
BATCH = 1000
"""Rows read per query when walking the chain."""


def chain_rows(session: Session, after: int = 0) -> Iterator[Any]:
    """Every ledger row after row ``after``, in id order, ``BATCH`` a query (by id, so
    no cursor stays open while other queries run)."""
    query = ROWS.order_by(LedgerRow.id).limit(BATCH)
    while rows := session.execute(query.where(LedgerRow.id > after)).all():
        yield from rows
        after = rows[-1].id


class LegacyRows(StorageError):
    """The chain has legacy rows no signed row seals, and nothing but the operator's
    ``ancath-bot db seal-legacy`` seals them."""

    def __init__(self, rows: str) -> None:
        super().__init__(
            f"ledger rows {rows} are legacy rows (plain SHA-256, from before ledger keys) "
            "that no signed row seals, and the bot does not sign them on its own (anyone "
            "who can write the database can make such rows): check them with ancath-bot "
            "audit verify, then, for a club from before ledger keys, run ancath-bot db "
            "seal-legacy [--db X | --config C] once")


def _sealable(session: Session, chain: Chain, keyring: Keyring) -> tuple[int, str, list[int]]:
    """The rows before the first signed one, proved with the keyring: how many, their
    seal digest and the legacy rows among them. A chain that does not verify is never
    sealed (that would sign a forgery): ``StorageError`` names the first problem (legacy
    rows unsealed are not one here: the caller decides)."""
    walker = Walker(keyring)
    for row in chain_rows(session):
        walker.step(row)
    walker.finish()
    walker.problems = [problem for problem in walker.problems if UNSEALED not in problem]
    problems = walker.problems or [f"rows {ranges(ids)} are signed with key {kid}, which is "
                                   "not available" for kid, ids in walker.missing.items()]
    if walker.last_id != chain.last_id or walker.previous != chain.last_hash:
        problems.append(f"the ledger head (#{chain.last_id}) is not its newest row "
                        f"(#{walker.last_id})")
    if problems:
        raise StorageError(f"the ledger does not verify ({problems[0]}), so it is not sealed "
                           "and nothing is written: run ancath-bot audit verify")
    return walker.last_id, walker.seal, walker.legacy


def _write(session: Session, chain: Chain, signer: SigningKey,
           fields: dict[str, Any]) -> LedgerRow:
    """One signed row after ``chain``'s newest, INSERTed now; the row object is never
    added to the session (``_locked_head``)."""
    values = {"id": chain.last_id + 1, "prev_hash": chain.last_hash,
              "key_id": signer.public.id, "bp": 0, "spent": 0, **fields}
    row = LedgerRow(hash="", **values)
    row.hash = values["hash"] = signed_hash(chain.last_hash, row)
    row.signature = values["signature"] = signer.sign(row.hash)
    session.connection().execute(_INSERT_ROW, values)
    chain.last_id, chain.last_hash, chain.key_id = row.id, row.hash, signer.public.id
    return row


def identity(warrior: Warrior, sheet: dict[str, Any]) -> dict[str, Any]:
    """What a creation (or attested) row holds of a warrior besides its skills, its
    ``sheet`` as the ledger records it (``Systems.recorded``)."""
    return {"name": warrior.name, "owner": warrior.owner, "system": warrior.system,
            "culture": sheet["culture"], "armour": sheet["armour"], "profile": sheet["profile"]}


def _attest_legacy(session: Session, chain: Chain, signer: SigningKey,
                   created_at: str, recorded: Recorded) -> None:
    in_chain = set(session.scalars(
        select(LedgerRow.warrior_id).where(LedgerRow.warrior_id.is_not(None)).distinct()))
    for warrior in session.scalars(
        select(Warrior).where(Warrior.id.in_(in_chain)).order_by(Warrior.id)
    ):
        _write(session, chain, signer, {
            "warrior_id": warrior.id, "entry": Entry.ATTESTED,
            "detail": identity(warrior, recorded(warrior)),
            "actor": "bot", "created_at": created_at,
            "reason": "a warrior from before ledger keys, as stored when they came",
        })
    for fight_id in session.scalars(select(Fight.id).where(~Fight.active).order_by(Fight.id)):
        _write(session, chain, signer, fight_fields(
            session, fight_id, Entry.FIGHT_CLOSED, actor="bot", created_at=created_at,
            reason="a fight from before ledger keys, as stored when they came", attested=True))


def append_fight(session: Session, keyring: Keyring, fight_id: int, entry: Entry,
                 **fields: Any) -> LedgerRow:
    """Append a fight's ``fight-closed`` (its end) or ``fight-reopened`` (an undo) row."""
    return append(session, keyring, **fight_fields(session, fight_id, entry, **fields))
