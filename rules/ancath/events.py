"""Events: what happened, as data. The bot renders them, storage logs them, and BP
ledger rows derive from :class:`BPAwarded`, :class:`WarriorSlain` and
:class:`PrisonerTaken`. Sides are 0 (challenger) and 1 (defender).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from rules.ancath.frozen import quick
from rules.ancath.state import (
    Action,
    BonusUse,
    Defence,
    Kind,
    Outcome,
    Range,
    RollFor,
    Severity,
)
from rules.ancath.tables import Hit, Location, Weapon

__all__ = [
    "ActionTaken",
    "AwardReason",
    "BPAwarded",
    "BonusDeclared",
    "BonusEarned",
    "DamageRolled",
    "DefenceChosen",
    "Event",
    "FightEnded",
    "FightStarted",
    "FlightStopped",
    "Injured",
    "InjuryRule",
    "LoadoutSet",
    "OrderChosen",
    "PrisonerTaken",
    "RangeChanged",
    "Rolled",
    "TurnStarted",
    "WarriorSlain",
    "WeaponDrawn",
    "YieldAnswered",
]


@quick
@dataclass(frozen=True, slots=True)
class FightStarted:
    kind: Kind
    names: tuple[str, str]


@quick
@dataclass(frozen=True, slots=True)
class LoadoutSet:
    side: int
    weapon: Weapon
    shield: bool
    two_handed: bool
    dodge: int
    block: int | None
    parry: int


@quick
@dataclass(frozen=True, slots=True)
class OrderChosen:
    first: int


@quick
@dataclass(frozen=True, slots=True)
class TurnStarted:
    side: int
    turn: int
    last_turn: bool = False


@quick
@dataclass(frozen=True, slots=True)
class ActionTaken:
    side: int
    action: Action


@quick
@dataclass(frozen=True, slots=True)
class DefenceChosen:
    side: int
    defence: Defence


@quick
@dataclass(frozen=True, slots=True)
class Rolled:
    """A d100 roll against a chance (or, for initiative and damage, against none)."""

    side: int
    roll_for: RollFor
    roll: int
    chance: int | None
    success: bool | None


@quick
@dataclass(frozen=True, slots=True)
class DamageRolled:
    side: int
    """The attacker."""
    roll: int
    hit: Hit
    severity: Severity | None
    diverted_to: Location | None = None
    """A downed striker's even Kill/Head/Torso roll went to this leg (R6.3)."""


class InjuryRule(Enum):
    """Which step of R6.4 decided an injury."""

    RECORDED = "recorded"
    ARM_TO_TORSO = "arm-to-torso"
    DISABLED_LEG = "disabled-leg"
    REWOUNDED = "rewounded"
    FOUR_AREAS = "four-areas"


@quick
@dataclass(frozen=True, slots=True)
class Injured:
    side: int
    """The warrior hurt."""
    location: Location
    severity: Severity
    rule: InjuryRule
    killed: bool


@quick
@dataclass(frozen=True, slots=True)
class WeaponDrawn:
    side: int
    weapon: Weapon


@quick
@dataclass(frozen=True, slots=True)
class RangeChanged:
    range: Range


@quick
@dataclass(frozen=True, slots=True)
class BonusEarned:
    side: int
    amount: int


@quick
@dataclass(frozen=True, slots=True)
class BonusDeclared:
    side: int
    use: BonusUse


@quick
@dataclass(frozen=True, slots=True)
class YieldAnswered:
    side: int
    accepted: bool


@quick
@dataclass(frozen=True, slots=True)
class FlightStopped:
    side: int
    """The side that stopped it."""


@quick
@dataclass(frozen=True, slots=True)
class FightEnded:
    outcome: Outcome


class AwardReason(Enum):
    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"
    MORTAL = "mortal"
    """The 0.5 every side of a mortal fight earns (R7.2)."""
    SLAIN = "foe-slain"
    CAPTURED = "prisoner-taken"


@quick
@dataclass(frozen=True, slots=True)
class BPAwarded:
    side: int
    tenths: int
    reason: AwardReason


@quick
@dataclass(frozen=True, slots=True)
class WarriorSlain:
    side: int


@quick
@dataclass(frozen=True, slots=True)
class PrisonerTaken:
    side: int
    """The prisoner."""
    captor: int
    ransom: str | None


Event = (
    FightStarted | LoadoutSet | OrderChosen | TurnStarted | ActionTaken | DefenceChosen
    | Rolled | DamageRolled | Injured | WeaponDrawn | RangeChanged | BonusEarned
    | BonusDeclared | YieldAnswered | FlightStopped | FightEnded | BPAwarded | WarriorSlain
    | PrisonerTaken
)
