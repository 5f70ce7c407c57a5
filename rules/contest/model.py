"""Simple Contest values: fighters, commands, events and the state (R9)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum, StrEnum

from rules.common import Forfeit, ModeratorEnd, Roll, Yield
from rules.errors import InvalidSheet

__all__ = [
    "Awaiting",
    "Command",
    "ContestFighter",
    "ContestState",
    "Ending",
    "Event",
    "FightEnded",
    "Forfeit",
    "Gravity",
    "Level",
    "ModeratorEnd",
    "Need",
    "Outcome",
    "Roll",
    "Rolled",
    "RoundResolved",
    "Strike",
    "Struck",
    "Yield",
    "parse_fighter",
]

_RATING = re.compile(r"(\d{1,2})(?:([Ww])(\d?))?")
_WEAPON = re.compile(r"([A-Za-z][A-Za-z'_-]{0,23})\^(\d{1,2})([Ww]?)")


class Level(Enum):
    """A d20 result (R9.1), ordered worst to best."""

    FUMBLE = 0
    FAILURE = 1
    SUCCESS = 2
    CRITICAL = 3


class Gravity(Enum):
    """What the loser suffers (R9.4)."""

    NOTHING = 0
    DAZED = 1
    WOUND = 2
    INJURY = 3
    DYING = 4
    DEAD = 5


@dataclass(frozen=True, slots=True)
class ContestFighter:
    name: str
    rating: int
    """Close Combat, 1..20."""
    masteries: int
    weapon: str
    edge: int
    edge_mastery: bool
    armour: int
    """The armour's handicap; 0 for none."""


def parse_fighter(name: str, rating: str, weapon: str, armour: int = 0) -> ContestFighter:
    """``("Alain", "15W", "sword^3", 2)``: ratings like 15, 15W or 3W2; edges ^3 or ^5W."""
    found = _RATING.fullmatch(rating)
    if not found or not 1 <= int(found[1]) <= 20:
        raise InvalidSheet("the rating is 1..20, with masteries as W: 15, 15W or 3W2")
    masteries = (int(found[3]) if found[3] else 1) if found[2] else 0
    blade = _WEAPON.fullmatch(weapon)
    if not blade or not 0 <= int(blade[2]) <= 20:
        raise InvalidSheet("the weapon is name^edge, e.g. sword^3 or axe^5W")
    if not 0 <= armour <= 20:
        raise InvalidSheet("the armour handicap is 0..20")
    return ContestFighter(name, int(found[1]), masteries, blade[1].lower(), int(blade[2]),
                          bool(blade[3]), armour)


@dataclass(frozen=True, slots=True)
class Side:
    """A fighter's condition in the fight (R9.5)."""

    fighter: ContestFighter
    wounds: int = 0
    injuries: int = 0
    dazed: bool = False

    @property
    def rating(self) -> int:
        """Halved per injury (floor), then wounds subtracted (R9.5)."""
        return (self.fighter.rating >> self.injuries) - self.wounds


class Need(Enum):
    STRIKE = "strike"
    ROLL = "roll"


@dataclass(frozen=True, slots=True)
class Awaiting:
    side: int
    need: Need
    die: int = 20
    chance: int | None = None

    @property
    def is_roll(self) -> bool:
        return self.need is Need.ROLL


class Ending(StrEnum):
    """How a contest ends; stored as its word (a ``str`` enum: ``"dead"`` compares equal)."""

    DEAD = "dead"
    DYING = "dying"
    OUT = "out"
    """A rating at 0 (R9.5)."""
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
class ContestState:
    sides: tuple[Side, Side]
    awaiting: Awaiting | None
    round: int = 1
    ready: tuple[bool, bool] = (False, False)
    rolls: tuple[int | None, int | None] = (None, None)
    outcome: Outcome | None = None
    kind: str = "contest"

    @property
    def progress(self) -> int:
        """How far the fight has come: its round."""
        return self.round


@dataclass(frozen=True, slots=True)
class Strike:
    side: int


@dataclass(frozen=True, slots=True)
class Struck:
    side: int


@dataclass(frozen=True, slots=True)
class Rolled:
    side: int
    roll: int
    rating: int
    """The effective rating the roll was made against (dazed included)."""
    level: Level


@dataclass(frozen=True, slots=True)
class RoundResolved:
    round: int
    levels: tuple[Level, Level]
    """After masteries (R9.2)."""
    winner: int | None
    """None: equal rolls on a marginal outcome, no effect (R9.3)."""
    degree: int
    """0 marginal, 1 minor, 2 major, 3 complete."""
    gravity: Gravity
    ratings: tuple[int, int]
    """Each side's rating after the round's effects."""


@dataclass(frozen=True, slots=True)
class FightEnded:
    outcome: Outcome


Command = Strike | Yield | Roll | ModeratorEnd | Forfeit
Event = Struck | Rolled | RoundResolved | FightEnded
