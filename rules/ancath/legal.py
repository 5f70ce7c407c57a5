"""What each side may do now, with the current chances: prompts, ``!help`` and
simulators read this instead of re-deriving the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.ancath.chances import (
    action_problem,
    attack_chance,
    defence_options,
    manoeuvre_chance,
    resist_chance,
    strike_actions,
)
from rules.ancath.commands import (
    AcceptYield,
    Act,
    ChooseOrder,
    Command,
    DeclareBonus,
    Defend,
    RejectYield,
    Stop,
)
from rules.ancath.state import (
    Action,
    ActionContext,
    BonusUse,
    FightState,
    Kind,
    Need,
    Strike,
)

__all__ = ["TURN_ACTIONS", "Option", "legal_actions"]

TURN_ACTIONS = (
    Action.ATTACK, Action.DOUBLE, Action.PRESS, Action.TEST, Action.CLOSE, Action.OPEN,
    Action.FLEE, Action.YIELD,
)


@dataclass(frozen=True, slots=True)
class Option:
    """A command the fight accepts now, with the chance(s) of its roll(s)."""

    command: Command
    chances: tuple[int, ...] = ()


def _action_chances(state: FightState, side: int, action: Action) -> tuple[int, ...]:
    if action in (Action.CLOSE, Action.OPEN):
        return (manoeuvre_chance(state, side),)
    if action in strike_actions() or action is Action.TEST:
        count = 2 if action is Action.DOUBLE else 1
        ctx = ActionContext(action, side, (Strike(None),) * count)
        return tuple(attack_chance(state, ctx, i) for i in range(count))
    return ()


def _acts(state: FightState, side: int, actions: tuple[Action, ...]) -> list[Option]:
    fighter = state.fighters[side]
    if fighter.must_draw:
        return []
    return [
        Option(Act(side, a), _action_chances(state, side, a))
        for a in actions
        if action_problem(state, side, a) is None
    ]


def _bonus_options(state: FightState) -> list[Option]:
    options = []
    for side, fighter in enumerate(state.fighters):
        bonus = fighter.bonus
        if bonus is None or bonus.use is not None:
            continue
        for use in BonusUse:
            if use is BonusUse.DEFENCE and state.turn > bonus.earned_turn + 1:
                continue
            options.append(Option(DeclareBonus(side, use), (bonus.amount,)))
    return options


def legal_actions(state: FightState) -> tuple[Option, ...]:
    """Every decision the fight accepts now; rolls are not listed (see ``awaiting``)."""
    awaiting = state.awaiting
    if awaiting is None:
        return ()
    side, need = awaiting.side, awaiting.need
    options: list[Option] = []
    if need is Need.ORDER:
        options = [Option(ChooseOrder(side, True)), Option(ChooseOrder(side, False))]
    elif need is Need.ACTION:
        options = _acts(state, side, TURN_ACTIONS)
    elif need is Need.DEFENCE:
        assert state.context is not None
        options = [
            Option(Defend(side, d), (c,)) for d, c in defence_options(state, state.context).items()
        ]
    elif need is Need.YIELD_ANSWER:
        if state.kind is Kind.MORTAL:
            options = [Option(AcceptYield(side, True)), Option(AcceptYield(side, False))]
        else:
            options = [Option(AcceptYield(side))]
        options.append(Option(RejectYield(side)))
    elif need in (Need.FLEE_ANSWER, Need.LAST_TURN):
        strikes = tuple(sorted(strike_actions(), key=TURN_ACTIONS.index))
        if need is Need.FLEE_ANSWER:
            stop = resist_chance(state, side)
            if stop is not None:
                options.append(Option(Stop(side), (stop,)))
            # an attack now is the answerer's last turn, the next one (R4.8)
            options += _acts(replace(state, turn=state.turn + 1), side, strikes)
        else:
            options += _acts(state, side, strikes)
    return tuple(options + _bonus_options(state))
