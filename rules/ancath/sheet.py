"""Warrior sheets: creation, BP, the Test skill, skill purchase and armour (R2).

Pure functions: each returns the new sheet with the events that say what changed, or
raises :class:`~rules.errors.InvalidSheet` with a reason a player can act on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import Enum

from rules.ancath.tables import (
    BP_CAP,
    CULTURES,
    NEW_SKILL,
    NEW_SKILL_COST,
    SKILL_CAP_LOW,
    Armour,
    Culture,
    Skill,
    skill_maximum,
)
from rules.errors import InvalidSheet

__all__ = [
    "ArmourSet",
    "BPChanged",
    "Sheet",
    "SkillBought",
    "SkillSet",
    "Status",
    "WarriorCreated",
    "add_bp",
    "bp_applied",
    "bp_available",
    "buy_skill",
    "create_warrior",
    "derived_test",
    "set_armour",
    "set_skill",
    "valid_name",
]

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9'_-]{0,23}")


class Status(Enum):
    FREE = "free"
    PRISONER = "prisoner"
    DEAD = "dead"


@dataclass(frozen=True, slots=True)
class Sheet:
    name: str
    culture: Culture
    armour: Armour
    skills: Mapping[Skill, int]
    bp: int = 0
    """BP total in tenths (R2.6): 12 means 1.2 BP."""
    bp_spent: int = 0
    """Whole BP already used to buy skills (R2.8)."""
    status: Status = Status.FREE

    def skill(self, skill: Skill) -> int:
        """The warrior's percentage in a skill, 0 when they lack it."""
        return self.skills.get(skill, 0)


@dataclass(frozen=True, slots=True)
class WarriorCreated:
    sheet: Sheet


@dataclass(frozen=True, slots=True)
class SkillBought:
    name: str
    skill: Skill
    old: int
    new: int
    cost: int
    """Whole BP spent."""


@dataclass(frozen=True, slots=True)
class SkillSet:
    """A moderator set a skill directly (R8.1)."""

    name: str
    skill: Skill
    old: int
    new: int


@dataclass(frozen=True, slots=True)
class ArmourSet:
    """A moderator changed a warrior's armour (R2.1)."""

    name: str
    old: Armour
    new: Armour
    captured: bool
    """Armour the culture does not allow, given as captured armour (a goblin's)."""


@dataclass(frozen=True, slots=True)
class BPChanged:
    name: str
    requested: int
    """Tenths asked for."""
    applied: int
    """Tenths actually added after the 0..40.0 bounds (R2.6); what the ledger records."""
    total: int
    """The BP total after the change, in tenths."""


def valid_name(name: str) -> bool:
    """A name of 1 to 24 letters, digits, ', _ or -, starting with a letter."""
    return _NAME.fullmatch(name) is not None


def create_warrior(
    name: str,
    culture: Culture,
    skills: Iterable[Skill],
    armour: Armour | None = None,
    *,
    fairy_open: bool = False,
) -> tuple[Sheet, tuple[WarriorCreated]]:
    """A new warrior (R2.1-R2.5); the skills a culture always gets may be omitted."""
    if not valid_name(name):
        raise InvalidSheet(
            f"{name!r} is not a usable name: 1-24 letters, digits, ' _ -, starting with a letter"
        )
    if culture is Culture.FAIRY and not fairy_open:
        raise InvalidSheet("Fairy Folk cannot be created yet: leadership has not opened them")
    spec = CULTURES[culture]
    chosen = set(skills) - spec.always
    closed = chosen - spec.open_skills
    if closed:
        names = ", ".join(sorted(s.value for s in closed))
        raise InvalidSheet(f"{culture.value} cannot start with {names}")
    for count, group in spec.picks:
        taken = chosen & group
        if len(taken) != count:
            options = "/".join(sorted(s.value for s in group))
            raise InvalidSheet(f"{culture.value} take {count} of {options}")
    if armour is None:
        armour = spec.usual_armour
    elif armour not in spec.armour:
        allowed = ", ".join(sorted(a.value for a in spec.armour))
        raise InvalidSheet(f"{culture.value} armour must be one of {allowed}")
    sheet = Sheet(name, culture, armour, {s: NEW_SKILL for s in spec.always | chosen})
    return sheet, (WarriorCreated(sheet),)


def derived_test(bp: int) -> int:
    """Test = min(80, 40 + floor(2 x BP)), with BP in tenths (R2.7)."""
    return min(80, 40 + (2 * bp) // 10)


def bp_available(sheet: Sheet) -> int:
    """Whole BP still free to spend: floor(total) - spent (R2.8)."""
    return sheet.bp // 10 - sheet.bp_spent


def bp_applied(bp: int, tenths: int) -> int:
    """The tenths a change of ``tenths`` makes to a total of ``bp``, kept within
    0..40.0 (R2.6)."""
    return max(0, min(BP_CAP, bp + tenths)) - bp


def add_bp(sheet: Sheet, tenths: int) -> tuple[Sheet, tuple[BPChanged]]:
    """Add (or with a moderator, take away) BP, kept within 0..40.0 (R2.6)."""
    applied = bp_applied(sheet.bp, tenths)
    total = sheet.bp + applied
    return replace(sheet, bp=total), (BPChanged(sheet.name, tenths, applied, total),)


def buy_skill(sheet: Sheet, skill: Skill) -> tuple[Sheet, tuple[SkillBought]]:
    """Spend BP on a skill (R2.8); refused when it would gain nothing or BP are short."""
    if skill not in CULTURES[sheet.culture].open_skills:
        raise InvalidSheet(f"{skill.value} is not open to {sheet.culture.value}")
    old = sheet.skills.get(skill)
    maximum = skill_maximum(sheet.culture, skill)
    if old is None:
        cost, new = NEW_SKILL_COST, NEW_SKILL
    elif old >= maximum:
        raise InvalidSheet(f"{sheet.name}'s {skill.value} is already at its maximum {maximum}")
    elif old < SKILL_CAP_LOW:
        cost, new = 1, min(SKILL_CAP_LOW, old + 10)
    else:
        cost, new = 1, min(maximum, old + 5)
    free = bp_available(sheet)
    if free < cost:
        raise InvalidSheet(f"{sheet.name} has {free} BP to spend; {skill.value} costs {cost}")
    skills = {**sheet.skills, skill: new}
    changed = replace(sheet, skills=skills, bp_spent=sheet.bp_spent + cost)
    return changed, (SkillBought(sheet.name, skill, old or 0, new, cost),)


def set_skill(sheet: Sheet, skill: Skill, value: int) -> tuple[Sheet, tuple[SkillSet]]:
    """A moderator's override (R8.1): any skill, 0 (removed) up to its maximum."""
    maximum = skill_maximum(sheet.culture, skill)
    if not 0 <= value <= maximum:
        raise InvalidSheet(f"{skill.value} must be 0..{maximum}")
    skills = dict(sheet.skills)
    if value:
        skills[skill] = value
    else:
        skills.pop(skill, None)
    old = sheet.skills.get(skill, 0)
    return replace(sheet, skills=skills), (SkillSet(sheet.name, skill, old, value),)


def set_armour(sheet: Sheet, armour: Armour) -> tuple[Sheet, tuple[ArmourSet]]:
    """A moderator's armour change (R2.1): an armour the culture allows, or for a goblin
    any of the six (captured armour). Refused when it is not allowed or already worn.
    That it happens between fights only is the caller's to check."""
    spec = CULTURES[sheet.culture]
    allowed = spec.armour | spec.captured_armour
    if armour not in allowed:
        names = ", ".join(sorted(a.value for a in allowed))
        raise InvalidSheet(f"{sheet.culture.value} armour must be one of {names}")
    if armour is sheet.armour:
        raise InvalidSheet(f"{sheet.name}'s armour is already {armour.value}")
    captured = armour in spec.captured_armour
    changed = replace(sheet, armour=armour)
    return changed, (ArmourSet(sheet.name, sheet.armour, armour, captured),)
