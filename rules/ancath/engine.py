"""The An Cath fight engine: ``apply(state, command) -> (new_state, events)``.

Theory of operation. A fight is a :class:`FightState` plus a command list. ``start``
builds the first state from two sheets; ``apply`` takes one command and returns the
next state and the events it caused, or raises a :class:`~rules.errors.RulesError`
and changes nothing (states are frozen, so a refusal cannot leave half a change).

``state.awaiting`` always names the side the fight waits for and the kind of input
(:class:`Need`): a decision (an action, a defence, an answer) or a d100 roll, with the
purpose and chance of the roll. Which commands answer which need is the table
``EXPECTS``; Wield, DeclareBonus, Forfeit and ModeratorEnd are checked on their own.

An action (Attack, Double, Press, Test, or a free attack) is a tuple of strikes that
fill in, roll by roll, in R4.11's order: every attack roll, then each hit's defence
choice and roll, then each undefended hit's damage roll. ``actions.advance`` finds the
first blank and asks for it, so the order lives in one place and replays are exact.

This module checks a command and hands it on: ``turns`` (loadouts, initiative, a turn's
start and end), ``actions`` (an action from its choice to its after-effects), ``rolls``
(each d100 the fight waits for, damage included), ``answers`` (yields, stopping a flight,
bonus declarations) and ``steps`` (the small state changes they share, and the end).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.ancath.actions import act, defend
from rules.ancath.answers import accept_yield, declare, reject_yield, stop
from rules.ancath.chances import default_loadout
from rules.ancath.commands import (
    AcceptYield,
    Act,
    ChooseOrder,
    Command,
    DeclareBonus,
    Defend,
    Forfeit,
    ModeratorEnd,
    RejectYield,
    Roll,
    Stop,
    Wield,
)
from rules.ancath.events import Event, FightStarted
from rules.ancath.rolls import roll
from rules.ancath.sheet import Sheet, Status
from rules.ancath.state import Awaiting, Ending, FightState, Kind, Need, Outcome, RollFor
from rules.ancath.steps import Out, end, loadout_event, name_of, new_fighter
from rules.ancath.turns import choose_order, wield
from rules.common import check_command, undo_point
from rules.errors import IllegalCommand, NotYourTurn

__all__ = ["EXPECTS", "apply", "start", "undo_point"]

EXPECTS: dict[Need, tuple[type, ...]] = {
    Need.ORDER: (ChooseOrder,),
    Need.ACTION: (Act,),
    Need.DEFENCE: (Defend,),
    Need.YIELD_ANSWER: (AcceptYield, RejectYield),
    Need.FLEE_ANSWER: (Stop, Act),
    Need.LAST_TURN: (Act,),
    Need.ROLL: (Roll,),
}
"""Which commands answer each need; anything else is refused."""

_NEED_WORDS = {
    Need.ORDER: "choose to go first or second",
    Need.ACTION: "choose an action",
    Need.DEFENCE: "choose a defence",
    Need.YIELD_ANSWER: "accept or reject the yield",
    Need.FLEE_ANSWER: "stop the flight or take a last attack",
    Need.LAST_TURN: "take a last attack, double or press",
}


def start(kind: Kind, challenger: Sheet, defender: Sheet) -> tuple[FightState, tuple[Event, ...]]:
    """A new fight at standard range with default loadouts (R3.1-R3.7)."""
    for sheet in (challenger, defender):
        if sheet.status is not Status.FREE:
            state = "a prisoner" if sheet.status is Status.PRISONER else sheet.status.value
            raise IllegalCommand(f"{sheet.name} is {state} and cannot fight")
    if challenger.name.casefold() == defender.name.casefold():
        raise IllegalCommand("a warrior cannot fight themself")
    fighters = (new_fighter(challenger, default_loadout(challenger)),
                new_fighter(defender, default_loadout(defender)))
    out: Out = [FightStarted(kind, (challenger.name, defender.name))]
    out += [loadout_event(side, f) for side, f in enumerate(fighters)]
    if challenger.bp != defender.bp:
        awaiting = Awaiting(0 if challenger.bp > defender.bp else 1, Need.ORDER)
    else:
        awaiting = Awaiting(0, Need.ROLL, RollFor.INITIATIVE)
    return FightState(kind, fighters, awaiting), tuple(out)


def apply(state: FightState, command: Command) -> tuple[FightState, tuple[Event, ...]]:
    """Apply one command; raise a RulesError, changing nothing, when it is refused."""
    check_command(state, command)
    out: Out = []
    handler = _HANDLERS.get(type(command))
    if handler is None:  # checked on its own, or no command of this engine
        return _apply_other(state, command, out), tuple(out)
    awaiting = state.awaiting
    assert awaiting is not None  # check_command saw to it
    _check_turn(state, command, awaiting)
    return handler(state, command, out), tuple(out)


def _apply_other(state: FightState, command: Command, out: Out) -> FightState:
    if isinstance(command, ModeratorEnd):
        ending = Ending.DRAW if command.winner is None else Ending.MODERATOR
        return end(state, Outcome(ending, command.winner), out)
    if isinstance(command, Wield):
        return wield(state, command, out)
    if isinstance(command, DeclareBonus):
        return declare(state, command, out)
    awaiting = state.awaiting
    assert awaiting is not None  # check_command saw to it
    if isinstance(command, Forfeit):
        if command.side != awaiting.side:
            raise NotYourTurn(f"waiting for {name_of(state, awaiting.side)} to "
                              f"{_need_words(awaiting)}")
        return end(state, Outcome(Ending.FORFEIT, 1 - command.side), out)
    _check_turn(state, command, awaiting)
    raise AssertionError("a command of a kind this engine has no handler for")


def _check_turn(state: FightState, command: Any, awaiting: Awaiting) -> None:
    """The command is by the side the fight waits for, and answers what it waits for."""
    if command.side != awaiting.side:
        raise NotYourTurn(f"waiting for {name_of(state, awaiting.side)} to {_need_words(awaiting)}")
    if not isinstance(command, EXPECTS[awaiting.need]):
        raise IllegalCommand(f"{name_of(state, command.side)}, first {_need_words(awaiting)}")


def _need_words(awaiting: Awaiting) -> str:
    if awaiting.need is Need.ROLL:
        assert awaiting.roll_for is not None
        return f"roll d100 for {awaiting.roll_for.value}"
    return _NEED_WORDS[awaiting.need]


_HANDLERS: dict[type, Callable[[FightState, Any, Out], FightState]] = {
    ChooseOrder: choose_order,
    Act: act,
    Defend: defend,
    AcceptYield: accept_yield,
    RejectYield: reject_yield,
    Stop: stop,
    Roll: roll,
}
