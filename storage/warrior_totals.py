"""What the ledger gives each warrior: its cached fields rebuilt from its rows
(``add_total``, a row at a time), and where a warrior's stored columns differ from
them (``differences``). ``audit verify``, an export's check, the pages' proof and the
check before a write (:mod:`storage.chained`) all rebuild a warrior so."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from storage.models import Entry, LedgerRow
from storage.sheets import Systems

__all__ = ["add_total", "derived_totals", "differences", "differs_said", "new_totals"]

_IDENTITY = ("name", "owner", "system", "culture", "armour", "profile")
_SETS: dict[str, tuple[str, ...]] = {
    Entry.CREATED: _IDENTITY,
    Entry.ATTESTED: _IDENTITY,
    Entry.RENAMED: ("name",),
    Entry.OWNER_CHANGED: ("owner",),
    Entry.MODERATOR_ARMOUR: ("armour",),
}
"""Which warrior fields each entry sets from its ``detail``."""
_FIELDS = ("name", "name_key", "owner", "system", "culture", "profile", "skills", "armour",
           "bp", "bp_spent", "status", "captor_id")
"""The warrior's cached fields that verify compares with the chain, in this order
(``culture``, ``armour``, ``skills`` and ``profile`` as ``sheets.Systems.recorded`` reads them
from its profile)."""

def derived_totals(rows: Iterable[LedgerRow]) -> dict[int, dict[str, Any]]:
    """Per warrior, what the ledger says: bp, bp_spent, skills, status, captor_id, and
    name, owner, system, culture, armour and profile where the ledger records them
    (legacy rows may leave them out)."""
    totals = new_totals()
    for row in rows:
        add_total(totals, row)
    return totals


def new_totals() -> defaultdict[int, dict[str, Any]]:
    return defaultdict(
        lambda: {"bp": 0, "bp_spent": 0, "skills": {}, "status": "free", "captor_id": None}
    )


def add_total(totals: defaultdict[int, dict[str, Any]], row: Any) -> None:
    """What one row changes of its warrior's totals. A value of the wrong type (only a
    forged row holds one: its hash or signature fails, and says so) changes nothing."""
    if not isinstance(row.warrior_id, int):
        return
    total = totals[row.warrior_id]
    if isinstance(row.bp, int) and isinstance(row.spent, int):
        total["bp"] += row.bp
        total["bp_spent"] += row.spent
    detail = row.detail if isinstance(row.detail, dict) else {}
    skills = detail.get("skills", {})
    if row.entry == Entry.CREATED and isinstance(skills, dict):
        total["skills"] = dict(skills)
    for name in _SETS.get(row.entry, ()):
        if name in detail:
            total[name] = detail[name]
    if isinstance(total.get("name"), str):
        total["name_key"] = total["name"].casefold()
    if isinstance(row.skill, str) and isinstance(row.skill_value, int):
        if row.skill_value:
            total["skills"][row.skill] = row.skill_value
        else:
            total["skills"].pop(row.skill, None)
    if row.status is not None:
        total["status"] = row.status
        total["captor_id"] = row.captor_id


def differences(warrior: Any, derived: dict[str, Any],
                systems: Systems) -> list[tuple[str, Any, Any]]:
    """Each field of ``warrior``'s stored columns that differs from what the chain gives
    it (``derived``): its name, the stored value and the chain's (its sheet as
    ``systems`` record it)."""
    cached = _cached(warrior, systems)
    return [(name, cached[name], derived[name]) for name in _FIELDS
            if name in derived and cached[name] != derived[name]]


def differs_said(name: str, stored: Any, proved: Any) -> str:
    """One field of :func:`differences` in words: ``owner is 'mallory', ledger says
    'olaf'``; BP (kept in tenths) in points, as the chat says it: ``BP is 7.7, ledger
    says 2.7``."""
    if name == "bp":
        return f"BP is {_points(stored)}, ledger says {_points(proved)}"
    return f"{name} is {stored!r}, ledger says {proved!r}"


def _points(tenths: Any) -> str:
    return f"{tenths / 10:.1f}" if type(tenths) is int else repr(tenths)


def _cached(warrior: Any, systems: Systems) -> dict[str, Any]:
    """The warrior's cached fields by the names the chain gives them."""
    return {"name": warrior.name, "name_key": warrior.name_key, "owner": warrior.owner,
            "system": warrior.system, **systems.recorded(warrior.system, warrior.profile),
            "bp": warrior.bp, "bp_spent": warrior.bp_spent, "status": warrior.status,
            "captor_id": warrior.captor_id}
