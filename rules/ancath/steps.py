"""Small steps every part of the An Cath engine takes on a state: a fighter made or
replaced, a strike filled in, a need awaited, the fight ended with its rewards (R7.2)."""

from __future__ import annotations

from typing import Any

from rules.ancath.chances import defences_for
from rules.ancath.events import Event, FightEnded, LoadoutSet
from rules.ancath.frozen import maker
from rules.ancath.rewards import rewards
from rules.ancath.sheet import Sheet
from rules.ancath.state import (
    ActionContext,
    Awaiting,
    Ending,
    Fighter,
    FightState,
    Loadout,
    Need,
    Outcome,
    RollFor,
    Strike,
    copy_context,
    copy_state,
)

__all__ = [
    "Out", "context", "end", "escape", "loadout_event", "name_of", "new_fighter", "roll_need",
    "strike_in", "wait_for", "with_fighter",
]

Out = list[Event]
"""The events a step appends to, in order."""


def name_of(state: FightState, side: int) -> str:
    return state.fighters[side].name


def new_fighter(sheet: Sheet, loadout: Loadout) -> Fighter:
    return _fighter(sheet, loadout, defences_for(sheet, loadout), loadout.weapon, {})


def loadout_event(side: int, f: Fighter) -> LoadoutSet:
    d = f.defences
    return _loadout_set(side, f.loadout.weapon, f.loadout.shield, f.loadout.two_handed,
                        d.dodge, d.block, d.parry)


def with_fighter(state: FightState, side: int, fighter: Fighter) -> FightState:
    pair = (fighter, state.fighters[1]) if side == 0 else (state.fighters[0], fighter)
    return copy_state(state, fighters=pair)


def context(state: FightState) -> ActionContext:
    assert state.context is not None
    return state.context


def strike_in(ctx: ActionContext, index: int, strike: Strike, **changes: Any) -> ActionContext:
    """The action's context with strike ``index`` filled in (and ``changes``)."""
    strikes = (*ctx.strikes[:index], strike, *ctx.strikes[index + 1:])
    return copy_context(ctx, strikes=strikes, **changes)


def wait_for(state: FightState, awaiting: Awaiting) -> FightState:
    return copy_state(state, awaiting=awaiting)


def roll_need(side: int, roll_for: RollFor, chance: int | None = None) -> Awaiting:
    """The need of a d100 roll by ``side``: a frozen value, made once for each ``roll_for``
    and chance (a chance is a small whole number, so there are few) and then shared."""
    try:
        return _ROLL_NEEDS[side, roll_for, chance]
    except KeyError:
        made = _ROLL_NEEDS[side, roll_for, chance] = Awaiting(side, _ROLL, roll_for, chance)
        return made


_ROLL_NEEDS: dict[tuple[int, RollFor, int | None], Awaiting] = {}
_fighter, _loadout_set = maker(Fighter), maker(LoadoutSet)
_ROLL = Need.ROLL


def escape(state: FightState, out: Out) -> FightState:
    assert state.fleeing is not None
    return end(state, Outcome(Ending.ESCAPE, 1 - state.fleeing), out)


def end(state: FightState, outcome: Outcome, out: Out) -> FightState:
    out.append(FightEnded(outcome))
    out.extend(rewards(state.kind, outcome))
    return copy_state(state, outcome=outcome, awaiting=None, context=None)
