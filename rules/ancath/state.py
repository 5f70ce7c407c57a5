"""The fight's state: frozen values that the engine replaces, never mutates.

A :class:`FightState` holds both fighters, the range, the turn, the action being
resolved and :attr:`FightState.awaiting`: who must act or roll next, and for what.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rules.ancath.frozen import FastEnum, copier, quick
from rules.ancath.sheet import Sheet
from rules.ancath.tables import Location, Weapon

__all__ = [
    "Action",
    "ActionContext",
    "Awaiting",
    "Bonus",
    "BonusUse",
    "Defence",
    "Defences",
    "Ending",
    "FightState",
    "Fighter",
    "Kind",
    "Loadout",
    "Need",
    "Outcome",
    "Range",
    "RollFor",
    "Severity",
    "Strike",
    "copy_awaiting",
    "copy_bonus",
    "copy_context",
    "copy_fighter",
    "copy_state",
    "copy_strike",
]


class Kind(FastEnum):
    """Fight kinds (R3.1)."""

    PRACTICE = "practice"
    DUEL = "duel"
    MORTAL = "mortal"


class Range(FastEnum):
    STANDARD = "standard"
    CLOSE = "close"


class Severity(FastEnum):
    WOUND = "wound"
    DISABLED = "disabled"


class Defence(FastEnum):
    DODGE = "dodge"
    BLOCK = "block"
    PARRY = "parry"
    LUCK = "luck"


class Action(FastEnum):
    ATTACK = "attack"
    DOUBLE = "double"
    PRESS = "press"
    TEST = "test"
    YIELD = "yield"
    CLOSE = "close"
    OPEN = "open"
    FLEE = "flee"
    FREE_ATTACK = "free-attack"
    """A slow weapon's missed swing gives the foe this (R4.10); not a turn."""


class BonusUse(FastEnum):
    """Where a Test bonus goes (R4.5)."""

    ATTACK = "attack"
    DEFENCE = "defence"
    REDUCE = "reduce"


class Need(FastEnum):
    """What the fight waits for."""

    ORDER = "order"
    """The initiative winner chooses to act first or second (R3.6)."""
    ACTION = "action"
    DEFENCE = "defence"
    """The defender picks a defence against the next successful attack (R5.1)."""
    YIELD_ANSWER = "yield-answer"
    FLEE_ANSWER = "flee-answer"
    """Stop the flight, or take the last turn at once (R4.8)."""
    LAST_TURN = "last-turn"
    """The stop failed: Attack, Double or Press as the last turn (R4.8)."""
    ROLL = "roll"


class RollFor(FastEnum):
    """What a pending d100 roll decides."""

    INITIATIVE = "initiative"
    ATTACK = "attack"
    TEST = "test"
    DEFENCE = "defence"
    DAMAGE = "damage"
    MANOEUVRE = "manoeuvre"
    """The actor's own Dodge to Close or Open (R4.7)."""
    RESIST = "resist"
    """The opponent's Dodge against a Close or Open (R4.12)."""
    STOP = "stop"
    """The opponent's Dodge to stop a flight (R4.8)."""


class Ending(FastEnum):
    KILL = "kill"
    FIRST_BLOOD = "first-blood"
    YIELD = "yield"
    ESCAPE = "escape"
    FORFEIT = "forfeit"
    MODERATOR = "moderator"
    DRAW = "draw"


@quick
@dataclass(frozen=True, slots=True)
class Loadout:
    """Weapon and grip, fixed at the first action (R3.4)."""

    weapon: Weapon
    shield: bool = False
    two_handed: bool = False
    """Spear in both hands (+10 while both arms are uninjured, R4.1)."""


@quick
@dataclass(frozen=True, slots=True)
class Defences:
    """Defensive scores, computed with the loadout and never recalculated (R3.5, R6.6)."""

    dodge: int
    block: int | None
    parry: int


@quick
@dataclass(frozen=True, slots=True)
class Bonus:
    """A Test bonus (R4.4, R4.5)."""

    amount: int
    earned_turn: int
    use: BonusUse | None = None
    """None until declared; undeclared it acts as ``REDUCE``."""


_DISABLED, _RIGHT_LEG, _LEFT_LEG = Severity.DISABLED, Location.RIGHT_LEG, Location.LEFT_LEG
_WEAPON_ARM, _OFF_ARM = Location.WEAPON_ARM, Location.OFF_ARM
"""Members read once: in Python 3.11 each read of ``Enum.MEMBER`` is a slow lookup."""


@quick
@dataclass(frozen=True, slots=True)
class Fighter:
    sheet: Sheet
    loadout: Loadout
    defences: Defences
    weapon: Weapon
    """The weapon in hand: the loadout's, or a secondary one once drawn (R6.5)."""
    injuries: Mapping[Location, Severity]
    must_draw: bool = False
    """A two-hander's weapon arm was disabled: the next turn is spent drawing (R6.5)."""
    dodge_only: bool = False
    """Between that disable and the first turn with the new weapon: Dodge or Luck only."""
    press_penalty: bool = False
    """Pressed or club/shortsword-Doubled: Luck only in the opponent's next turn (R5.4)."""
    pair_doubled: bool = False
    """Doubled with the pair: no Block in the opponent's next turn (R4.2)."""
    bonus: Bonus | None = None
    earned: Bonus | None = None
    """A bonus won this turn; it replaces ``bonus`` when the turn ends (R4.5)."""

    @property
    def name(self) -> str:
        return self.sheet.name

    def disabled(self, location: Location) -> bool:
        return self.injuries.get(location) is _DISABLED

    def injured(self, location: Location) -> bool:
        return location in self.injuries

    @property
    def down(self) -> bool:
        """A disabled leg puts the warrior on the ground (R6.5)."""
        get = self.injuries.get
        return get(_RIGHT_LEG) is _DISABLED or get(_LEFT_LEG) is _DISABLED

    @property
    def armless(self) -> bool:
        """Both arms disabled: only Yield and Flee remain (R6.5)."""
        get = self.injuries.get
        return get(_WEAPON_ARM) is _DISABLED and get(_OFF_ARM) is _DISABLED


@quick
@dataclass(frozen=True, slots=True)
class Strike:
    """One roll of an action against the other side, and what came of it.

    Chances are recorded when the roll is made, so a bonus declared before a roll
    counts for it (R4.5).
    """

    weapon: Weapon | None
    """The weapon whose damage rating decides severity; None for a Test."""
    roll: int | None = None
    chance: int | None = None
    defence: Defence | None = None
    defence_roll: int | None = None
    defence_chance: int | None = None
    damage_roll: int | None = None

    @property
    def hit(self) -> bool:
        return self.roll is not None and succeeds(self.roll, self.chance or 0)

    @property
    def defended(self) -> bool:
        return self.defence_roll is not None and succeeds(
            self.defence_roll, self.defence_chance or 0
        )


@quick
@dataclass(frozen=True, slots=True)
class ActionContext:
    """The action being resolved, roll by roll (R4.11)."""

    action: Action
    actor: int
    strikes: tuple[Strike, ...] = ()
    defences_used: frozenset[Defence] = frozenset()
    """The defender's once-per-turn defences used in this turn (R5.1)."""


_ROLL = Need.ROLL


@quick
@dataclass(frozen=True, slots=True)
class Awaiting:
    """Who the fight waits for, and for what."""

    side: int
    need: Need
    roll_for: RollFor | None = None
    chance: int | None = None
    """For a roll: the chance it is made against (None for initiative and damage)."""

    @property
    def is_roll(self) -> bool:
        """The fight waits for a d100 by ``side``."""
        return self.need is _ROLL

    @property
    def die(self) -> int:
        """An Cath rolls d100 for everything (R1.1)."""
        return 100


@quick
@dataclass(frozen=True, slots=True)
class Outcome:
    ending: Ending
    winner: int | None
    """0 (challenger), 1 (defender), or None for a draw."""
    prisoner: bool = False
    ransom: str | None = None


@quick
@dataclass(frozen=True, slots=True)
class FightState:
    kind: Kind
    fighters: tuple[Fighter, Fighter]
    awaiting: Awaiting | None
    """None once the fight is over."""
    range: Range = Range.STANDARD
    turn: int = 0
    """Numbered from 1; a free attack is not a turn, a flight's last turn is (R4.8)."""
    actor: int | None = None
    started: bool = False
    """An action has been taken: loadouts are fixed (R3.4)."""
    initiative: tuple[int | None, int | None] = (None, None)
    """This round's initiative rolls, challenger first (R3.6)."""
    fleeing: int | None = None
    """The side whose flight is being answered (R4.8)."""
    context: ActionContext | None = None
    outcome: Outcome | None = None

    @property
    def progress(self) -> int:
        """How far the fight has come: its turn (0 before the first)."""
        return self.turn


copy_awaiting = copier(Awaiting)
copy_bonus = copier(Bonus)
copy_context = copier(ActionContext)
copy_fighter = copier(Fighter)
copy_state = copier(FightState)
copy_strike = copier(Strike)
"""Copies with the fields named by keyword changed (``dataclasses.replace``, fast)."""


def succeeds(roll: int, chance: int) -> bool:
    """1 always succeeds, 100 always fails, else roll <= chance (R1.1)."""
    return roll == 1 or (roll != 100 and roll <= chance)
