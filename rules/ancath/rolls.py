"""An An Cath d100 roll answered (R1.1): initiative, attack, defence, damage on the
defender's armour column (R6), manoeuvre, resistance and stopping a flight."""

from __future__ import annotations

from collections.abc import Callable

from rules.ancath.actions import advance
from rules.ancath.chances import TWO_HANDERS, resist_chance
from rules.ancath.commands import Roll
from rules.ancath.damage import choose_leg, diverts, injure, severity
from rules.ancath.events import DamageRolled, FlightStopped, Injured, RangeChanged, Rolled
from rules.ancath.frozen import maker
from rules.ancath.state import (
    Action,
    ActionContext,
    Defence,
    Ending,
    FightState,
    Kind,
    Outcome,
    Range,
    RollFor,
    Severity,
    Strike,
    copy_fighter,
    copy_state,
    copy_strike,
    succeeds,
)
from rules.ancath.steps import (
    Out,
    context,
    end,
    roll_need,
    strike_in,
    wait_for,
    with_fighter,
)
from rules.ancath.tables import Hit, Location, damage_result
from rules.ancath.turns import end_turn, initiative, start_turn
from rules.errors import InvalidRoll

__all__ = ["roll"]


def roll(state: FightState, command: Roll, out: Out) -> FightState:
    """The d100 the fight waits for, by what it is for (R1.1)."""
    value = command.value
    if type(value) is not int or not 1 <= value <= 100:
        raise InvalidRoll(f"a d100 roll is 1..100, not {value}")
    awaiting = state.awaiting
    assert awaiting is not None and awaiting.roll_for is not None
    roll_for, side, chance = awaiting.roll_for, command.side, awaiting.chance
    if roll_for is _INITIATIVE:
        return initiative(state, side, value, out)
    success = None if chance is None else succeeds(value, chance)
    out.append(_rolled(side, roll_for, value, chance, success))
    if roll_for is _ATTACK or roll_for is _TEST:
        ctx = context(state)
        index = _first(ctx.strikes, _unrolled)
        strike = copy_strike(ctx.strikes[index], roll=value, chance=chance)
        return advance(state, out, strike_in(ctx, index, strike))
    if roll_for is _DEFENCE:
        ctx = context(state)
        index = _first(ctx.strikes, _undefended)
        strike = copy_strike(ctx.strikes[index], defence_roll=value, defence_chance=chance)
        used = ctx.defences_used
        if ctx.action is not _FREE and strike.defence is not _LUCK:
            used = used | {strike.defence} if strike.defence else used
        return advance(state, out, strike_in(ctx, index, strike, defences_used=used))
    if roll_for is _DAMAGE:
        state, ctx = _damage(state, value, out)
        return state if state.outcome else advance(state, out, ctx)
    if roll_for is RollFor.MANOEUVRE:
        if not success:
            return end_turn(state, out)
        resist = resist_chance(state, 1 - side)
        if resist is None:  # a downed opponent cannot resist (R4.7)
            return end_turn(_shift_range(state, out), out)
        return wait_for(state, roll_need(1 - side, RollFor.RESIST, resist))
    if roll_for is RollFor.RESIST:
        return end_turn(state if success else _shift_range(state, out), out)
    # RollFor.STOP
    if success:
        out.append(FlightStopped(side))
        return end_turn(copy_state(state, fleeing=None), out)
    return start_turn(state, side, out, last_turn=True)


# Members read once: in Python 3.11 each read of ``Enum.MEMBER`` is a slow lookup.
_ATTACK, _TEST, _DEFENCE = RollFor.ATTACK, RollFor.TEST, RollFor.DEFENCE
_INITIATIVE, _DAMAGE = RollFor.INITIATIVE, RollFor.DAMAGE
_FREE, _LUCK = Action.FREE_ATTACK, Defence.LUCK
_rolled = maker(Rolled)


def _first(strikes: tuple[Strike, ...], blank: Callable[[Strike], bool]) -> int:
    """The index of the first strike with ``blank`` still to fill in (R4.11's order)."""
    for index, strike in enumerate(strikes):
        if blank(strike):
            return index
    raise AssertionError("the fight awaited a roll no strike needs")


def _unrolled(strike: Strike) -> bool:
    return strike.roll is None


def _undefended(strike: Strike) -> bool:
    return strike.hit and strike.defence_roll is None


def _shift_range(state: FightState, out: Out) -> FightState:
    new = Range.CLOSE if state.range is Range.STANDARD else Range.STANDARD
    out.append(RangeChanged(new))
    return copy_state(state, range=new)


def _damage(state: FightState, roll: int, out: Out) -> tuple[FightState, ActionContext]:
    """Roll on the defender's armour column and apply the hit (R6): the state, and the
    action's context with the roll in it, for ``advance`` to take (or, once the fight is
    over, to drop)."""
    ctx = context(state)
    index = next(
        i for i, s in enumerate(ctx.strikes)
        if s.hit and not s.defended and s.damage_roll is None
    )
    strike = ctx.strikes[index]
    ctx = strike_in(ctx, index, copy_strike(strike, damage_roll=roll))
    attacker, side = ctx.actor, 1 - ctx.actor
    striker, target = state.fighters[attacker], state.fighters[side]
    hit = damage_result(target.sheet.armour, roll)
    assert strike.roll is not None and strike.weapon is not None
    level = severity(strike.roll, strike.weapon)
    if diverts(hit, roll, striker.down, target.down):  # R6.3
        harm = choose_leg(target.injuries, level)
        out.append(DamageRolled(attacker, roll, hit, level, harm.location))
    else:
        location = hit.location
        out.append(DamageRolled(attacker, roll, hit, level if location else None))
        if location is None:
            if hit is Hit.KILL:
                return end(state, Outcome(Ending.KILL, attacker), out), ctx
            return state, ctx  # No Effect
        harm = injure(target.injuries, location, level)
    out.append(Injured(side, harm.location, harm.severity, harm.rule, harm.killed))
    target = copy_fighter(target, injuries=harm.injuries)
    arm_lost = harm.location is Location.WEAPON_ARM and harm.severity is Severity.DISABLED
    if arm_lost and target.weapon in TWO_HANDERS and target.weapon is target.loadout.weapon:
        target = copy_fighter(target, must_draw=True, dodge_only=True)  # R6.5
    state = with_fighter(state, side, target)
    if harm.killed:
        return end(state, Outcome(Ending.KILL, attacker), out), ctx
    if state.kind is Kind.DUEL:  # first blood (R3.2)
        return end(state, Outcome(Ending.FIRST_BLOOD, attacker), out), ctx
    return state, ctx
