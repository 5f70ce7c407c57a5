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
    "attack_chance",
    "default_loadout",
    "defence_modifier",
    "defence_options",
    "defences_for",
    "loadout_problem",
    "manoeuvre_chance",
    "resist_chance",
    "secondary_weapon",
]

TWO_HANDERS = frozenset({Weapon.GREATSWORD, Weapon.LAJATANG})
_STRIKES = frozenset({Action.ATTACK, Action.DOUBLE, Action.PRESS})
_PREFERENCE = (
    Weapon.GREATSWORD, Weapon.LAJATANG, Weapon.AXE, Weapon.BROADSWORD, Weapon.COUNTERSWORD,
    Weapon.SPEAR, Weapon.SHORTSWORD, Weapon.CLUB,
)


def _weapon_skill(sheet: Sheet, weapon: Weapon) -> int:
    """The skill that ranks a weapon for the default loadout; 0 if it cannot be used."""
    if weapon is Weapon.COUNTERSWORD:
        ok = sheet.skill(Skill.SHORTSWORD) > 0
        return sheet.skill(Skill.COUNTERSWORD) if ok else 0
    return sheet.skill(WEAPONS[weapon].skill)


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
    usable = [w for w in _PREFERENCE if _weapon_skill(sheet, w) > 0]
    if not usable:
        raise ValueError(f"{sheet.name} has no weapon skill")
    weapon = max(
        usable,
        key=lambda w: (_weapon_skill(sheet, w), WEAPONS[w].damage_rating, -_PREFERENCE.index(w)),
    )
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
    return modifier if state.range is Range.STANDARD else -modifier


def pair_rule(fighter: Fighter) -> bool:
    """A pair of shortswords with the off arm whole Doubles by the pair rule (R4.2)."""
    return fighter.weapon is Weapon.COUNTERSWORD and not fighter.disabled(Location.OFF_ARM)


def attack_chance(state: FightState, context: ActionContext, index: int) -> int:
    """The chance of roll ``index`` of an action (R1.3, R4.1-R4.5, R4.9, R6.5)."""
    side = context.actor
    fighter = state.fighters[side]
    sheet = fighter.sheet
    action = context.action
    if action is Action.TEST:
        return derived_test(sheet.bp)
    weapon = fighter.weapon
    by_pair_rule = pair_rule(fighter)
    if action is Action.DOUBLE and by_pair_rule and index == 1:
        base = sheet.skill(Skill.COUNTERSWORD) // 2
    else:
        base = sheet.skill(WEAPONS[weapon].skill)
        if fighter.disabled(Location.WEAPON_ARM) and weapon is not Weapon.COUNTERSWORD:
            base //= 2
    modifier = _range_modifier(state, side)
    if action is Action.DOUBLE and not by_pair_rule:
        modifier -= 10
    elif action is Action.PRESS:
        modifier += 25
    arms_whole = not (fighter.injured(Location.WEAPON_ARM) or fighter.injured(Location.OFF_ARM))
    if fighter.loadout.two_handed and weapon is Weapon.SPEAR and arms_whole:
        modifier += 10
    if action is not Action.FREE_ATTACK:
        modifier += _bonus_in_effect(fighter.bonus, state.turn, (BonusUse.ATTACK,), 2)
    return base + modifier


def defence_modifier(state: FightState, defender: int) -> int:
    """The defender's ``defence`` bonus less the actor's ``reduce`` bonus (R4.5, R4.12)."""
    own = state.fighters[defender].bonus
    theirs = state.fighters[_opponent(defender)].bonus
    return _bonus_in_effect(own, state.turn, (BonusUse.DEFENCE,), 1) - _bonus_in_effect(
        theirs, state.turn, (BonusUse.REDUCE, None), 2
    )


def _can_block(fighter: Fighter) -> bool:
    if fighter.defences.block is None or fighter.disabled(Location.OFF_ARM):
        return False
    if fighter.loadout.shield:
        return not fighter.disabled(Location.WEAPON_ARM)
    return not fighter.pair_doubled


def defence_options(state: FightState, context: ActionContext) -> dict[Defence, int]:
    """The defender's choices against the next hit, with chances (R5, R4.8, R4.10)."""
    defender = _opponent(context.actor)
    fighter = state.fighters[defender]
    free = context.action is Action.FREE_ATTACK
    if state.fleeing == defender or (fighter.press_penalty and not free):
        return {Defence.LUCK: LUCK}
    used = frozenset() if free else context.defences_used
    modifier = 0 if free else defence_modifier(state, defender)
    options: dict[Defence, int] = {}
    scores = fighter.defences
    if Defence.DODGE not in used and not fighter.down:
        options[Defence.DODGE] = scores.dodge + modifier
    if not fighter.dodge_only:
        if Defence.BLOCK not in used and _can_block(fighter) and scores.block is not None:
            options[Defence.BLOCK] = scores.block + modifier
        if Defence.PARRY not in used:
            options[Defence.PARRY] = scores.parry + modifier
    options[Defence.LUCK] = LUCK
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
    if action is Action.FREE_ATTACK:
        return "a free attack only follows a slow weapon's wild miss"
    if fighter.armless and action not in (Action.YIELD, Action.FLEE):
        return "both arms disabled: only yield or flee"
    if action is Action.DOUBLE:
        if not WEAPONS[fighter.weapon].can_double:
            return f"no double with a {fighter.weapon.value}"
        if fighter.weapon is Weapon.COUNTERSWORD and fighter.disabled(Location.WEAPON_ARM):
            return "weapon arm disabled"
    if action in (Action.CLOSE, Action.OPEN, Action.FLEE):
        if fighter.down:
            leg = "right" if fighter.disabled(Location.RIGHT_LEG) else "left"
            return f"{leg} leg disabled"
        if action is Action.OPEN and state.range is not Range.CLOSE:
            return "already at standard range"
        if action is not Action.OPEN and state.range is not Range.STANDARD:
            return "at close quarters (open first)"
    return None


def strike_actions() -> frozenset[Action]:
    """The actions a flight's last turn allows (R4.8)."""
    return _STRIKES
