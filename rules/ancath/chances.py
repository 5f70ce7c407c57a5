"""Chances and availability: loadouts (R3.4, R3.5), attack chances (R4.1-R4.3, R4.9,
R6.5), defensive options (R5), and why an action is refused (R4, R6.5).

Every function reads the state; none changes it.
"""

from __future__ import annotations

from rules.ancath.sheet import Sheet, derived_test
from rules.ancath.state import (
    Action,
    ActionContext,
    Bonus,
    BonusUse,
    Defence,
    Defences,
    Fighter,
    FightState,
    Loadout,
    Range,
)
from rules.ancath.tables import ARMOUR_MODIFIER, LUCK, WEAPONS, Location, Skill, Weapon

__all__ = [
    "action_problem",
    "allowed_actions",
    "attack_chance",
    "default_loadout",
    "defence_modifier",
    "defence_options",
    "defences_for",
    "loadout_problem",
    "manoeuvre_chance",
    "resist_chance",
    "secondary_weapon",
    "turn_chances",
]

TWO_HANDERS = frozenset({Weapon.GREATSWORD, Weapon.LAJATANG})
_STRIKES = frozenset({Action.ATTACK, Action.DOUBLE, Action.PRESS})
_PREFERENCE = (
    Weapon.GREATSWORD, Weapon.LAJATANG, Weapon.AXE, Weapon.BROADSWORD, Weapon.COUNTERSWORD,
    Weapon.SPEAR, Weapon.SHORTSWORD, Weapon.CLUB,
)


_RANKING = [(w, WEAPONS[w].skill, WEAPONS[w].damage_rating, -order)
            for order, w in enumerate(_PREFERENCE)]
"""Each weapon with its skill and tie-breaks: damage rating, then the order of preference."""


def _weapon_skill(sheet: Sheet, weapon: Weapon) -> int:
    """The skill that ranks a weapon for the default loadout; 0 if it cannot be used."""
    skills = sheet.skills
    if weapon is _COUNTERSWORD:
        return skills.get(_PAIR_SKILL, 0) if skills.get(_SHORTSWORD, 0) > 0 else 0
    return skills.get(WEAPONS[weapon].skill, 0)


def loadout_problem(sheet: Sheet, loadout: Loadout) -> str | None:
    """Why a loadout is not allowed (R3.4), or None."""
    weapon = loadout.weapon
    spec = WEAPONS[weapon]
    if _weapon_skill(sheet, weapon) <= 0:
        needs = "shortsword and countersword" if weapon is Weapon.COUNTERSWORD else weapon.value
        return f"{sheet.name} needs {needs} skill to wield {weapon.value}"
    if loadout.shield and loadout.two_handed:
        return "a shield and a two-handed grip do not go together"
    if loadout.shield:
        if sheet.skill(Skill.SHIELD) <= 0:
            return f"{sheet.name} has no shield skill"
        if not spec.shield:
            return f"no shield with a {weapon.value}"
    if loadout.two_handed and weapon is not Weapon.SPEAR:
        return "only a spear takes the two-handed option"
    return None


def default_loadout(sheet: Sheet) -> Loadout:
    """The highest weapon skill, with a shield when allowed and known (R3.4).

    Ties go to the higher damage rating, then the order of ``_PREFERENCE``.
    """
    skills, pair = sheet.skills, _weapon_skill(sheet, _COUNTERSWORD)
    ranked = [((skill, rating, order), w) for w, key, rating, order in _RANKING
              if (skill := pair if w is _COUNTERSWORD else skills.get(key, 0)) > 0]
    if not ranked:
        raise ValueError(f"{sheet.name} has no weapon skill")
    weapon = max(ranked)[1]
    shield = WEAPONS[weapon].shield and sheet.skill(Skill.SHIELD) > 0
    return Loadout(weapon, shield=shield)


def defences_for(sheet: Sheet, loadout: Loadout) -> Defences:
    """Dodge, Block and Parry for a loadout (R3.5)."""
    dodge = sheet.skill(Skill.MOVE) + ARMOUR_MODIFIER[sheet.armour]
    block: int | None = None
    if loadout.shield:
        block = sheet.skill(Skill.SHIELD)
    elif loadout.weapon is Weapon.COUNTERSWORD:
        block = sheet.skill(Skill.COUNTERSWORD)
    spec = WEAPONS[loadout.weapon]
    parry = 10 + sheet.skill(spec.skill) // 2 + spec.parry_bonus
    return Defences(dodge, block, parry)


def secondary_weapon(sheet: Sheet) -> Weapon | None:
    """The weapon a two-hander draws when the weapon arm is disabled (R6.5)."""
    options = [Weapon.AXE, Weapon.BROADSWORD, Weapon.CLUB, Weapon.SHORTSWORD, Weapon.SPEAR]
    known = [w for w in options if sheet.skill(WEAPONS[w].skill) > 0]
    if not known:
        return None
    return max(known, key=lambda w: (sheet.skill(WEAPONS[w].skill), WEAPONS[w].damage_rating))


# Members read once: in Python 3.11 each read of ``Enum.MEMBER`` is a slow lookup.
_TEST, _DOUBLE, _PRESS, _FREE = Action.TEST, Action.DOUBLE, Action.PRESS, Action.FREE_ATTACK
_ATTACK = Action.ATTACK
_ATTACK_USE, _DEFENCE_USE = (BonusUse.ATTACK,), (BonusUse.DEFENCE,)
_REDUCE_USE = (BonusUse.REDUCE, None)
_DODGE, _BLOCK, _PARRY, _LUCK = Defence.DODGE, Defence.BLOCK, Defence.PARRY, Defence.LUCK
_WEAPON_ARM, _OFF_ARM = Location.WEAPON_ARM, Location.OFF_ARM
_COUNTERSWORD, _SPEAR = Weapon.COUNTERSWORD, Weapon.SPEAR
_STANDARD = Range.STANDARD
_PAIR_SKILL, _SHORTSWORD = Skill.COUNTERSWORD, Skill.SHORTSWORD
_NO_DEFENCES: frozenset[Defence] = frozenset()


def _opponent(side: int) -> int:
    return 1 - side


def _bonus_in_effect(bonus: Bonus | None, turn: int, uses: tuple[BonusUse | None, ...],
                     age: int) -> int:
    if bonus is None or bonus.use not in uses or bonus.earned_turn != turn - age:
        return 0
    return bonus.amount


def _range_modifier(state: FightState, side: int) -> int:
    """+/-5 per step of length difference, signs swapped at close quarters (R4.9)."""
    mine = WEAPONS[state.fighters[side].weapon].length
    theirs = WEAPONS[state.fighters[_opponent(side)].weapon].length
    modifier = 5 * (mine - theirs)
    return modifier if state.range is _STANDARD else -modifier


def pair_rule(fighter: Fighter) -> bool:
    """A pair of shortswords with the off arm whole Doubles by the pair rule (R4.2)."""
    return fighter.weapon is _COUNTERSWORD and not fighter.disabled(_OFF_ARM)


def attack_chance(state: FightState, context: ActionContext, index: int) -> int:
    """The chance of roll ``index`` of an action (R1.3, R4.1-R4.5, R4.9, R6.5)."""
    side = context.actor
    fighter = state.fighters[side]
    action = context.action
    if action is _TEST:
        return derived_test(fighter.sheet.bp)
    base, modifier = _swing(state, side, fighter)
    by_pair_rule = pair_rule(fighter)
    if action is _DOUBLE and by_pair_rule and index == 1:
        base = fighter.sheet.skill(_PAIR_SKILL) // 2
    if action is _DOUBLE and not by_pair_rule:
        modifier -= 10
    elif action is _PRESS:
        modifier += 25
    if action is not _FREE:
        modifier += _bonus_in_effect(fighter.bonus, state.turn, _ATTACK_USE, 2)
    return base + modifier


def turn_chances(state: FightState, side: int) -> dict[Action, tuple[int, ...]]:
    """The chances of Attack, Double, Press and Test by ``side`` now, roll by roll, as
    :func:`attack_chance` gives them, worked out together."""
    fighter = state.fighters[side]
    base, modifier = _swing(state, side, fighter)
    modifier += _bonus_in_effect(fighter.bonus, state.turn, _ATTACK_USE, 2)
    attack = base + modifier
    if pair_rule(fighter):
        double = (attack, fighter.sheet.skill(_PAIR_SKILL) // 2 + modifier)
    else:
        double = (attack - 10, attack - 10)
    return {_ATTACK: (attack,), _DOUBLE: double, _PRESS: (attack + 25,),
            _TEST: (derived_test(fighter.sheet.bp),)}


def _swing(state: FightState, side: int, fighter: Fighter) -> tuple[int, int]:
    """The weapon's skill, halved for a hurt weapon arm, and the modifiers of every swing
    but the action's own and the bonus: range, a two-handed spear (R4.1, R4.9, R6.5)."""
    weapon = fighter.weapon
    base = fighter.sheet.skill(WEAPONS[weapon].skill)
    if fighter.disabled(_WEAPON_ARM) and weapon is not _COUNTERSWORD:
        base //= 2
    modifier = _range_modifier(state, side)
    if fighter.loadout.two_handed and weapon is _SPEAR and not (
            fighter.injured(_WEAPON_ARM) or fighter.injured(_OFF_ARM)):
        modifier += 10
    return base, modifier


def defence_modifier(state: FightState, defender: int) -> int:
    """The defender's ``defence`` bonus less the actor's ``reduce`` bonus (R4.5, R4.12)."""
    own = state.fighters[defender].bonus
    theirs = state.fighters[_opponent(defender)].bonus
    if own is None and theirs is None:
        return 0
    return _bonus_in_effect(own, state.turn, _DEFENCE_USE, 1) - _bonus_in_effect(
        theirs, state.turn, _REDUCE_USE, 2
    )


def _can_block(fighter: Fighter) -> bool:
    if fighter.defences.block is None or fighter.disabled(_OFF_ARM):
        return False
    if fighter.loadout.shield:
        return not fighter.disabled(_WEAPON_ARM)
    return not fighter.pair_doubled


def defence_options(state: FightState, context: ActionContext) -> dict[Defence, int]:
    """The defender's choices against the next hit, with chances (R5, R4.8, R4.10)."""
    defender = _opponent(context.actor)
    fighter = state.fighters[defender]
    free = context.action is _FREE
    if state.fleeing == defender or (fighter.press_penalty and not free):
        return {_LUCK: LUCK}
    used = _NO_DEFENCES if free else context.defences_used
    modifier = 0 if free else defence_modifier(state, defender)
    options: dict[Defence, int] = {}
    scores = fighter.defences
    if _DODGE not in used and not fighter.down:
        options[_DODGE] = scores.dodge + modifier
    if not fighter.dodge_only:
        if _BLOCK not in used and _can_block(fighter) and scores.block is not None:
            options[_BLOCK] = scores.block + modifier
        if _PARRY not in used:
            options[_PARRY] = scores.parry + modifier
    options[_LUCK] = LUCK
    return options


def manoeuvre_chance(state: FightState, side: int) -> int:
    """The actor's own Dodge to Close or Open: no bonus applies (R4.7, R4.12)."""
    return state.fighters[side].defences.dodge


def resist_chance(state: FightState, side: int) -> int | None:
    """A defensive Dodge against a Close, Open or flight; None when it cannot be tried
    (a disabled leg) and Luck under the Press penalty (R4.7, R4.8, R4.12)."""
    fighter = state.fighters[side]
    if fighter.down:
        return None
    if fighter.press_penalty:
        return LUCK
    return fighter.defences.dodge + defence_modifier(state, side)


def action_problem(state: FightState, side: int, action: Action) -> str | None:
    """Why ``side`` may not take ``action`` now (R4, R6.5), or None."""
    fighter = state.fighters[side]
    return _problem(fighter, fighter.armless, state.range, action)


def allowed_actions(state: FightState, side: int, actions: tuple[Action, ...]) -> list[Action]:
    """Those of ``actions`` that ``side`` may take now: :func:`action_problem` finds no
    problem with them (the fighter read once for all)."""
    fighter = state.fighters[side]
    armless, at = fighter.armless, state.range
    return [a for a in actions if _problem(fighter, armless, at, a) is None]


def _problem(fighter: Fighter, armless: bool, at: Range, action: Action) -> str | None:
    if action is _FREE:
        return "a free attack only follows a slow weapon's wild miss"
    if action in _STRIKES:
        if armless:
            return "both arms disabled: only yield or flee"
        if action is _DOUBLE:
            if not WEAPONS[fighter.weapon].can_double:
                return f"no double with a {fighter.weapon.value}"
            if fighter.weapon is _COUNTERSWORD and fighter.disabled(_WEAPON_ARM):
                return "weapon arm disabled"
        return None
    if armless and action not in _UNARMED:
        return "both arms disabled: only yield or flee"
    if action in _MOVES:
        if fighter.down:
            leg = "right" if fighter.disabled(Location.RIGHT_LEG) else "left"
            return f"{leg} leg disabled"
        if action is _OPEN and at is not Range.CLOSE:
            return "already at standard range"
        if action is not _OPEN and at is not _STANDARD:
            return "at close quarters (open first)"
    return None


_UNARMED = frozenset({Action.YIELD, Action.FLEE})
_MOVES = frozenset({Action.CLOSE, Action.OPEN, Action.FLEE})
_OPEN = Action.OPEN


def strike_actions() -> frozenset[Action]:
    """The actions a flight's last turn allows (R4.8)."""
    return _STRIKES
