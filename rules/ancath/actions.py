"""An An Cath action from its choice to its after-effects: attack, double, press and
test strikes filled in roll by roll in R4.11's order, defences (R5), manoeuvres, yield
and flight (R4.7-R4.8), test bonuses (R4.4) and the free attack (R4.10)."""

from __future__ import annotations

from rules.ancath.chances import (
    action_problem,
    attack_chance,
    defence_options,
    manoeuvre_chance,
    pair_rule,
    resist_chance,
    strike_actions,
)
from rules.ancath.commands import Act, Defend
from rules.ancath.events import ActionTaken, BonusEarned, DefenceChosen
from rules.ancath.frozen import maker
from rules.ancath.state import (
    Action,
    ActionContext,
    Awaiting,
    Bonus,
    Defence,
    Fighter,
    FightState,
    Need,
    RollFor,
    Strike,
    copy_fighter,
    copy_state,
    copy_strike,
)
from rules.ancath.steps import (
    Out,
    context,
    escape,
    name_of,
    roll_need,
    strike_in,
    wait_for,
    with_fighter,
)
from rules.ancath.tables import WEAPONS, Location
from rules.ancath.turns import end_turn, start_turn
from rules.errors import Unavailable

__all__ = ["act", "advance", "defend"]


def act(state: FightState, command: Act, out: Out) -> FightState:
    """An action chosen, or a last attack against a flight (R4)."""
    need = state.awaiting.need if state.awaiting else None
    side, action = command.side, command.action
    problem = action_problem(state, side, action)
    if problem is None and need is not _ACTION and action not in _STRIKING:
        problem = "a flight's last turn is attack, double or press"
    if problem is None and state.fighters[side].must_draw:
        problem = "weapon arm disabled, the next turn goes to drawing a weapon"
    if problem:
        raise Unavailable(f"{name_of(state, side)} cannot {action.value}: {problem}")
    if need is _FLEE_ANSWER:
        state = start_turn(state, side, out, last_turn=True)
    return _begin(state, side, action, out)


def _begin(state: FightState, side: int, action: Action, out: Out) -> FightState:
    out.append(_action_taken(side, action))
    fighter = state.fighters[side]
    if action in _STRIKING:
        count = 2 if action is _DOUBLE else 1
        ctx = ActionContext(action, side, (Strike(fighter.weapon),) * count)
        return advance(_started(state), out, ctx)
    if action is _TEST:
        return advance(_started(state), out, ActionContext(action, side, _TESTING))
    state = copy_state(state, started=True, context=ActionContext(action, side))
    opponent = 1 - side
    if action is Action.YIELD:
        return wait_for(state, Awaiting(opponent, Need.YIELD_ANSWER))
    if action in (Action.CLOSE, Action.OPEN):
        chance = manoeuvre_chance(state, side)
        return wait_for(state, roll_need(side, RollFor.MANOEUVRE, chance))
    # Flee (R4.8): the opponent answers, unless there is nothing to answer with.
    state = copy_state(state, fleeing=side)
    if resist_chance(state, opponent) is None and not _can_strike(state.fighters[opponent]):
        return escape(state, out)
    return wait_for(state, Awaiting(opponent, Need.FLEE_ANSWER))


def _started(state: FightState) -> FightState:
    """Loadouts are fixed from the first action on (R3.4)."""
    return state if state.started else copy_state(state, started=True)


_STRIKING = strike_actions()
_TESTING = (Strike(None),)


def _can_strike(fighter: Fighter) -> bool:
    return not (fighter.armless or fighter.must_draw)


def advance(state: FightState, out: Out, ctx: ActionContext | None = None) -> FightState:
    """Ask for the next blank of the action in R4.11's order, or finish it. ``ctx``, when
    given, is the action's context newer than ``state.context``: the state taking it and
    the need is built once."""
    if ctx is None:
        ctx = context(state)
    actor, defender = ctx.actor, 1 - ctx.actor
    for index, strike in enumerate(ctx.strikes):
        if strike.roll is None:
            roll_for = _TEST_ROLL if ctx.action is _TEST else _ATTACK_ROLL
            chance = attack_chance(state, ctx, index)
            return copy_state(state, context=ctx, awaiting=roll_need(actor, roll_for, chance))
    for index, strike in enumerate(ctx.strikes):
        if not strike.hit:
            continue
        if strike.defence is None:
            options = defence_options(state, ctx)
            if len(options) > 1:
                return copy_state(state, context=ctx, awaiting=_DEFENCE_NEEDS[defender])
            ctx = _choose_defence(ctx, index, Defence.LUCK, out)  # nothing else left (R5.1)
            strike = ctx.strikes[index]
        if strike.defence_roll is None:
            assert strike.defence is not None
            chance = defence_options(state, ctx)[strike.defence]
            awaiting = roll_need(defender, _DEFENCE_ROLL, chance)
            return copy_state(state, context=ctx, awaiting=awaiting)
    if ctx.action is not _TEST:
        for strike in ctx.strikes:
            if strike.hit and not strike.defended and strike.damage_roll is None:
                return copy_state(state, context=ctx, awaiting=roll_need(actor, _DAMAGE_ROLL))
    return _finish(state, ctx, out)


# Members read once: in Python 3.11 each read of ``Enum.MEMBER`` is a slow lookup.
_TEST, _DOUBLE, _PRESS, _FREE = Action.TEST, Action.DOUBLE, Action.PRESS, Action.FREE_ATTACK
_SWINGS = (Action.ATTACK, Action.PRESS)
_ACTION, _FLEE_ANSWER = Need.ACTION, Need.FLEE_ANSWER
_DEFENCE_NEEDS = (Awaiting(0, Need.DEFENCE), Awaiting(1, Need.DEFENCE))
_TEST_ROLL, _ATTACK_ROLL = RollFor.TEST, RollFor.ATTACK
_action_taken = maker(ActionTaken)
_DEFENCE_ROLL, _DAMAGE_ROLL = RollFor.DEFENCE, RollFor.DAMAGE


def _choose_defence(ctx: ActionContext, index: int, defence: Defence, out: Out) -> ActionContext:
    out.append(DefenceChosen(1 - ctx.actor, defence))
    return strike_in(ctx, index, copy_strike(ctx.strikes[index], defence=defence))


def defend(state: FightState, command: Defend, out: Out) -> FightState:
    """The defence against the next hit not yet defended (R5.1)."""
    ctx = context(state)
    options = defence_options(state, ctx)
    if command.defence not in options:
        raise Unavailable(
            f"{name_of(state, command.side)} cannot {command.defence.value}: "
            f"{_defence_problem(state, command.side, command.defence)}; "
            f"choose {' or '.join(d.value for d in options)}"
        )
    index = next(i for i, s in enumerate(ctx.strikes) if s.hit and s.defence is None)
    return advance(state, out, _choose_defence(ctx, index, command.defence, out))


def _defence_problem(state: FightState, side: int, defence: Defence) -> str:
    fighter = state.fighters[side]
    ctx = context(state)
    if state.fleeing == side:
        return "a fleeing warrior defends only with luck"
    if fighter.press_penalty:
        return "pressed last turn, only luck"
    if defence in ctx.defences_used:
        return f"{defence.value} already used this turn"
    if defence is Defence.DODGE:
        leg = "right" if fighter.disabled(Location.RIGHT_LEG) else "left"
        return f"{leg} leg disabled"
    if fighter.dodge_only:
        return "drawing a new weapon, only dodge or luck"
    if fighter.defences.block is None:
        return "nothing to block with"
    if fighter.pair_doubled:
        return "both swords were just used to double"
    return "arm disabled"


def _finish(state: FightState, ctx: ActionContext, out: Out) -> FightState:
    """An action's rolls are all made (``ctx``): its after-effects, then the next turn,
    which clears the context."""
    side = ctx.actor
    fighter = state.fighters[side]
    if ctx.action is _FREE:
        return end_turn(state, out)
    if ctx.action is _TEST:
        strike = ctx.strikes[0]
        amount = _test_bonus(strike)
        if amount:
            fighter = copy_fighter(fighter, earned=Bonus(amount, state.turn))
            out.append(BonusEarned(side, amount))
    elif ctx.action is _PRESS:
        fighter = copy_fighter(fighter, press_penalty=True)
    elif ctx.action is _DOUBLE:
        if pair_rule(fighter):
            fighter = copy_fighter(fighter, pair_doubled=True)
        else:
            fighter = copy_fighter(fighter, press_penalty=True)
    if fighter is not state.fighters[side]:
        state = with_fighter(state, side, fighter)
    if state.fleeing is not None:  # this was the last turn against a flight (R4.8)
        if state.fighters[state.fleeing].down:
            return end_turn(copy_state(state, fleeing=None), out)
        return escape(state, out)
    opponent = state.fighters[1 - side]
    strike = ctx.strikes[0]
    if (ctx.action in _SWINGS and strike.roll is not None
            and strike.roll >= 81 and not strike.hit and WEAPONS[fighter.weapon].slow
            and not WEAPONS[opponent.weapon].slow and _can_strike(opponent)):
        out.append(ActionTaken(1 - side, Action.FREE_ATTACK))  # R4.10
        free = ActionContext(Action.FREE_ATTACK, 1 - side, (Strike(opponent.weapon),))
        return advance(state, out, free)
    return end_turn(state, out)


def _test_bonus(strike: Strike) -> int:
    """0, 10 or 30 from a Test and the defence against it (R4.4)."""
    if not strike.hit:
        return 0
    if not strike.defended:
        return 30
    assert strike.defence_roll is not None and strike.roll is not None
    return 10 if strike.defence_roll > strike.roll else 0
