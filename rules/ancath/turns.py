"""An An Cath fight's setup and turns: loadouts (R3.4), initiative and the order
(R3.6), a turn's start (bonuses lapsing, R4.5; drawing a weapon, R6.5) and its end."""

from __future__ import annotations

from rules.ancath.chances import loadout_problem, secondary_weapon
from rules.ancath.commands import ChooseOrder, Wield
from rules.ancath.events import OrderChosen, Rolled, TurnStarted, WeaponDrawn
from rules.ancath.frozen import maker
from rules.ancath.state import (
    Awaiting,
    Fighter,
    FightState,
    Loadout,
    Need,
    RollFor,
    copy_fighter,
    copy_state,
)
from rules.ancath.steps import Out, escape, loadout_event, new_fighter, wait_for, with_fighter
from rules.errors import Unavailable

__all__ = ["choose_order", "end_turn", "initiative", "start_turn", "wield"]


def wield(state: FightState, command: Wield, out: Out) -> FightState:
    """A new loadout before the first action (R3.4)."""
    if state.started:
        raise Unavailable("loadouts are fixed once the first action is taken")
    fighter = state.fighters[command.side]
    loadout = Loadout(command.weapon, command.shield, command.two_handed)
    problem = loadout_problem(fighter.sheet, loadout)
    if problem:
        raise Unavailable(problem)
    fighter = new_fighter(fighter.sheet, loadout)
    out.append(loadout_event(command.side, fighter))
    return with_fighter(state, command.side, fighter)


def initiative(state: FightState, side: int, roll: int, out: Out) -> FightState:
    rolls = (roll, None) if side == 0 else (state.initiative[0], roll)
    out.append(Rolled(side, RollFor.INITIATIVE, roll, None, None))
    state = copy_state(state, initiative=rolls)
    if side == 0:
        return wait_for(state, Awaiting(1, Need.ROLL, RollFor.INITIATIVE))
    first, second = rolls
    if first == second:
        return wait_for(copy_state(state, initiative=(None, None)),
                      Awaiting(0, Need.ROLL, RollFor.INITIATIVE))
    assert first is not None and second is not None
    return wait_for(state, Awaiting(0 if first > second else 1, Need.ORDER))


def choose_order(state: FightState, command: ChooseOrder, out: Out) -> FightState:
    """The initiative winner goes first or second (R3.6)."""
    first = command.side if command.first else 1 - command.side
    out.append(OrderChosen(first))
    return start_turn(copy_state(state, initiative=(None, None)), first, out)


def start_turn(state: FightState, side: int, out: Out, last_turn: bool = False) -> FightState:
    """The next turn, ``side``'s: lapsed bonuses go (R4.5), ``side``'s penalties from the
    last turn end, and a weapon is drawn if one must be (R6.5). One new state is built."""
    turn = state.turn + 1
    fighters = [f if f.bonus is None else _lapsed(f, turn) for f in state.fighters]
    fighter = fighters[side]
    out.append(_turn_started(side, turn, last_turn))
    if fighter.must_draw and not fighter.armless:  # the turn is spent drawing (R6.5)
        weapon = secondary_weapon(fighter.sheet) or fighter.weapon
        fighters[side] = copy_fighter(fighter, press_penalty=False, pair_doubled=False,
                                      must_draw=False, weapon=weapon)
        state = copy_state(state, turn=turn, actor=side, context=None,
                           fighters=(fighters[0], fighters[1]))
        out.append(WeaponDrawn(side, weapon))
        return escape(state, out) if last_turn else end_turn(state, out)
    if fighter.press_penalty or fighter.pair_doubled or fighter.must_draw or fighter.dodge_only:
        fighters[side] = copy_fighter(fighter, press_penalty=False, pair_doubled=False,
                                      must_draw=False, dodge_only=False)
    state = copy_state(state, turn=turn, actor=side, context=None,
                       fighters=(fighters[0], fighters[1]), awaiting=_TURN_NEEDS[last_turn][side])
    if last_turn and fighter.armless:
        return escape(state, out)
    return state


_TURN_NEEDS = tuple(tuple(Awaiting(side, need) for side in (0, 1))
                    for need in (Need.ACTION, Need.LAST_TURN))
"""A turn's need, by last turn and side: frozen values, made once."""
_turn_started = maker(TurnStarted)


def _lapsed(fighter: Fighter, turn: int) -> Fighter:
    """A bonus lapses after its holder's next turn (R4.5)."""
    bonus = fighter.bonus
    if bonus is not None and bonus.earned_turn + 2 < turn:
        return copy_fighter(fighter, bonus=None)
    return fighter


def end_turn(state: FightState, out: Out) -> FightState:
    assert state.actor is not None
    side = state.actor
    fighter = state.fighters[side]
    if fighter.earned is not None:  # a new bonus replaces the old one (R4.5)
        state = with_fighter(state, side, copy_fighter(fighter, bonus=fighter.earned, earned=None))
    return start_turn(state, 1 - side, out)  # which clears the context
