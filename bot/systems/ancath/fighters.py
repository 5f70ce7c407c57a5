"""How ``!create`` makes An Cath's warriors (R2), how they are kept and shown, and the
words for their cultures and skills (``!buy``, ``!mod skill``, ``!history``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.refusals import Refusal
from bot.systems.ancath import wording
from bot.systems.fighters import Fighters, Settings
from rules.ancath.sheet import Sheet, create_warrior, derived_test
from rules.ancath.tables import Armour, Culture, Skill
from storage.records import WarriorRecord
from storage.store import Store

__all__ = ["FIGHTERS", "parse_culture", "parse_skill"]

_CULTURE_NAMES = {c.value: c for c in Culture} | {"freeclans": Culture.FREE_CLANS,
                                                  "invader": Culture.INVADERS}


def parse_skill(word: str) -> Skill:
    try:
        return Skill(word.lower())
    except ValueError:
        raise Refusal(f"no skill {word}; skills: {', '.join(s.value for s in Skill)}") from None


def parse_culture(word: str) -> Culture:
    """The culture ``word`` names (``freeclans`` and ``invader`` too)."""
    culture = _CULTURE_NAMES.get(word.lower())
    if culture is None:
        raise Refusal("culture must be invaders, free-clans, fairy or goblin")
    return culture


def _create(name: str, words: Sequence[str], settings: Settings) -> Sheet:
    """``!create <name> <culture> <skill>... [armour]``: a new warrior's sheet (R2)."""
    culture_word, *rest = words
    culture = parse_culture(culture_word)
    armour = None
    if rest and rest[-1].lower() in {a.value for a in Armour}:
        armour = Armour(rest.pop().lower())
    sheet, _ = create_warrior(name, culture, [parse_skill(w) for w in rest], armour,
                              fairy_open=settings.fairy_open())
    return sheet


def _keep(store: Store, _system: str, sheet: Sheet, owner: str) -> WarriorRecord[Sheet]:
    """A new warrior with its skills and BP, and its ``created`` ledger row."""
    return store.create_warrior(sheet, owner)


def _show(record: WarriorRecord[Sheet]) -> dict[str, Any]:
    sheet = record.sheet_as(Sheet)
    return {
        "name": sheet.name,
        "owner": record.owner,
        "culture": sheet.culture.value,
        "armour": sheet.armour.value,
        "skills": {s.value: v for s, v in sorted(sheet.skills.items(), key=lambda i: i[0].value)},
        "bp": round(sheet.bp / 10, 1),
        "bp_spent": sheet.bp_spent,
        "test": derived_test(sheet.bp),
        "status": sheet.status.value,
        "captor": record.captor,
    }


FIGHTERS: Fighters[Sheet] = Fighters("", "<culture> <skill>... [armour]", _create,
                                     wording.sheet_line, _keep, wording.listing, _show)
"""An Cath's warriors: the one system whose words follow ``!create <name>`` bare."""
