"""An An Cath warrior as a warrior row keeps it (``rules.stored.SheetCodec``): its
culture, armour and skills in the profile, its BP in the club's columns; and its
between-fight changes (R2.8 purchases, R8.1 and R2.1 moderators' rulings) with the
ledger rows they write, each handed to the store's ``change_sheet``:
``store.change_sheet("Olaf", mod_bp(30, "mod", "a grant"))``. Plain values only:
storage does the rest."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.ancath.sheet import Sheet, Status, add_bp, buy_skill, set_armour, set_skill
from rules.ancath.tables import Armour, Culture, Skill
from rules.errors import OtherRules
from rules.stored import Change, Changed

__all__ = ["KEYS", "STORED", "AnCathStored", "buy", "mod_armour", "mod_bp", "mod_skill"]

KEYS = ("culture", "armour", "skills")
"""What an An Cath warrior's profile holds."""


def _an_cath(fighter: Any) -> Sheet:
    """``fighter`` as an An Cath sheet; another system's fighter is refused (R9.6)."""
    if not isinstance(fighter, Sheet):
        raise OtherRules(fighter.name, "no BP or skills there")
    return fighter


def buy(skill: Skill, actor: str) -> Change:
    """Spend BP on a skill (R2.8)."""
    def change(fighter: Any) -> Changed:
        new, (bought,) = buy_skill(_an_cath(fighter), skill)
        return new, {"entry": "spend", "spent": bought.cost, "skill": skill.value,
                     "skill_value": bought.new, "actor": actor,
                     "reason": f"bought {skill.value} {bought.old}->{bought.new}"}
    return change


def mod_bp(tenths: int, moderator: str, reason: str) -> Change:
    """A moderator's BP change (R8.1), kept within bounds (R2.6)."""
    def change(fighter: Any) -> Changed:
        new, (changed,) = add_bp(_an_cath(fighter), tenths)
        return new, {"entry": "moderator-bp", "bp": changed.applied, "actor": moderator,
                     "moderator": moderator, "reason": reason}
    return change


def mod_skill(skill: Skill, value: int, moderator: str, reason: str) -> Change:
    """A moderator sets a skill (R8.1)."""
    def change(fighter: Any) -> Changed:
        new, _ = set_skill(_an_cath(fighter), skill, value)
        return new, {"entry": "moderator-skill", "skill": skill.value, "skill_value": value,
                     "actor": moderator, "moderator": moderator, "reason": reason}
    return change


def mod_armour(armour: Armour, moderator: str, reason: str) -> Change:
    """A moderator gives other armour (R2.1: a goblin's captured armour)."""
    def change(fighter: Any) -> Changed:
        new, (changed,) = set_armour(_an_cath(fighter), armour)
        return new, {"entry": "moderator-armour", "actor": moderator,
                     "moderator": moderator, "reason": reason,
                     "detail": {"armour": armour.value, "was": changed.old.value,
                                "captured": changed.captured}}
    return change


class AnCathStored:
    """An An Cath warrior's sheet to and from its row (``rules.stored.SheetCodec``)."""

    def fighter(self, name: str, profile: Mapping[str, Any], bp: int, bp_spent: int,
                status: str) -> Sheet:
        skills = {Skill(k): v for k, v in profile["skills"].items()}
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in skills.values()):
            raise ValueError("a skill that is not a whole number")
        return Sheet(name, Culture(profile["culture"]), Armour(profile["armour"]), skills,
                     bp, bp_spent, Status(status))

    def profile(self, fighter: Sheet, old: Mapping[str, Any]) -> dict[str, Any]:
        return {**old, "culture": fighter.culture.value, "armour": fighter.armour.value,
                "skills": {s.value: v for s, v in fighter.skills.items()}}

    def bp(self, fighter: Sheet) -> tuple[int, int]:
        return fighter.bp, fighter.bp_spent

    def owns(self, fighter: object) -> bool:
        return isinstance(fighter, Sheet)

    def recorded(self, profile: Mapping[str, Any] | None) -> dict[str, Any]:
        profile = profile or {}
        rest = {k: v for k, v in profile.items() if k not in KEYS}
        return {"culture": profile.get("culture"), "armour": profile.get("armour"),
                "skills": profile.get("skills"), "profile": rest or None}

    def unrecorded(self, recorded: Mapping[str, Any]) -> dict[str, Any]:
        return {**(recorded["profile"] or {}), "culture": recorded["culture"],
                "armour": recorded["armour"], "skills": recorded["skills"] or {}}

    def group(self, profile: Mapping[str, Any]) -> str | None:
        found = profile.get("culture")
        return found if isinstance(found, str) else None

    def unlike(self, sheet: Mapping[str, Any], known: Mapping[str, Any]) -> list[str]:
        found: list[str] = []
        for name in ("culture", "armour"):
            if known[name] is not None and sheet.get(name) != known[name]:
                found.append(f"{name} {sheet.get(name)}, ledger says {known[name]}")
        given = sheet.get("skills")
        skills: Mapping[str, Any] = given if isinstance(given, dict) else {}
        found += [f"{skill} {skills.get(skill, 'none')}, ledger says "
                  f"{known['skills'].get(skill, 'none')}"
                  for skill in sorted(set(skills) | set(known["skills"]))
                  if skills.get(skill) != known["skills"].get(skill)]
        return found


STORED = AnCathStored()
"""An Cath's sheet codec, handed to storage with its ``RuleSystem``."""
