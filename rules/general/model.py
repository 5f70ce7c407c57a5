"""General-rules values: fighters, commands, events and the state (R10)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum, StrEnum

from rules.common import Forfeit, ModeratorEnd, Roll, Yield
from rules.errors import InvalidSheet

__all__ = [
    "Attack", "Attacked", "Awaiting", "Command", "DamageDie", "Dice", "Ending", "Event",
    "FightEnded", "Forfeit",
    "GeneralFighter", "GeneralState", "GotUp", "Hit", "KnockbackTest", "ModeratorEnd",
    "Need", "Outcome", "Parried", "Roll", "Side", "TurnStarted", "Yield", "parse_dice",
]

_DICE = re.compile(r"(\d{1,2})?[dD](\d{1,3})([+-]\d{1,3})?")


@dataclass(frozen=True, slots=True)
class Dice:
    """``NdM+K``: the damage dice, rolled up (R10.1)."""

    count: int
    sides: int
    bonus: int = 0

    def __str__(self) -> str:
        bonus = f"{self.bonus:+d}" if self.bonus else ""
        return f"{self.count}d{self.sides}{bonus}"


def parse_dice(text: str) -> Dice:
    found = _DICE.fullmatch(text.strip())
    if not found:
        raise InvalidSheet(f"{text!r} is not dice like 1d8 or 2d6+1")
    count, sides = int(found[1] or 1), int(found[2])
    if not 1 <= count <= 10 or not 2 <= sides <= 100:
        raise InvalidSheet("damage dice are 1..10 dice of 2..100 sides")
    return Dice(count, sides, int(found[3] or 0))


@dataclass(frozen=True, slots=True)
class GeneralFighter:
    name: str
    health: int
    """Total Health (20 for an average adult)."""
    strength: int
    skill: int
    """Weapon skill, tested on d20."""
    weapon: Dice
    base: Dice
    """Base Damage dice."""
    defense: int
    protection: int

    def __post_init__(self) -> None:
        for label, value, low, high in (("health", self.health, 1, 200),
                                        ("str", self.strength, 1, 40),
                                        ("skill", self.skill, 1, 40),
                                        ("defense", self.defense, 0, 20),
                                        ("protection", self.protection, 0, 40)):
            if not low <= value <= high:
                raise InvalidSheet(f"{label} must be {low}..{high}")

    @property
    def parry(self) -> int:
        """Half the weapon skill, rounded down, plus the armour's Defense (R10.2)."""
        return self.skill // 2 + self.defense


@dataclass(frozen=True, slots=True)
class Side:
    fighter: GeneralFighter
    current: int
    """Current Health."""
    stunned: bool = False
    """Got up from a knockdown and still stunned for the rest of that round: the Parry
    against the opponent's next attack is at -5 (R10.3)."""


class Need(Enum):
    ACTION = "action"
    ROLL = "roll"


class RollFor(Enum):
    ATTACK = "attack"
    PARRY = "parry"
    DAMAGE = "damage"
    KNOCKBACK = "knockback"


@dataclass(frozen=True, slots=True)
class Awaiting:
    side: int
    need: Need
    roll_for: RollFor | None = None
    die: int = 20
    chance: int | None = None

    @property
    def is_roll(self) -> bool:
        return self.need is Need.ROLL


class Ending(StrEnum):
    """How a General rules fight ends; stored as its word (a ``str`` enum)."""

    UNCONSCIOUS = "unconscious"
    YIELD = "yield"
    FORFEIT = "forfeit"
    MODERATOR = "moderator"
    DRAW = "draw"


@dataclass(frozen=True, slots=True)
class Outcome:
    ending: Ending
    winner: int | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "ending", Ending(self.ending))  # from its word too


@dataclass(frozen=True, slots=True)
class Exchange:
    """The attack being resolved: dice still to roll and damage so far."""

    attacker: int
    dice: tuple[int, ...] = ()
    """Sides of the dice still to roll, in order (R10.2)."""
    rolled: int = 0
    damage: int | None = None
    """Damage after Protection, once every die is in."""


@dataclass(frozen=True, slots=True)
class GeneralState:
    sides: tuple[Side, Side]
    awaiting: Awaiting | None
    turn: int = 1
    actor: int = 0
    exchange: Exchange | None = None
    outcome: Outcome | None = None
    kind: str = "general"

    @property
    def progress(self) -> int:
        """How far the fight has come: its turn."""
        return self.turn


@dataclass(frozen=True, slots=True)
class Attack:
    side: int


@dataclass(frozen=True, slots=True)
class TurnStarted:
    side: int
    turn: int


@dataclass(frozen=True, slots=True)
class GotUp:
    side: int


@dataclass(frozen=True, slots=True)
class Attacked:
    side: int
    roll: int
    chance: int
    hit: bool


@dataclass(frozen=True, slots=True)
class Parried:
    side: int
    roll: int
    chance: int
    held: bool


@dataclass(frozen=True, slots=True)
class DamageDie:
    side: int
    sides: int
    roll: int
    rolled_up: bool


@dataclass(frozen=True, slots=True)
class Hit:
    side: int
    """The one hit."""
    rolled: int
    damage: int
    """After Protection, never below 0."""
    health: int


@dataclass(frozen=True, slots=True)
class KnockbackTest:
    side: int
    roll: int
    strength: int
    kept_feet: bool


@dataclass(frozen=True, slots=True)
class FightEnded:
    outcome: Outcome


Command = Attack | Yield | Roll | Forfeit | ModeratorEnd
Event = TurnStarted | GotUp | Attacked | Parried | DamageDie | Hit | KnockbackTest | FightEnded
