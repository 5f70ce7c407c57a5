"""What each side may do now, with the current chances: prompts, ``!help`` and
simulators read this instead of re-deriving the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.ancath.chances import (
    allowed_actions,
    defence_options,
    manoeuvre_chance,
    resist_chance,
    strike_actions,
    turn_chances,
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
from rules.ancath.frozen import maker, quick
from rules.ancath.state import (
    Action,
    BonusUse,
    FightState,
    Kind,
    Need,
    copy_state,
)

__all__ = ["TURN_ACTIONS", "Option", "legal_actions"]

TURN_ACTIONS = (
    Action.ATTACK, Action.DOUBLE, Action.PRESS, Action.TEST, Action.CLOSE, Action.OPEN,
    Action.FLEE, Action.YIELD,
)


@quick
@dataclass(frozen=True, slots=True)
class Option:
    """A command the fight accepts now, with the chance(s) of its roll(s)."""

    command: Command
    chances: tuple[int, ...] = ()


def _acts(state: FightState, side: int, actions: tuple[Action, ...]) -> list[Option]:
    if state.fighters[side].must_draw:
        return []
    allowed = allowed_actions(state, side, actions)
    chances: dict[Action, tuple[int, ...]] = {}
    if any(a in _SWINGS for a in allowed):
        chances = turn_chances(state, side)
    if _CLOSE in allowed or _OPEN in allowed:
        chances[_CLOSE] = chances[_OPEN] = (manoeuvre_chance(state, side),)
    return [_option(_ACTS[side, a], chances.get(a, ())) for a in allowed]


# Read once: in Python 3.11 each read of ``Enum.MEMBER`` is a slow lookup, and the
# commands are frozen values, so every Act can be made once and shared.
_ACTION, _DEFENCE = Need.ACTION, Need.DEFENCE
_CLOSE, _OPEN = Action.CLOSE, Action.OPEN
_option = maker(Option)
_SWINGS = frozenset({Action.ATTACK, Action.DOUBLE, Action.PRESS, Action.TEST})
_ACTS = {(side, a): Act(side, a) for side in (0, 1) for a in Action}


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
    if need is _ACTION:
        options = _acts(state, side, TURN_ACTIONS)
    elif need is _DEFENCE:
        assert state.context is not None
        options = [
            _option(Defend(side, d), (c,)) for d, c in defence_options(state, state.context).items()
        ]
    elif need is Need.ORDER:
        options = [Option(ChooseOrder(side, True)), Option(ChooseOrder(side, False))]
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
            options += _acts(copy_state(state, turn=state.turn + 1), side, strikes)
        else:
            options += _acts(state, side, strikes)
    return tuple(options + _bonus_options(state))
