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
    Level,
    Need,
    Rolled,
    RoundResolved,
    Strike,
    Struck,
)
from storage.records import WarriorRecord

__all__ = ["describe", "opening", "prompt", "sheet_line", "status", "waiting"]

_DEGREE = ("marginal", "minor", "major", "complete")
_ENDINGS = {"dead": "the foe is dead", "dying": "the foe is dying", "out": "the foe is out",
            "yield": "by yield", "forfeit": "by forfeit", "moderator": "by a moderator's ruling"}


def describe(events: Sequence[Any], cast: Cast, awarded: Sequence[Award] | None = None) -> str:
    """One line for a run of events; this system awards no BP (R9.6). What makes a
    round's result differ from the table is said with it: a roll's level moved by
    masteries (``[17 vs 15: failure, +1 mastery: success]``, R9.2) and the blow moved by
    the winner's edge or the loser's armour (``+1 edge``, R9.4)."""
    names = cast.names
    rolled = {event.side for event in events if isinstance(event, Rolled)}
    parts = []
    for index, event in enumerate(events):
        match event:
            case Struck(side=side):
                parts.append(f"{names[side]} strikes.")
            case Rolled(side=side, roll=roll, rating=rating, level=level):
                final = _round_after(events, index)
                parts.append(f"{names[side]} [{roll} vs {rating}: "
                             f"{_level(level, final.levels[side] if final else level)}]")
            case RoundResolved(winner=None):
                parts.append("Equal rolls: no effect.")
            case RoundResolved():
                parts.append(_victory(event, names, rolled))
            case FightEnded(outcome=outcome):
                if outcome.winner is None:
                    parts.append("The fight is a draw.")
                else:
                    parts.append(f"{names[outcome.winner]} wins: "
                                 f"{_ENDINGS.get(outcome.ending, outcome.ending)}.")
    return " ".join(parts)


def _round_after(events: Sequence[Any], index: int) -> RoundResolved | None:
    """The round a roll resolved, when it is in the same run."""
    return next((e for e in events[index:] if isinstance(e, RoundResolved)), None)


def _level(rolled: Level, final: Level) -> str:
    """``failure, +1 mastery: success``: a roll's level, and where masteries moved it."""
    said = rolled.name.lower()
    shift = final.value - rolled.value
    if not shift:
        return said
    by = f"+{shift} mastery" if shift > 0 else f"{shift} foe's mastery"
    return f"{said}, {by}: {final.name.lower()}"


def _victory(event: RoundResolved, names: Sequence[str], rolled: set[int]) -> str:
    """``Alain wins a minor victory, +1 edge: Karamo injury (ratings 15/7).``: a
    victory's degree (from the levels after masteries: those of a roll said on an
    earlier line too), then the steps the edge or armour moved the blow (R9.4)."""
    winner, degree = event.winner, event.degree
    assert winner is not None
    earlier = "; ".join(f"{names[side]} {event.levels[side].name.lower()}"
                        for side in (0, 1) if side not in rolled)
    after = f" ({earlier} after masteries)" if earlier else ""
    step = event.gravity.value - (degree + 1)   # a blow by the table is degree + 1
    moved = f", {step:+d} edge" if step > 0 else f", {step:+d} armour" if step < 0 else ""
    blow = "no harm" if event.gravity is Gravity.NOTHING else event.gravity.name.lower()
    ratings = event.ratings
    return (f"{names[winner]} wins a {_DEGREE[degree]} victory{after}{moved}: "
            f"{names[1 - winner]} {blow} (ratings {ratings[0]}/{ratings[1]}).")


def opening(state: ContestState, cast: Cast) -> str:
    """``Simple Contest: Alain (al) vs Bors (bo). Alain: close combat 15W, sword^3,
    armour 2. ...``: who fights whom, and with what."""
    return (f"Simple Contest: {cast.labels[0]} vs {cast.labels[1]}. " + " ".join(
        f"{name}: {_arms(side.fighter)}." for name, side in zip(cast.names, state.sides,
                                                                strict=True)))


def _arms(f: ContestFighter) -> str:
    """``close combat 15W, sword^3W, armour 2``."""
    masteries = "W" * (f.masteries > 0) + (str(f.masteries) if f.masteries > 1 else "")
    return (f"close combat {f.rating}{masteries}, {f.weapon}^{f.edge}"
            f"{'W' if f.edge_mastery else ''}, armour {f.armour}")


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
    return f"{record.sheet.name} (Simple Contest, {owner}): {_arms(record.sheet)}; {record.status}"
