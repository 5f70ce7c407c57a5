"""The append-only BP ledger: a hash chain, and ``verify`` to prove it and the totals.

Each row carries the previous row's hash and a SHA-256 of its own canonical content
chained to it, so an edited row, a deleted row or a cut-off tail is detected. Appends
lock the single ``ledger_head`` row, which keeps the chain linear under concurrency.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from storage.models import LedgerHead, LedgerRow, Warrior

__all__ = ["GENESIS", "append", "derived_totals", "row_hash", "verify"]

GENESIS = "0" * 64
_CONTENT = (
    "id", "warrior_id", "entry", "bp", "spent", "skill", "skill_value", "status",
    "captor_id", "detail", "actor", "moderator", "fight_id", "command_seq", "reason",
    "created_at",
)


def row_hash(prev_hash: str, row: LedgerRow) -> str:
    """SHA-256 over the previous hash and the row's canonical JSON content."""
    content = json.dumps(
        {name: getattr(row, name) for name in _CONTENT}, sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256((prev_hash + content).encode()).hexdigest()


def append(session: Session, **fields: Any) -> LedgerRow:
    """Append one row at the end of the chain, inside the caller's transaction."""
    head = session.execute(
        select(LedgerHead).where(LedgerHead.id == 1).with_for_update()
    ).scalar_one()
    fields.setdefault("bp", 0)
    fields.setdefault("spent", 0)
    row = LedgerRow(id=head.last_id + 1, prev_hash=head.last_hash, hash="", **fields)
    row.hash = row_hash(head.last_hash, row)
    session.add(row)
    head.last_id, head.last_hash = row.id, row.hash
    return row


def derived_totals(rows: list[LedgerRow]) -> dict[int, dict[str, Any]]:
    """Per warrior, what the ledger says: bp, bp_spent, skills, status, captor_id, and
    armour where the ledger records it (rows written before it did leave it out)."""
    totals: dict[int, dict[str, Any]] = defaultdict(
        lambda: {"bp": 0, "bp_spent": 0, "skills": {}, "status": "free", "captor_id": None}
    )
    for row in rows:
        total = totals[row.warrior_id]
        total["bp"] += row.bp
        total["bp_spent"] += row.spent
        if row.entry == "created" and row.detail:
            total["skills"] = dict(row.detail.get("skills", {}))
        if row.entry in ("created", "moderator-armour") and row.detail and "armour" in row.detail:
            total["armour"] = row.detail["armour"]
        if row.skill is not None and row.skill_value is not None:
            if row.skill_value:
                total["skills"][row.skill] = row.skill_value
            else:
                total["skills"].pop(row.skill, None)
        if row.status is not None:
            total["status"] = row.status
            total["captor_id"] = row.captor_id
    return totals


def verify(session: Session) -> list[str]:
    """Every way the ledger or a cached total is wrong; empty when all is well."""
    problems: list[str] = []
    rows = list(session.scalars(select(LedgerRow).order_by(LedgerRow.id)))
    previous, expected_id = GENESIS, 1
    for row in rows:
        if row.id != expected_id:
            problems.append(f"ledger rows {expected_id}..{row.id - 1} are missing")
        if row.prev_hash != previous:
            problems.append(f"ledger row {row.id}: chain broken before it (row removed or changed)")
        if row_hash(row.prev_hash, row) != row.hash:
            problems.append(f"ledger row {row.id}: content does not match its hash (edited)")
        previous, expected_id = row.hash, row.id + 1
    head = session.get(LedgerHead, 1)
    last_id = rows[-1].id if rows else 0
    if head is None or head.last_id != last_id or head.last_hash != previous:
        problems.append(f"ledger head does not match row {last_id}: newest rows removed?")
    totals = derived_totals(rows)
    for warrior in session.scalars(select(Warrior).order_by(Warrior.id)):
        derived = totals[warrior.id]
        for field in ("bp", "bp_spent", "skills", "status", "captor_id", "armour"):
            if field not in derived:
                continue
            cached = getattr(warrior, field)
            if cached != derived[field]:
                problems.append(
                    f"warrior {warrior.name}: {field} is {cached!r}, ledger says {derived[field]!r}"
                )
    return problems
