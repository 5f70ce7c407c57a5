"""An Cath answers outside an action's rolls: a yield accepted or rejected (R4.6), a
flight stopped (R4.8), a test bonus declared (R4.5) and the chances it changes."""

from __future__ import annotations

from rules.ancath.actions import advance
from rules.ancath.chances import resist_chance
from rules.ancath.commands import AcceptYield, DeclareBonus, RejectYield, Stop
from rules.ancath.events import BonusDeclared, YieldAnswered
from rules.ancath.state import (
    Awaiting,
    BonusUse,
    Ending,
    FightState,
    Kind,
    Need,
    Outcome,
    RollFor,
    copy_awaiting,
    copy_bonus,
    copy_fighter,
)
from rules.ancath.steps import Out, end, name_of, wait_for, with_fighter
from rules.ancath.turns import end_turn
from rules.errors import Unavailable

__all__ = ["accept_yield", "declare", "reject_yield", "stop"]


def accept_yield(state: FightState, command: AcceptYield, out: Out) -> FightState:
    """A yield accepted: released, or in a mortal fight taken prisoner (R4.6)."""
    prisoner = command.prisoner
    if state.kind is Kind.MORTAL:
        prisoner = True if prisoner is None else prisoner
    elif prisoner:
        raise Unavailable("prisoners are taken only in mortal fights")
    if command.ransom and not prisoner:
        raise Unavailable("a ransom goes with taking a prisoner")
    out.append(YieldAnswered(command.side, True))
    outcome = Outcome(Ending.YIELD, command.side, bool(prisoner), command.ransom or None)
    return end(state, outcome, out)


def reject_yield(state: FightState, command: RejectYield, out: Out) -> FightState:
    """A yield rejected: the fight goes on."""
    out.append(YieldAnswered(command.side, False))
    return end_turn(state, out)


def stop(state: FightState, command: Stop, out: Out) -> FightState:
    """An attempt to stop a flight, rolled against the resist chance (R4.8)."""
    chance = resist_chance(state, command.side)
    if chance is None:
        raise Unavailable(f"{name_of(state, command.side)} cannot stop the flight: leg disabled")
    return wait_for(state, Awaiting(command.side, Need.ROLL, RollFor.STOP, chance))


def declare(state: FightState, command: DeclareBonus, out: Out) -> FightState:
    """A test bonus declared for attack or defence (R4.5)."""
    fighter = state.fighters[command.side]
    bonus = fighter.bonus
    if bonus is None:
        raise Unavailable(f"{fighter.name} holds no test bonus")
    if bonus.use is not None:
        raise Unavailable(f"{fighter.name}'s bonus is already declared for {bonus.use.value}")
    if command.use is BonusUse.DEFENCE and state.turn > bonus.earned_turn + 1:
        raise Unavailable("too late to use the bonus for defence")
    out.append(BonusDeclared(command.side, command.use))
    fighter = copy_fighter(fighter, bonus=copy_bonus(bonus, use=command.use))
    state = with_fighter(state, command.side, fighter)
    return _rechance(state, out)


def _rechance(state: FightState, out: Out) -> FightState:
    """Recompute a pending roll's chance after a bonus declaration."""
    awaiting = state.awaiting
    if awaiting is None or awaiting.need is not Need.ROLL:
        return state
    if awaiting.roll_for in (RollFor.ATTACK, RollFor.TEST, RollFor.DEFENCE):
        return advance(state, out)
    if awaiting.roll_for in (RollFor.RESIST, RollFor.STOP):
        return wait_for(state, copy_awaiting(awaiting, chance=resist_chance(state, awaiting.side)))
    return state
