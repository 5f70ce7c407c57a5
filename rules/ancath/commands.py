"""Commands: everything that can happen to a fight, rolls included.

A command names the side that issues it (0 = challenger, 1 = defender). The bot maps
people to sides; the engine checks that the side is the one the fight waits for.
``Roll`` (a d100 here), ``Forfeit`` and ``ModeratorEnd`` are every system's
(``rules.common``).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.ancath.frozen import quick
from rules.ancath.state import Action, BonusUse, Defence
from rules.ancath.tables import Weapon
from rules.common import Forfeit, ModeratorEnd, Roll

__all__ = [
    "AcceptYield",
    "Act",
    "ChooseOrder",
    "Command",
    "DeclareBonus",
    "Defend",
    "Forfeit",
    "ModeratorEnd",
    "RejectYield",
    "Roll",
    "Stop",
    "Wield",
]


@quick
@dataclass(frozen=True, slots=True)
class Wield:
    """Choose the loadout; allowed until the first action (R3.4)."""

    side: int
    weapon: Weapon
    shield: bool = False
    two_handed: bool = False


@quick
@dataclass(frozen=True, slots=True)
class ChooseOrder:
    """The initiative winner acts first (``first=True``) or yields it (R3.6)."""

    side: int
    first: bool


@quick
@dataclass(frozen=True, slots=True)
class Act:
    """A turn's action (R4), or a flight's last-turn Attack/Double/Press (R4.8)."""

    side: int
    action: Action


@quick
@dataclass(frozen=True, slots=True)
class Defend:
    """The defence against the next successful attack (R5.1)."""

    side: int
    defence: Defence


@quick
@dataclass(frozen=True, slots=True)
class DeclareBonus:
    """Say where a held Test bonus goes, before the roll it affects (R4.5)."""

    side: int
    use: BonusUse


@quick
@dataclass(frozen=True, slots=True)
class AcceptYield:
    side: int
    prisoner: bool | None = None
    """Mortal fights only: take prisoner (the default) or release (R4.6)."""
    ransom: str | None = None


@quick
@dataclass(frozen=True, slots=True)
class RejectYield:
    side: int


@quick
@dataclass(frozen=True, slots=True)
class Stop:
    """Try to stop a flight with a Dodge roll (R4.8)."""

    side: int


Command = (
    Wield | ChooseOrder | Act | Defend | DeclareBonus | AcceptYield | RejectYield | Stop
    | Roll | Forfeit | ModeratorEnd
)
