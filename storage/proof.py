"""The ledger proved as far as it has been read, and on from there as rows come: what
the web pages show (every figure from the rebuild, the verdict on every page) and what
the bot checks at its start (from the last head it proved, not the whole ledger).

A :class:`Proof` walks the chain once, then only the rows appended since
(:meth:`Proof.advance`); its :attr:`verdict` says ``verified``, ``failed`` (what, from
which row) or ``unchecked`` (before the first walk). A row edited in place after the
walk passed it is not seen by walking on: the pages check the rows they show
(:func:`storage.ledger_trust.holds`) and the web server walks the whole chain again from time
to time (``bot.web.proving``).

The bot keeps how far it proved the chain as a setting (``CHECKED``): the row's id and
hash and the key in force after it, signed with the ledger key under its own context
(``signing.CHECKED_CONTEXT``),
so someone who can write the database but has no key cannot move it on past rows they
forged. A missing or unsigned note means the whole chain is walked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from storage.audit_fights import Marks
from storage.chain import Walker
from storage.keys import Keyring
from storage.ledger import ANCHOR_DIGITS, Anchor, chain_rows, head_row
from storage.ledger_trust import named_keys
from storage.models import LedgerRow, Setting
from storage.signing import CHECKED_CONTEXT, PublicKey
from storage.warrior_totals import add_total, new_totals

__all__ = ["CHECKED", "UNCHECKED", "Proof", "Verdict", "checked_note", "club_keys",
           "noted_head", "proof_since"]

CHECKED = "ledger:checked"
"""The setting that holds how far the bot proved the chain: ``{"id", "hash", "in_force",
"key", "signature"}``."""

State = Literal["verified", "failed", "unchecked"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the walk so far proves: ``state``, the ``problems`` (the first says what
    failed), the row from which nothing is proved (``broken``), and the newest row
    proved (``head``)."""

    state: State
    problems: tuple[str, ...] = ()
    broken: int | None = None
    head: Anchor | None = None
    rows: int = 0
    """Rows walked."""
    missing: tuple[str, ...] = ()
    """Those of the ``problems`` that say rows are signed with a key not known here:
    not proved, rather than disproved."""

    @property
    def first(self) -> str:
        """The first problem, or ''."""
        return self.problems[0] if self.problems else ""


UNCHECKED = Verdict("unchecked")
"""Before the first walk."""


@dataclass
class Proof:
    """The chain walked so far: the walker, every warrior rebuilt (``totals``) and every
    fight's marks. One thread at a time (the caller locks)."""

    walker: Walker
    totals: dict[int, dict[str, Any]] = field(default_factory=new_totals)
    marks: Marks = field(default_factory=Marks)
    rows: int = 0
    verdict: Verdict = UNCHECKED
    failed: dict[int, int | None] = field(default_factory=dict)
    """The rows the walk found do not hold (edited, forged, out of place), each with
    its warrior's id: what they give a warrior is not proved."""
    before: tuple[str, ...] = ()
    """What was wrong before the walk: the row the bot's note names gone or changed."""
    before_broken: int | None = None
    """From which row that leaves nothing proved."""

    @classmethod
    def of(cls, keyring: Keyring, trusted: tuple[PublicKey, ...] = ()) -> Proof:
        """A proof from row 1."""
        return cls(Walker(keyring, trusted))

    def advance(self, session: Session) -> Verdict:
        """Walk the rows written since the last walk (all of them the first time), in
        ``session``'s snapshot, and the head against the newest; the verdict."""
        walker = self.walker
        if not walker.walked and not walker.known:
            walker.known = named_keys(session)
        for row in chain_rows(session, walker.last_id):
            said = len(walker.problems)
            walker.step(row)
            self.rows += 1
            if len(walker.problems) > said:   # forged: what it gives counts for nothing
                self.failed[row.id] = row.warrior_id
                continue
            add_total(self.totals, row)   # type: ignore[arg-type]
            self.marks.add(row)
        end = walker.conclusion()
        problems = [*self.before, *walker.problems, *end.problems]
        firsts = [b for b in (end.first_broken, self.before_broken) if b is not None]
        missing = [f"ledger rows {', '.join(map(str, ids[:3]))} are signed with key "
                   f"{kid}, which is not known here" for kid, ids in end.missing.items()]
        problems += missing
        stored = head_row(session)
        if stored is None or (stored.last_id, stored.last_hash) != (
                walker.last_id, walker.previous):
            problems.append(f"the ledger head does not match row {walker.last_id}: newest "
                            "rows removed, or the head rewound?")
            firsts.append(walker.last_id + 1)
        broken = min(firsts, default=None)
        head = Anchor(walker.last_id, walker.previous[:ANCHOR_DIGITS]) \
            if walker.walked else None
        self.verdict = Verdict("failed" if problems else "verified", tuple(problems), broken,
                               head, self.rows, tuple(missing))
        return self.verdict

    def proves(self, row_id: int) -> bool:
        """Whether the walk so far proves row ``row_id``: walked, and before the row
        from which nothing is proved."""
        broken = self.verdict.broken
        return self.verdict.state != "unchecked" and row_id <= self.walker.last_id \
            and (broken is None or row_id < broken)


def club_keys(keyring: Keyring, proof: Proof | None = None) -> tuple[PublicKey, ...]:
    """The club's public key: the keyring's signing key's when it has one; else the
    keys the chain names (``ledger-keyed`` and ``key-rotated`` rows), the one in force
    last."""
    if keyring.keys:
        return (keyring.signer().public,)
    return tuple(proof.walker.keys_seen) if proof is not None else ()


def proof_since(session: Session, keyring: Keyring) -> Proof:
    """A proof that starts after the row the bot's note (``CHECKED``) names, when the
    note holds under a key of ``keyring`` and its row is still as noted; else from row
    1."""
    noted = noted_head(session, keyring)
    if noted is None:
        return Proof.of(keyring)
    last_id, last_hash, in_force = noted
    still = session.scalar(select(LedgerRow.hash).where(LedgerRow.id == last_id))
    kept = session.scalar(select(func.count()).select_from(LedgerRow)
                          .where(LedgerRow.id <= last_id))
    if still == last_hash and kept == last_id:
        return Proof(Walker.after(keyring, last_id, last_hash, in_force))
    # rows the bot proved are gone or changed: walk it all, and say so whatever else
    gone = ("is gone: rows cut off the ledger's end, or its head rewound" if still is None
            else "has changed since (the ledger rewritten up to there)" if still != last_hash
            else f"stands, but {last_id - (kept or 0)} of the rows before it are gone "
                 "(deleted)")
    newest = session.scalar(select(func.max(LedgerRow.id))) or 0
    return Proof(Walker(keyring), before=(
        f"the bot proved the ledger through row {last_id} ({last_hash[:16]}), which "
        f"{gone}",), before_broken=newest + 1 if still is None and kept == newest else 1)


def noted_head(session: Session, keyring: Keyring) -> tuple[int, str, PublicKey] | None:
    """The row (id and hash) the bot's note (``CHECKED``) says it proved, and the key in
    force after it, when the note holds under a key of ``keyring``; else None. A note
    is written only after signed rows: one that holds says the chain was signed."""
    note = session.get(Setting, CHECKED)
    value = (note.value or {}).get("value") if note is not None else None
    if not isinstance(value, dict):
        return None
    try:
        last_id, last_hash = int(value["id"]), str(value["hash"])
        in_force, signer = keyring.public(str(value["in_force"])), keyring.public(
            str(value["key"]))
        signature = str(value["signature"])
    except (KeyError, TypeError, ValueError):
        return None
    if in_force is None or signer is None or not signer.verifies(
            signature, _noted(last_id, last_hash, in_force.id), CHECKED_CONTEXT):
        return None
    return last_id, last_hash, in_force


def _noted(last_id: int, last_hash: str, in_force: str) -> str:
    return f"{last_id}:{last_hash}:{in_force}"


def checked_note(keyring: Keyring, proof: Proof) -> dict[str, Any] | None:
    """The note to keep after a walk that proved the chain to its head; None when it
    did not (or nothing is signed yet)."""
    walker = proof.walker
    if proof.verdict.state != "verified" or walker.in_force is None:
        return None
    signer = keyring.signer()
    noted = _noted(walker.last_id, walker.previous, walker.in_force.id)
    return {"id": walker.last_id, "hash": walker.previous, "in_force": walker.in_force.id,
            "key": signer.public.id, "signature": signer.sign(noted, CHECKED_CONTEXT)}
