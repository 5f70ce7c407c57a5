"""An Cath's tables as data, checked when this module loads.

Cultures with their skills and armour (R2.1), skill maxima (R2.3), armour modifiers (R3.5),
weapons with length, damage rating and speed (R4.9, R4.10, R6.2), the damage table
(R6.1) and BP costs (R2.8). Nothing here computes a fight; other modules look up.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.ancath.frozen import FastEnum

__all__ = [
    "ARMOUR_MODIFIER",
    "BP_CAP",
    "CULTURES",
    "DAMAGE_TABLE",
    "LUCK",
    "NEW_SKILL",
    "NEW_SKILL_COST",
    "SKILL_CAP_LOW",
    "WEAPONS",
    "Armour",
    "Culture",
    "CultureSpec",
    "Hit",
    "Location",
    "Skill",
    "Weapon",
    "WeaponSpec",
    "damage_result",
    "skill_maximum",
]


class Culture(FastEnum):
    INVADERS = "invaders"
    FREE_CLANS = "free-clans"
    FAIRY = "fairy"
    GOBLIN = "goblin"


class Skill(FastEnum):
    AXE = "axe"
    BROADSWORD = "broadsword"
    CLUB = "club"
    COUNTERSWORD = "countersword"
    GREATSWORD = "greatsword"
    LAJATANG = "lajatang"
    MOVE = "move"
    SHIELD = "shield"
    SHORTSWORD = "shortsword"
    SPEAR = "spear"


class Armour(FastEnum):
    NONE = "none"
    LEATHER = "leather"
    HIGHLANDER = "highlander"
    COHORT = "cohort"
    MAIL = "mail"
    OFFICER = "officer"


class Weapon(FastEnum):
    """A main weapon; ``COUNTERSWORD`` is the pair of shortswords (R3.4)."""

    AXE = "axe"
    BROADSWORD = "broadsword"
    CLUB = "club"
    COUNTERSWORD = "countersword"
    GREATSWORD = "greatsword"
    LAJATANG = "lajatang"
    SHORTSWORD = "shortsword"
    SPEAR = "spear"


class Location(FastEnum):
    HEAD = "head"
    TORSO = "torso"
    WEAPON_ARM = "weapon-arm"
    OFF_ARM = "off-arm"
    RIGHT_LEG = "right-leg"
    LEFT_LEG = "left-leg"


class Hit(FastEnum):
    """A damage-table row (R6.1)."""

    KILL = "kill"
    HEAD = "head"
    TORSO = "torso"
    WEAPON_ARM = "weapon-arm"
    OFF_ARM = "off-arm"
    RIGHT_LEG = "right-leg"
    LEFT_LEG = "left-leg"
    NO_EFFECT = "no-effect"

    @property
    def location(self) -> Location | None:
        """The body location of a starred row; None for Kill and No Effect."""
        return _HIT_LOCATION.get(self)


_HIT_LOCATION = {Hit(loc.value): loc for loc in Location}


@dataclass(frozen=True, slots=True)
class CultureSpec:
    open_skills: frozenset[Skill]
    always: frozenset[Skill]
    picks: tuple[tuple[int, frozenset[Skill]], ...]
    """Starting choices: take ``n`` skills from each group (R2.1)."""
    usual_armour: Armour
    armour: frozenset[Armour]
    """Armour the culture allows: the usual one and the other allowed (R2.1)."""
    captured_armour: frozenset[Armour] = frozenset()
    """Armour beyond ``armour`` that only a moderator gives: a goblin's captured armour,
    any of the six (R2.1)."""


def _s(*names: Skill) -> frozenset[Skill]:
    return frozenset(names)


S = Skill
A = Armour
CULTURES: dict[Culture, CultureSpec] = {
    Culture.INVADERS: CultureSpec(
        _s(S.MOVE, S.SHIELD, S.BROADSWORD, S.SHORTSWORD, S.SPEAR),
        _s(S.MOVE, S.SHIELD),
        ((1, _s(S.BROADSWORD, S.SHORTSWORD, S.SPEAR)),),
        A.COHORT,
        frozenset({A.COHORT, A.OFFICER, A.HIGHLANDER, A.LEATHER, A.NONE}),
    ),
    Culture.FREE_CLANS: CultureSpec(
        _s(S.MOVE, S.AXE, S.BROADSWORD, S.GREATSWORD, S.SHIELD),
        _s(S.MOVE),
        ((1, _s(S.AXE, S.BROADSWORD)), (1, _s(S.GREATSWORD, S.SHIELD))),
        A.HIGHLANDER,
        frozenset({A.HIGHLANDER, A.MAIL, A.LEATHER, A.NONE}),
    ),
    Culture.FAIRY: CultureSpec(
        _s(S.MOVE, S.SHORTSWORD, S.COUNTERSWORD, S.LAJATANG, S.SHIELD),
        _s(S.MOVE, S.SHORTSWORD),
        ((1, _s(S.COUNTERSWORD, S.LAJATANG, S.SHIELD)),),
        A.LEATHER,
        frozenset({A.LEATHER, A.MAIL, A.NONE}),
    ),
    Culture.GOBLIN: CultureSpec(
        _s(S.MOVE, S.AXE, S.CLUB, S.SHIELD, S.SPEAR),
        _s(S.MOVE),
        ((2, _s(S.AXE, S.CLUB, S.SHIELD, S.SPEAR)),),
        A.LEATHER,
        frozenset({A.LEATHER, A.NONE}),
        frozenset({A.HIGHLANDER, A.COHORT, A.MAIL, A.OFFICER}),
    ),
}

NEW_SKILL = 30
"""Every skill starts at 30%, at creation or when bought (R2.2)."""
NEW_SKILL_COST = 3
"""BP for a new skill open to the culture (R2.8)."""
SKILL_CAP_LOW = 50
"""Below this a BP buys +10, at or above it +5 (R2.8)."""
BP_CAP = 400
"""The BP total's ceiling, in tenths (R2.6)."""
LUCK = 5
"""The Luck roll's chance, never modified (R5.5)."""

_MAXIMUM: dict[Skill, int] = {
    S.AXE: 80, S.BROADSWORD: 80, S.CLUB: 80, S.GREATSWORD: 80, S.SPEAR: 80,
    S.LAJATANG: 85, S.COUNTERSWORD: 70, S.SHIELD: 70, S.MOVE: 60,
}
_SHORTSWORD_MAXIMUM = {Culture.INVADERS: 80, Culture.FAIRY: 85}


def skill_maximum(culture: Culture, skill: Skill) -> int:
    """The most a skill can reach for a culture (R2.3)."""
    if skill is S.SHORTSWORD:
        return _SHORTSWORD_MAXIMUM.get(culture, 80)
    return _MAXIMUM[skill]


ARMOUR_MODIFIER: dict[Armour, int] = {
    A.NONE: 20, A.LEATHER: 0, A.HIGHLANDER: 0, A.COHORT: -10, A.MAIL: -15, A.OFFICER: -20,
}


@dataclass(frozen=True, slots=True)
class WeaponSpec:
    skill: Skill
    """The skill its attacks use (the pair attacks with Shortsword, R3.5)."""
    length: int
    damage_rating: int
    can_double: bool
    shield: bool
    """Whether a shield may be carried with it."""
    parry_bonus: int = 0

    @property
    def slow(self) -> bool:
        """Damage rating 5 or more (R4.10)."""
        return self.damage_rating >= 5


W = Weapon
WEAPONS: dict[Weapon, WeaponSpec] = {
    W.GREATSWORD: WeaponSpec(S.GREATSWORD, 3, 7, can_double=False, shield=False),
    W.LAJATANG: WeaponSpec(S.LAJATANG, 3, 5, can_double=False, shield=False, parry_bonus=15),
    W.SPEAR: WeaponSpec(S.SPEAR, 3, 3, can_double=False, shield=True),
    W.AXE: WeaponSpec(S.AXE, 2, 5, can_double=False, shield=True),
    W.BROADSWORD: WeaponSpec(S.BROADSWORD, 2, 4, can_double=False, shield=True),
    W.CLUB: WeaponSpec(S.CLUB, 1, 2, can_double=True, shield=True),
    W.COUNTERSWORD: WeaponSpec(S.SHORTSWORD, 1, 3, can_double=True, shield=False),
    W.SHORTSWORD: WeaponSpec(S.SHORTSWORD, 1, 3, can_double=True, shield=True),
}

H = Hit
_ROWS = (H.KILL, H.HEAD, H.TORSO, H.WEAPON_ARM, H.OFF_ARM, H.RIGHT_LEG, H.LEFT_LEG, H.NO_EFFECT)
_UPPER_BOUNDS: dict[Armour, tuple[int, ...]] = {
    # highest roll of each row, in _ROWS order; a row equal to the one before is empty
    A.NONE: (15, 20, 30, 45, 60, 80, 100, 100),
    A.LEATHER: (11, 16, 22, 31, 40, 52, 64, 100),
    A.HIGHLANDER: (7, 8, 14, 23, 32, 52, 72, 100),
    A.COHORT: (3, 4, 6, 21, 36, 56, 76, 100),
    A.MAIL: (3, 4, 6, 12, 18, 38, 58, 100),
    A.OFFICER: (3, 4, 6, 12, 18, 30, 42, 100),
}


def _expand(bounds: tuple[int, ...]) -> tuple[Hit, ...]:
    column: list[Hit] = []
    for row, upper in zip(_ROWS, bounds, strict=True):
        column.extend([row] * (upper - len(column)))
    return tuple(column)


DAMAGE_TABLE: dict[Armour, tuple[Hit, ...]] = {a: _expand(b) for a, b in _UPPER_BOUNDS.items()}
"""``DAMAGE_TABLE[armour][roll - 1]`` is the row a damage roll lands on (R6.1)."""


def damage_result(armour: Armour, roll: int) -> Hit:
    """The damage-table row for a d100 roll against an armour column (R6.1)."""
    return DAMAGE_TABLE[armour][roll - 1]


def _check() -> None:
    for culture, spec in CULTURES.items():
        groups = [g for _, g in spec.picks]
        chosen = sum(n for n, _ in spec.picks)
        assert len(spec.always) + chosen == 3, culture
        assert all(n <= len(g) for n, g in spec.picks), culture
        flat = [s for g in groups for s in g]
        assert len(flat) == len(set(flat)), f"{culture}: starting groups overlap"
        assert spec.always.isdisjoint(flat), culture
        assert spec.always | set(flat) <= spec.open_skills, culture
        assert len(spec.open_skills) == 5, culture
        assert spec.usual_armour in spec.armour, culture
        assert spec.armour.isdisjoint(spec.captured_armour), culture
    assert set(_MAXIMUM) | {S.SHORTSWORD} == set(Skill)
    assert set(ARMOUR_MODIFIER) == set(Armour) == set(DAMAGE_TABLE)
    assert set(WEAPONS) == set(Weapon)
    for armour, column in DAMAGE_TABLE.items():
        bounds = _UPPER_BOUNDS[armour]
        assert list(bounds) == sorted(bounds), armour
        assert len(column) == 100, f"{armour}: damage column does not cover 1..100"
        assert bounds[-1] == 100 and column[-1] in (H.LEFT_LEG, H.NO_EFFECT), armour


_check()
