"""What changes of each fighter in a regular fight, interned as small ints, and the int
keys of regular states made of them (:mod:`bot.odds.regular` works out their turns).

Injuries with the left leg disabled and the right one not are kept as their mirror:
once a leg is disabled no rule tells the legs apart (the damage table gives each the
same number of values in every armour column, R6.1; R6.4 treats both alike; R6.3's
divert, whose tie goes to the right leg, never strikes a downed warrior; a leg is named
only in refusals), so a mortal chain has fewer nodes (``bench/README.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import NamedTuple

from rules.ancath.state import Awaiting, Bonus, FightState, Need, Range, Severity
from rules.ancath.tables import Location, Weapon

__all__ = ["SHIFT", "WEAPON_ORDER", "Dyn", "Fighters", "decode", "encode"]

WEAPON_ORDER = tuple(Weapon)
"""Weapons by number: keys of ints hash fast (an enum member hashes in Python code)."""

ARMS = (Location.WEAPON_ARM, Location.OFF_ARM)
LEGS = (Location.RIGHT_LEG, Location.LEFT_LEG)
_DISABLED = Severity.DISABLED
_MIRROR = {LEGS[0]: LEGS[1], LEGS[1]: LEGS[0]}


class Dyn(NamedTuple):
    """What changes of a fighter in a regular fight."""

    injuries: int
    """An id of :attr:`Regular.injuries`."""
    weapon: int
    """The weapon in hand, by its place in :data:`WEAPON_ORDER`."""
    press_penalty: bool
    pair_doubled: bool
    must_draw: bool
    dodge_only: bool
    bonus: int = 0
    """A Test bonus held, undeclared (R4.5): 0 for none, else its amount times 4 plus its
    age (the turns since the one that earned it: 1 or 2)."""


SHIFT = 20
"""Bits of a regular key for the defender's :class:`Dyn` id (a chain has far fewer)."""


def encode(actor: int, close: bool, first: int, second: int) -> int:
    """A regular state's key: ``actor`` is to choose an action, at close quarters or
    not (R4.9), the challenger's and the defender's :class:`Dyn` by their ids in
    :attr:`Regular.dyns`. An int, since a chain hashes keys millions of times."""
    return ((first << SHIFT | second) << 2) | (close << 1) | actor


def decode(key: int) -> tuple[int, bool, int, int]:
    """(actor, close, first, second) of a key made by :func:`encode`."""
    return key & 1, bool(key & 2), key >> (SHIFT + 2), (key >> 2) & ((1 << SHIFT) - 1)


def _held(bonus: Bonus | None, turn: int) -> int:
    """A fighter's bonus as :attr:`Dyn.bonus`; -1 for one the fast path leaves to the
    engine (declared, or of an age no regular turn sees)."""
    if bonus is None:
        return 0
    age = turn - bonus.earned_turn
    if bonus.use is not None or not 1 <= age <= 2 or bonus.amount <= 0:
        return -1
    return bonus.amount << 2 | age




class Flags(NamedTuple):
    """What the rules read of one kind of injuries, at a glance."""

    weapon_arm: bool
    """The weapon arm disabled."""
    off_arm: bool
    armless: bool
    """Both arms disabled."""
    down: bool
    """A leg disabled."""


class Fighters:
    """The fighters' states met in one fight's regular turns, each kind interned once:
    injuries (:attr:`injuries`, with :attr:`flags` and :attr:`arms` per id) and
    :class:`Dyn` (:attr:`dyns`)."""

    def __init__(self, template: FightState) -> None:
        self.template = template
        self.injuries: list[Mapping[Location, Severity]] = []
        self._ids: dict[frozenset[tuple[Location, Severity]], int] = {}
        self.flags: list[Flags] = []
        self.arms: list[int] = []
        """Per injuries id: the weapon arm's and the off arm's injuries, as an id."""
        self._arm_ids: dict[tuple[Severity | None, Severity | None], int] = {}
        self.dyns: list[Dyn] = []
        self._dyn_ids: dict[Dyn, int] = {}

    def injuries_id(self, injuries: Mapping[Location, Severity]) -> int:
        """The id of ``injuries``, or of their leg-for-leg mirror (see above)."""
        frozen = frozenset(injuries.items())
        found = self._ids.get(frozen)
        if found is not None:
            return found
        right, left = (injuries.get(leg) for leg in LEGS)
        if left is _DISABLED and right is not _DISABLED:
            mirror = {_MIRROR.get(place, place): hurt for place, hurt in injuries.items()}
            found = self._ids[frozen] = self.injuries_id(mirror)
        else:
            found = self._ids[frozen] = len(self.injuries)
            self.injuries.append(dict(injuries))
            arms = [injuries.get(a) is _DISABLED for a in ARMS]
            down = any(injuries.get(leg) is _DISABLED for leg in LEGS)
            self.flags.append(Flags(arms[0], arms[1], all(arms), down))
            arm_injuries = (injuries.get(ARMS[0]), injuries.get(ARMS[1]))
            self.arms.append(self._arm_ids.setdefault(arm_injuries, len(self._arm_ids)))
        return found

    def key(self, state: FightState) -> int | None:
        """The regular key of ``state`` (:func:`encode`), or None when it is not regular."""
        awaiting = state.awaiting
        if (awaiting is None or awaiting.need is not Need.ACTION or not state.started
                or state.context is not None or state.fleeing is not None
                or state.initiative != (None, None)):
            return None
        fighters = state.fighters
        bonuses = [_held(f.bonus, state.turn) for f in fighters]
        if any(f.earned is not None for f in fighters) or -1 in bonuses:
            return None
        if fighters[0].armless and fighters[1].armless:
            return None
        first, second = (self.dyn_id(Dyn(self.injuries_id(f.injuries), WEAPON_ORDER.index(f.weapon),
                                         f.press_penalty, f.pair_doubled, f.must_draw,
                                         f.dodge_only, held))
                         for f, held in zip(fighters, bonuses, strict=True))
        return encode(awaiting.side, state.range is Range.CLOSE, first, second)

    def dyn_id(self, dyn: Dyn) -> int:
        """The id of ``dyn``."""
        found = self._dyn_ids.get(dyn)
        if found is None:
            found = self._dyn_ids[dyn] = len(self.dyns)
            self.dyns.append(dyn)
        return found

    def state(self, key: int) -> FightState:
        """The engine's state for ``key`` (the template's sheets, loadouts and turn)."""
        actor, close, first, second = decode(key)
        turn = self.template.turn
        fighters = tuple(
            replace(f, injuries=self.injuries[d.injuries], weapon=WEAPON_ORDER[d.weapon],
                    press_penalty=d.press_penalty, pair_doubled=d.pair_doubled,
                    must_draw=d.must_draw, dodge_only=d.dodge_only, earned=None,
                    bonus=Bonus(d.bonus >> 2, turn - (d.bonus & 3)) if d.bonus else None)
            for f, d in zip(self.template.fighters, (self.dyns[first], self.dyns[second]),
                            strict=True))
        where = Range.CLOSE if close else Range.STANDARD
        return replace(self.template, fighters=(fighters[0], fighters[1]), range=where,
                       awaiting=Awaiting(actor, Need.ACTION), actor=actor,
                       started=True, initiative=(None, None), fleeing=None, context=None,
                       outcome=None)
