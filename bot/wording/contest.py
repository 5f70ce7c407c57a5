"""Simple Contest events into chat lines (R9): a step in one line, then who moves."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.wording.common import Award, Cast, join, options, roll_how
from rules.common import Yield
from rules.contest.model import (
    ContestFighter,
    ContestState,
    FightEnded,
    Gravity,
    Need,
    Rolled,
    RoundResolved,
    Strike,
    Struck,
)
from storage.records import WarriorRecord

__all__ = ["describe", "prompt", "sheet_line", "status", "waiting"]

_DEGREE = ("marginal", "minor", "major", "complete")
_ENDINGS = {"dead": "the foe is dead", "dying": "the foe is dying", "out": "the foe is out",
            "yield": "by yield", "forfeit": "by forfeit", "moderator": "by a moderator's ruling"}


def describe(events: Sequence[Any], cast: Cast, awarded: Sequence[Award] | None = None) -> str:
    """One line for a run of events; this system awards no BP (R9.6)."""
    names = cast.names
    parts = []
    for event in events:
        match event:
            case Struck(side=side):
                parts.append(f"{names[side]} strikes.")
            case Rolled(side=side, roll=roll, rating=rating, level=level):
                parts.append(f"{names[side]} [{roll} vs {rating}: {level.name.lower()}]")
            case RoundResolved(winner=None):
                parts.append("Equal rolls: no effect.")
            case RoundResolved(winner=winner, degree=degree, gravity=gravity, ratings=ratings):
                assert winner is not None
                loser = names[1 - winner]
                blow = "no harm" if gravity is Gravity.NOTHING else gravity.name.lower()
                parts.append(f"{names[winner]} wins a {_DEGREE[degree]} victory: {loser} "
                             f"{blow} (ratings {ratings[0]}/{ratings[1]}).")
            case FightEnded(outcome=outcome):
                if outcome.winner is None:
                    parts.append("The fight is a draw.")
                else:
                    parts.append(f"{names[outcome.winner]} wins: "
                                 f"{_ENDINGS.get(outcome.ending, outcome.ending)}.")
    return " ".join(parts)


def prompt(state: ContestState, manual: bool, cast: Cast, word: Callable[[Any], str]) -> str:
    """Who must move next, with their options as ``word`` says them."""
    awaiting = state.awaiting
    if awaiting is None:
        return ""
    side = awaiting.side
    who = cast.labels[side]
    if awaiting.need is Need.STRIKE:
        return f"Round {state.round}: {who}, {options([word(Strike(side)), word(Yield(side))])}"
    return f"{who}, roll d20 against {awaiting.chance}: {roll_how(20)}"


def waiting(state: ContestState) -> str:
    awaiting = state.awaiting
    if awaiting is None or awaiting.need is not Need.ROLL:
        return ""
    return f"{state.sides[awaiting.side].fighter.name}'s d20 roll"


def status(state: ContestState, manual: bool, cast: Cast, word: Callable[[Any], str]) -> str:
    glance = f"Round {state.round}. " + " / ".join(
        f"{s.fighter.name}: rating {s.rating}, wounds {s.wounds}, injuries {s.injuries}"
        + (", dazed" if s.dazed else "") for s in state.sides) + "."
    roll = waiting(state)
    if roll:
        return f"{glance} Waiting for {roll}."
    return join(glance, prompt(state, manual, cast, word))


def sheet_line(record: WarriorRecord[ContestFighter], owner: str) -> str:
    """A fighter's close combat rating, weapon, armour and status, in one line."""
    f = record.sheet
    masteries = "W" * (f.masteries > 0) + (str(f.masteries) if f.masteries > 1 else "")
    return (f"{f.name} (Simple Contest, {owner}): close combat {f.rating}{masteries}, "
            f"{f.weapon}^{f.edge}{'W' if f.edge_mastery else ''}, armour {f.armour}; "
            f"{record.status}")
