"""How a warrior's sheet lives in its ``profile`` column, and how the ledger records it.

An An Cath warrior's profile holds its culture, armour and skills cache
(``{"culture": ..., "armour": ..., "skills": {...}}``); another rules system's fighter's
profile is the whole fighter, encoded. The ledger has always recorded a sheet as
``culture``, ``armour``, ``skills`` (An Cath's) and ``profile`` (another system's);
``recorded`` gives a warrior's sheet in that shape, for ``ledger.identity`` and for
``audit.verify`` to compare with the chain.
"""

from __future__ import annotations

from typing import Any

from storage.models import Warrior

__all__ = ["ANCATH_KEYS", "ancath_profile", "recorded"]

ANCATH_KEYS = ("culture", "armour", "skills")
"""What an An Cath warrior's profile holds."""


def ancath_profile(culture: str, armour: str, skills: dict[str, int]) -> dict[str, Any]:
    """An An Cath warrior's profile."""
    return {"culture": culture, "armour": armour, "skills": dict(skills)}


def recorded(warrior: Warrior) -> dict[str, Any]:
    """The warrior's sheet as the ledger records it: ``culture``, ``armour``,
    ``skills`` and ``profile``. Of an An Cath warrior's profile, what is not its
    culture, armour or skills shows as ``profile`` (None when nothing), so that
    ``verify`` names it."""
    profile = warrior.profile or {}
    if warrior.system != "ancath" or not isinstance(profile, dict):   # a damaged one named
        return {"culture": None, "armour": None, "skills": {}, "profile": warrior.profile}
    rest = {k: v for k, v in profile.items() if k not in ANCATH_KEYS}
    return {"culture": profile.get("culture"), "armour": profile.get("armour"),
            "skills": profile.get("skills"), "profile": rest or None}
