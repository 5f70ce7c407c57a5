"""The Simple Contest engine (R9): strikes, d20 rolls, masteries, the result table,
gravity with edge and armour, and the lasting effects of each blow.

A round: both sides ``Strike`` (in any order), then ``Roll`` d20, challenger first;
the second roll resolves the round. Either side may ``Yield`` instead of rolling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rules.common import check_command, undo_point
from rules.contest.model import (
    Awaiting,
    Command,
    ContestFighter,
    ContestState,
    Ending,
    Event,
    FightEnded,
    Forfeit,
    Gravity,
    Level,
    ModeratorEnd,
    Need,
    Outcome,
    Rolled,
    RoundResolved,
    Side,
    Strike,
    Struck,
    Yield,
)
from rules.errors import IllegalCommand, InvalidRoll, NotYourTurn

__all__ = ["apply", "level", "resolve", "start", "undo_point"]


def start(_kind: str, fighters: Sequence[ContestFighter]) -> tuple[ContestState, tuple[Event, ...]]:
    a, b = fighters
    if a.name.casefold() == b.name.casefold():
        raise IllegalCommand("a fighter cannot fight themself")
    return ContestState((Side(a), Side(b)), Awaiting(0, Need.STRIKE)), ()


def level(roll: int, rating: int) -> Level:
    """1 critical, 20 fumble, else success at or under the rating (R9.1)."""
    if roll == 1:
        return Level.CRITICAL
    if roll == 20:
        return Level.FUMBLE
    return Level.SUCCESS if roll <= rating else Level.FAILURE


def _masteries(levels: list[int], masteries: tuple[int, int]) -> list[int]:
    """Masteries cancel pairwise; each left over raises its holder one level, or
    once at critical lowers the opponent one level (R9.2)."""
    net = masteries[0] - masteries[1]
    holder = 0 if net > 0 else 1
    for _ in range(abs(net)):
        if levels[holder] < Level.CRITICAL.value:
            levels[holder] += 1
        elif levels[1 - holder] > Level.FUMBLE.value:
            levels[1 - holder] -= 1
    return levels


def resolve(sides: tuple[Side, Side], rolls: tuple[int, int], ratings: tuple[int, int]
            ) -> tuple[tuple[Level, Level], int | None, int, Gravity]:
    """The round's levels, winner, degree and gravity (R9.2-R9.4)."""
    raw = [level(roll, rating).value for roll, rating in zip(rolls, ratings, strict=True)]
    levels = _masteries(raw, (sides[0].fighter.masteries, sides[1].fighter.masteries))
    degree = abs(levels[0] - levels[1])
    final = (Level(levels[0]), Level(levels[1]))
    if degree == 0:
        if rolls[0] == rolls[1]:
            return final, None, 0, Gravity.NOTHING
        winner = 0 if rolls[0] < rolls[1] else 1
    else:
        winner = 0 if levels[0] > levels[1] else 1
    loser = 1 - winner
    gravity = degree + 1  # marginal = dazed ... complete = dying
    weapon = sides[winner].fighter
    if rolls[winner] <= weapon.edge:
        gravity += 2 if weapon.edge_mastery else 1
    elif weapon.edge_mastery:
        gravity += 1
    if rolls[loser] <= sides[loser].fighter.armour:
        gravity -= 1
    return final, winner, degree, Gravity(max(0, min(Gravity.DEAD.value, gravity)))


def apply(state: ContestState, command: Command) -> tuple[ContestState, tuple[Event, ...]]:
    check_command(state, command)
    assert state.awaiting is not None
    if isinstance(command, ModeratorEnd):
        return _end(state, Outcome(Ending.MODERATOR if command.winner is not None
                                   else Ending.DRAW, command.winner))
    name = state.sides[command.side].fighter.name
    if isinstance(command, Forfeit):
        if command.side != state.awaiting.side:
            raise NotYourTurn(f"the fight waits for {_waiting(state)}")
        return _end(state, Outcome(Ending.FORFEIT, 1 - command.side))
    if isinstance(command, Yield):  # instead of rolling (R9.6)
        if state.rolls[command.side] is not None:
            raise IllegalCommand(f"{name} has rolled this round: yield next round")
        return _end(state, Outcome(Ending.YIELD, 1 - command.side))
    if isinstance(command, Strike):
        if state.awaiting.need is not Need.STRIKE or state.ready[command.side]:
            raise IllegalCommand(f"{name} has struck; the fight waits for {_waiting(state)}")
        ready = (True, state.ready[1]) if command.side == 0 else (state.ready[0], True)
        state = replace(state, ready=ready)
        return _await_next(state), (Struck(command.side),)
    awaiting = state.awaiting
    assert awaiting is not None
    if awaiting.need is not Need.ROLL or command.side != awaiting.side:
        raise NotYourTurn(f"the fight waits for {_waiting(state)}")
    if type(command.value) is not int or not 1 <= command.value <= 20:
        raise InvalidRoll(f"a d20 roll is 1..20, not {command.value}")
    return _roll(state, command.side, command.value)


def _waiting(state: ContestState) -> str:
    assert state.awaiting is not None
    who = state.sides[state.awaiting.side].fighter.name
    return f"{who} to strike" if state.awaiting.need is Need.STRIKE else f"{who} to roll d20"


def _effective(side: Side) -> int:
    return side.rating - (1 if side.dazed else 0)


def _await_next(state: ContestState) -> ContestState:
    for index in (0, 1):
        if not state.ready[index]:
            return replace(state, awaiting=Awaiting(index, Need.STRIKE))
    for index in (0, 1):
        if state.rolls[index] is None:
            chance = _effective(state.sides[index])
            return replace(state, awaiting=Awaiting(index, Need.ROLL, 20, chance))
    raise AssertionError("a round with both rolls is resolved at once")


def _roll(state: ContestState, side: int, value: int) -> tuple[ContestState, tuple[Event, ...]]:
    rolls = (value, state.rolls[1]) if side == 0 else (state.rolls[0], value)
    rating = _effective(state.sides[side])
    events: list[Event] = [Rolled(side, value, rating, level(value, rating))]
    state = replace(state, rolls=rolls)
    if None in rolls:
        return _await_next(state), tuple(events)
    first, second = rolls
    assert first is not None and second is not None
    ratings = (_effective(state.sides[0]), _effective(state.sides[1]))
    levels, winner, degree, gravity = resolve(state.sides, (first, second), ratings)
    sides = [replace(s, dazed=False) for s in state.sides]  # a daze lasts one roll
    if winner is not None:
        loser = sides[1 - winner]
        if gravity is Gravity.DAZED:
            loser = replace(loser, dazed=True)
        elif gravity is Gravity.WOUND:
            loser = replace(loser, wounds=loser.wounds + 1)
        elif gravity is Gravity.INJURY:
            loser = replace(loser, injuries=loser.injuries + 1)
        sides[1 - winner] = loser
    pair = (sides[0], sides[1])
    events.append(RoundResolved(state.round, levels, winner, degree, gravity,
                                (pair[0].rating, pair[1].rating)))
    state = replace(state, sides=pair, round=state.round + 1, ready=(False, False),
                    rolls=(None, None))
    if winner is not None and gravity in (Gravity.DYING, Gravity.DEAD):
        state, end = _end(state, Outcome(Ending(gravity.name.lower()), winner))
        return state, tuple(events) + end
    for index, s in enumerate(pair):
        if s.rating <= 0:  # out of the fight (R9.5)
            state, end = _end(state, Outcome(Ending.OUT, 1 - index))
            return state, tuple(events) + end
    return _await_next(state), tuple(events)


def _end(state: ContestState, outcome: Outcome) -> tuple[ContestState, tuple[Event, ...]]:
    return replace(state, outcome=outcome, awaiting=None), (FightEnded(outcome),)
