"""Simple Contest events into chat lines (R9)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.contest.model import (
    ContestState,
    FightEnded,
    Gravity,
    Need,
    Rolled,
    RoundResolved,
    Struck,
)

__all__ = ["describe", "prompt", "status"]

_DEGREE = ("marginal", "minor", "major", "complete")
_ENDINGS = {"dead": "the foe is dead", "dying": "the foe is dying", "out": "the foe is out",
            "yield": "by yield", "forfeit": "by forfeit", "moderator": "by a moderator's ruling"}


def describe(events: Sequence[Any], names: Sequence[str]) -> str:
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


def prompt(state: ContestState, manual: bool) -> str:
    awaiting = state.awaiting
    if awaiting is None:
        return ""
    name = state.sides[awaiting.side].fighter.name
    if awaiting.need is Need.STRIKE:
        return f"Round {state.round}: {name}, !strike or !yield"
    how = ": /rol d20 or !rol d20" if manual else ""
    return f"{name}: roll d20 against {awaiting.chance}{how}"


def status(state: ContestState) -> str:
    return f"Round {state.round}. " + " / ".join(
        f"{s.fighter.name}: rating {s.rating}, wounds {s.wounds}, injuries {s.injuries}"
        + (", dazed" if s.dazed else "") for s in state.sides)
