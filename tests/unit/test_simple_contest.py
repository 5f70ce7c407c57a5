"""Simple Contest combat (R9 of ``docs/rulings.md``).

Each test is named after the ruling it checks (``docs/rulings.md``). Fights are
played through ``apply`` with scripted d20 rolls; the expected levels, degrees and
gravities are worked out by hand from the rulings in the comment beside them.

Unless a test says otherwise the fighters are rated 10 with no mastery, an edge of 0
(never raises) and no armour, so a roll of 1 is a critical, 2..10 a success, 11..19 a
failure and 20 a fumble (R9.1).
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import event, given, note, settings
from hypothesis import strategies as st
from replaying import contest_replay as replay  # the one replay, rules.replay

from rules.contest.engine import apply, level, resolve, start, undo_point
from rules.contest.model import (
    ContestFighter,
    ContestState,
    FightEnded,
    Forfeit,
    Gravity,
    Level,
    ModeratorEnd,
    Need,
    Outcome,
    Roll,
    Rolled,
    RoundResolved,
    Side,
    Strike,
    Struck,
    Yield,
    parse_fighter,
)
from rules.errors import (
    FightOver,
    IllegalCommand,
    InvalidRoll,
    InvalidSheet,
    NotYourTurn,
    RulesError,
)

CRIT, SUCCESS, FAILURE, FUMBLE = Level.CRITICAL, Level.SUCCESS, Level.FAILURE, Level.FUMBLE

# -- helpers --------------------------------------------------------------------------


def fighter(name: str = "Alain", rating: str = "10", weapon: str = "sword^0",
            armour: int = 0) -> ContestFighter:
    return parse_fighter(name, rating, weapon, armour)


def fight(a: ContestFighter | None = None, b: ContestFighter | None = None) -> ContestState:
    state, events = start("contest", [a or fighter("Alain"), b or fighter("Bors")])
    assert events == ()
    return state


def bout(state: ContestState, first: int, second: int) -> tuple[ContestState, list[Any]]:
    """One round: both strike, the challenger rolls ``first``, the defender ``second``."""
    events: list[Any] = []
    for command in (Strike(0), Strike(1), Roll(0, first), Roll(1, second)):
        state, new = apply(state, command)
        events.extend(new)
    return state, events


def resolved(events: list[Any]) -> RoundResolved:
    (found,) = [e for e in events if isinstance(e, RoundResolved)]
    return found


def refused(state: ContestState, command: Any, error: type[RulesError]) -> None:
    """``command`` raises exactly ``error`` and leaves ``state`` as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(RulesError) as info:
        apply(state, command)
    assert type(info.value) is error, info.value
    assert state == before


def struck(state: ContestState) -> ContestState:
    state, _ = apply(state, Strike(0))
    state, _ = apply(state, Strike(1))
    return state


# == R9.1 The d20 roll ================================================================


@pytest.mark.parametrize(("roll", "rating", "expected"), [
    (1, 10, CRIT), (2, 10, SUCCESS), (10, 10, SUCCESS), (11, 10, FAILURE),
    (19, 10, FAILURE), (20, 10, FUMBLE),
    (1, 0, CRIT),        # a 1 is a critical whatever the rating
    (20, 20, FUMBLE),    # a 20 is a fumble whatever the rating
    (19, 20, SUCCESS), (2, 1, FAILURE),
])
def test_R9_1_levels_of_a_d20_roll(roll: int, rating: int, expected: Level) -> None:
    assert level(roll, rating) is expected


@pytest.mark.parametrize(("roll", "expected"), [(1, CRIT), (15, SUCCESS), (16, FAILURE),
                                                (20, FUMBLE)])
def test_R9_1_the_rolled_event_gives_the_level(roll: int, expected: Level) -> None:
    state = struck(fight(fighter("Alain", "15"), fighter("Bors")))
    _, events = apply(state, Roll(0, roll))
    assert events == (Rolled(0, roll, 15, expected),)


def test_R9_1_both_strike_in_any_order_then_the_challenger_rolls_first() -> None:
    state = fight()
    assert (state.awaiting.side, state.awaiting.need) == (0, Need.STRIKE)
    state, events = apply(state, Strike(1))
    assert events == (Struck(1),)
    assert (state.awaiting.side, state.awaiting.need) == (0, Need.STRIKE)
    state, events = apply(state, Strike(0))
    assert events == (Struck(0),)
    assert (state.awaiting.side, state.awaiting.need, state.awaiting.die,
            state.awaiting.chance) == (0, Need.ROLL, 20, 10)
    state, _ = apply(state, Roll(0, 12))
    assert (state.awaiting.side, state.awaiting.need, state.awaiting.chance) == (1, Need.ROLL, 10)


# == R9.3 The result table ============================================================

ROLL_FOR = {CRIT: 1, SUCCESS: 5, FAILURE: 15, FUMBLE: 20}
"""A roll giving each level at rating 10."""

# The table in the rule text: row the challenger (side 0), column the defender (side 1).
# (degree, winner); a marginal cell (degree 0) is decided by the lower roll.
RESULT_TABLE: dict[tuple[Level, Level], tuple[int, int | None]] = {
    (CRIT, CRIT): (0, None), (CRIT, SUCCESS): (1, 0),
    (CRIT, FAILURE): (2, 0), (CRIT, FUMBLE): (3, 0),
    (SUCCESS, CRIT): (1, 1), (SUCCESS, SUCCESS): (0, None),
    (SUCCESS, FAILURE): (1, 0), (SUCCESS, FUMBLE): (2, 0),
    (FAILURE, CRIT): (2, 1), (FAILURE, SUCCESS): (1, 1),
    (FAILURE, FAILURE): (0, None), (FAILURE, FUMBLE): (1, 0),
    (FUMBLE, CRIT): (3, 1), (FUMBLE, SUCCESS): (2, 1),
    (FUMBLE, FAILURE): (1, 1), (FUMBLE, FUMBLE): (0, None),
}
GRAVITY_OF_DEGREE = {0: Gravity.DAZED, 1: Gravity.WOUND, 2: Gravity.INJURY, 3: Gravity.DYING}

# Marginal cells need distinct rolls to have a winner: 1-1 and 20-20 can only tie.
MARGINAL_ROLLS = {CRIT: (1, 1), SUCCESS: (5, 7), FAILURE: (16, 12), FUMBLE: (20, 20)}
MARGINAL_WINNER = {CRIT: None, SUCCESS: 0, FAILURE: 1, FUMBLE: None}  # the lower roll


@pytest.mark.parametrize(("row", "column"), list(RESULT_TABLE),
                         ids=[f"{r.name}-{c.name}" for r, c in RESULT_TABLE])
def test_R9_3_result_table_cell(row: Level, column: Level) -> None:
    degree, winner = RESULT_TABLE[(row, column)]
    if degree == 0:
        first, second = MARGINAL_ROLLS[row]
        winner = MARGINAL_WINNER[row]
    else:
        first, second = ROLL_FOR[row], ROLL_FOR[column]
    state, events = bout(fight(), first, second)
    result = resolved(events)
    assert result.levels == (row, column)
    assert result.degree == degree
    assert result.winner == winner
    if winner is None:  # equal rolls on a marginal outcome: no effect
        assert result.gravity is Gravity.NOTHING
        assert state.sides == fight().sides
        assert state.outcome is None
        return
    gravity = GRAVITY_OF_DEGREE[degree]
    assert result.gravity is gravity
    loser = state.sides[1 - winner]
    assert state.sides[winner] == fight().sides[winner]  # the winner suffers nothing
    if gravity is Gravity.DYING:
        assert state.outcome == Outcome("dying", winner)
        assert events[-1] == FightEnded(Outcome("dying", winner))
    else:
        assert (loser.dazed, loser.wounds, loser.injuries) == {
            Gravity.DAZED: (True, 0, 0),
            Gravity.WOUND: (False, 1, 0),
            Gravity.INJURY: (False, 0, 1),
        }[gravity]
        assert state.outcome is None


@pytest.mark.parametrize(("first", "second", "winner"), [
    (2, 9, 0), (9, 2, 1),        # both succeed: the lower roll wins
    (11, 19, 0), (19, 11, 1),    # both fail: the lower roll wins
])
def test_R9_3_marginal_outcome_the_lower_roll_wins_and_the_higher_is_dazed(
        first: int, second: int, winner: int) -> None:
    state, events = bout(fight(), first, second)
    result = resolved(events)
    assert (result.degree, result.winner, result.gravity) == (0, winner, Gravity.DAZED)
    assert state.sides[1 - winner].dazed
    assert not state.sides[winner].dazed


@pytest.mark.parametrize("roll", [1, 5, 10, 15, 20])
def test_R9_3_equal_rolls_on_a_marginal_outcome_have_no_effect(roll: int) -> None:
    state, events = bout(fight(), roll, roll)
    result = resolved(events)
    assert (result.degree, result.winner, result.gravity) == (0, None, Gravity.NOTHING)
    assert state.sides == fight().sides
    assert state.round == 2 and state.outcome is None
    assert (state.awaiting.side, state.awaiting.need) == (0, Need.STRIKE)


# == R9.2 Masteries ===================================================================


@pytest.mark.parametrize(("a", "b", "rolls", "levels", "winner", "degree"), [
    # 15W vs 12: the one mastery raises Alain's success to a critical
    ("15W", "12", (10, 5), (CRIT, SUCCESS), 0, 1),
    # ... and his failure to a success
    ("15W", "12", (16, 13), (SUCCESS, FAILURE), 0, 1),
    # ... and once at critical lowers Bors instead: his success becomes a failure
    ("15W", "12", (1, 5), (CRIT, FAILURE), 0, 2),
    # a fumble rises one level too, to a failure; both fail: the lower roll (Bors) wins
    ("10W", "10", (20, 15), (FAILURE, FAILURE), 1, 0),
    # the holder may be the defender
    ("12", "15W", (5, 10), (SUCCESS, CRIT), 1, 1),
    # masteries cancel pairwise: 15W vs 12W is a plain contest
    ("15W", "12W", (10, 5), (SUCCESS, SUCCESS), 1, 0),
    ("15W2", "12W2", (10, 13), (SUCCESS, FAILURE), 0, 1),
    # 3W2 vs 1W: one mastery left over, success to critical; 1 vs 1 is marginal and
    # Bors' lower roll wins
    ("3W2", "1W", (2, 1), (CRIT, CRIT), 1, 0),
    ("3W2", "1W", (3, 2), (CRIT, FAILURE), 0, 2),
    # 3W2 vs 1: two left over, the first raises Alain to critical, the second lowers Bors
    ("3W2", "1", (2, 10), (CRIT, FUMBLE), 0, 3),
    # both spent raising: failure -> success -> critical
    ("3W2", "1", (10, 1), (CRIT, CRIT), 1, 0),
    # nothing lies below a fumble: a third mastery is spent for nothing
    ("10W3", "10", (1, 15), (CRIT, FUMBLE), 0, 3),
])
def test_R9_2_masteries_cancel_pairwise_raise_then_lower(
        a: str, b: str, rolls: tuple[int, int], levels: tuple[Level, Level],
        winner: int, degree: int) -> None:
    state = fight(fighter("Alain", a), fighter("Bors", b))
    _, events = bout(state, *rolls)
    result = resolved(events)
    assert (result.levels, result.winner, result.degree) == (levels, winner, degree)


def test_R9_2_rolled_events_show_the_levels_before_masteries() -> None:
    _, events = bout(fight(fighter("Alain", "15W"), fighter("Bors", "12")), 10, 5)
    assert [e for e in events if isinstance(e, Rolled)] == [
        Rolled(0, 10, 15, SUCCESS), Rolled(1, 5, 12, SUCCESS)]
    assert resolved(events).levels == (CRIT, SUCCESS)


# == R9.4 Gravity: edge and armour ====================================================


@pytest.mark.parametrize(("roll", "gravity"), [
    (3, Gravity.INJURY),   # at the edge: a minor victory's wound becomes an injury
    (2, Gravity.INJURY),   # under it
    (4, Gravity.WOUND),    # above it: no change
])
def test_R9_4_plain_edge_raises_one_level_at_or_under_the_edge(roll: int,
                                                               gravity: Gravity) -> None:
    state = fight(fighter("Alain", "10", "sword^3"), fighter("Bors"))
    _, events = bout(state, roll, 15)  # success against failure: minor
    assert (resolved(events).degree, resolved(events).gravity) == (1, gravity)


def test_R9_4_the_rule_texts_example_sword3_minor_victory_is_an_injury() -> None:
    # "a Minor Victory with his sword^3 blow ... would become an Injury if his roll
    # was 3 or less": the critical (1) beats Bors' success, minor victory, 1 <= 3
    state, events = bout(fight(fighter("Alain", "10", "sword^3"), fighter("Bors")), 1, 6)
    assert (resolved(events).degree, resolved(events).gravity) == (1, Gravity.INJURY)
    assert state.sides[1].injuries == 1 and state.sides[1].wounds == 0


@pytest.mark.parametrize(("rolls", "gravity"), [
    ((5, 15), Gravity.DYING),   # ^5W at or under 5: minor (wound) + 2 = dying
    ((4, 15), Gravity.DYING),
    ((6, 15), Gravity.INJURY),  # any other roll: + 1
    ((10, 15), Gravity.INJURY),
    ((7, 8), Gravity.WOUND),    # marginal (dazed) + 1
    ((3, 8), Gravity.INJURY),   # marginal (dazed) + 2
])
def test_R9_4_mastery_edge_raises_two_at_or_under_one_otherwise(
        rolls: tuple[int, int], gravity: Gravity) -> None:
    state = fight(fighter("Alain", "10", "axe^5W"), fighter("Bors"))
    state, events = bout(state, *rolls)
    assert resolved(events).winner == 0
    assert resolved(events).gravity is gravity


def test_R9_4_only_the_winners_edge_counts() -> None:
    # Bors' axe^20W would raise anything, but Bors loses
    state = fight(fighter("Alain"), fighter("Bors", "10", "axe^20W"))
    _, events = bout(state, 5, 15)
    assert (resolved(events).winner, resolved(events).gravity) == (0, Gravity.WOUND)


@pytest.mark.parametrize(("loser_roll", "gravity"), [
    (16, Gravity.DAZED),   # at the handicap: the wound drops to dazed
    (12, Gravity.DAZED),   # under it
    (17, Gravity.WOUND),   # above it: no change
])
def test_R9_4_armour_lowers_one_level_at_or_under_the_handicap(loser_roll: int,
                                                               gravity: Gravity) -> None:
    state = fight(fighter("Alain"), fighter("Bors", "10", "axe^0", armour=16))
    _, events = bout(state, 5, loser_roll)  # success against failure: minor
    assert (resolved(events).winner, resolved(events).gravity) == (0, gravity)


def test_R9_4_armour_can_lower_a_daze_to_nothing() -> None:
    # marginal: Alain's 5 beats Bors' 6; Bors' armour 6 takes the daze away
    start_ = fight(fighter("Alain"), fighter("Bors", armour=6))
    state, events = bout(start_, 5, 6)
    result = resolved(events)
    assert (result.winner, result.degree, result.gravity) == (0, 0, Gravity.NOTHING)
    assert state.sides == start_.sides
    assert state.outcome is None


def test_R9_4_only_the_losers_armour_counts() -> None:
    state = fight(fighter("Alain", armour=20), fighter("Bors"))
    _, events = bout(state, 5, 15)
    assert resolved(events).gravity is Gravity.WOUND


def test_R9_4_edge_and_armour_cancel() -> None:
    state = fight(fighter("Alain", "10", "sword^3"), fighter("Bors", armour=15))
    _, events = bout(state, 3, 15)  # minor: wound, +1 edge (3 <= 3), -1 armour (15 <= 15)
    assert resolved(events).gravity is Gravity.WOUND


@pytest.mark.parametrize("weapon", ["sword^1", "axe^5W", "axe^20W"])
def test_R9_4_above_dying_is_dead_and_no_higher(weapon: str) -> None:
    # critical against fumble: complete, dying; the edge raises it past dying to dead
    state = fight(fighter("Alain", "10", weapon), fighter("Bors"))
    state, events = bout(state, 1, 20)
    assert (resolved(events).degree, resolved(events).gravity) == (3, Gravity.DEAD)
    assert state.outcome == Outcome("dead", 0)
    assert events[-1] == FightEnded(Outcome("dead", 0))


def test_R9_4_armour_against_a_complete_defeat_with_an_edge() -> None:
    # dying + 1 (edge) - 1 (armour 20: every roll is at or under it) = dying
    state = fight(fighter("Alain", "10", "sword^1"), fighter("Bors", armour=20))
    state, events = bout(state, 1, 20)
    assert resolved(events).gravity is Gravity.DYING
    assert state.outcome == Outcome("dying", 0)


def test_R9_4_gravity_by_resolve_is_clamped_between_nothing_and_dead() -> None:
    sides = (Side(fighter("Alain", "10", "axe^20W")), Side(fighter("Bors", armour=20)))
    levels, winner, degree, gravity = resolve(sides, (1, 20), (10, 10))
    assert (levels, winner, degree, gravity) == ((CRIT, FUMBLE), 0, 3, Gravity.DEAD)
    sides = (Side(fighter("Alain")), Side(fighter("Bors", armour=20)))
    assert resolve(sides, (5, 6), (10, 10))[3] is Gravity.NOTHING


# == R9.5 Effects =====================================================================


@pytest.mark.parametrize(("injuries", "wounds", "rating"), [
    (0, 0, 15), (0, 1, 14), (0, 3, 12),
    (1, 0, 7),            # 15 // 2
    (1, 2, 5),            # 15 // 2 - 2, not (15 - 2) // 2 = 6
    (2, 0, 3),            # 15 // 4
    (2, 1, 2),
    (3, 0, 1),            # 15 // 8
    (4, 0, 0),            # 15 // 16
])
def test_R9_5_rating_halves_per_injury_then_loses_the_wounds(injuries: int, wounds: int,
                                                            rating: int) -> None:
    side = Side(fighter("Alain", "15"), wounds=wounds, injuries=injuries)
    assert side.rating == rating


def test_R9_5_wounds_and_injuries_accumulate_in_play() -> None:
    """Bors (15) takes a wound, a wound, then an injury: 15 // 2 - 2 = 5, whatever the
    order they came in."""
    state = fight(fighter("Alain", "20"), fighter("Bors", "15"))
    state, events = bout(state, 5, 18)             # success v failure: wound
    assert resolved(events).ratings == (20, 14)
    state, events = bout(state, 5, 18)             # wound
    assert resolved(events).ratings == (20, 13)
    state, events = bout(state, 1, 18)             # critical v failure: injury
    assert resolved(events).ratings == (20, 5)
    assert (state.sides[1].wounds, state.sides[1].injuries) == (2, 1)
    # the new rating is the chance Bors rolls at: 5 succeeds, 6 fails
    state = struck(state)
    state, _ = apply(state, Roll(0, 15))
    assert state.awaiting.chance == 5
    _, events = apply(state, Roll(1, 6))
    assert events[0] == Rolled(1, 6, 5, FAILURE)


def test_R9_5_two_injuries_quarter_the_rating() -> None:
    state = fight(fighter("Alain", "20"), fighter("Bors", "15"))
    state, events = bout(state, 1, 18)             # injury: 7
    assert resolved(events).ratings == (20, 7)
    state, events = bout(state, 1, 18)             # injury: 15 // 4 = 3
    assert resolved(events).ratings == (20, 3)
    assert state.sides[1].rating == 15 // 4


def test_R9_5_dazed_is_minus_one_on_the_next_roll_only() -> None:
    state, events = bout(fight(), 6, 5)            # marginal: Bors' 5 wins, Alain dazed
    assert state.sides[0].dazed and resolved(events).ratings == (10, 10)
    state = struck(state)
    assert state.awaiting.chance == 9              # 10 - 1
    state, events = apply(state, Roll(0, 10))
    assert events == (Rolled(0, 10, 9, FAILURE),)  # 10 would succeed undazed
    state, events = apply(state, Roll(1, 12))      # both fail: Alain's 10 wins
    assert resolved(list(events)).winner == 0
    assert not state.sides[0].dazed and state.sides[1].dazed
    state = struck(state)
    assert state.awaiting.chance == 10             # the daze is gone
    state, events = apply(state, Roll(0, 10))
    assert events == (Rolled(0, 10, 10, SUCCESS),)


def test_R9_5_a_daze_lapses_even_after_a_round_without_effect() -> None:
    state, _ = bout(fight(), 6, 5)                 # Alain dazed
    state, events = bout(state, 7, 7)              # tie: no effect, the daze is used
    assert resolved(events).winner is None
    assert not state.sides[0].dazed
    state = struck(state)
    assert state.awaiting.chance == 10


def test_R9_5_a_daze_does_not_put_a_fighter_at_1_out() -> None:
    state = fight(fighter("Alain", "1"), fighter("Bors", "1"))
    state, _ = bout(state, 15, 14)                 # both fail: Alain dazed
    assert state.outcome is None and state.sides[0].dazed
    state = struck(state)
    assert state.awaiting.chance == 0


@pytest.mark.parametrize(("rolls", "cause"), [
    ((5, 15), "wound"),        # 1 - 1 = 0
    ((1, 15), "injury"),       # 1 // 2 = 0
])
def test_R9_5_a_rating_of_0_puts_the_fighter_out(rolls: tuple[int, int], cause: str) -> None:
    state = fight(fighter("Alain"), fighter("Bors", "1"))
    state, events = bout(state, *rolls)
    assert resolved(events).ratings == (10, 0)
    assert state.outcome == Outcome("out", 0)
    assert events[-1] == FightEnded(Outcome("out", 0))
    assert state.awaiting is None
    refused(state, Strike(0), FightOver)


def test_R9_5_a_rating_above_0_stays_in() -> None:
    state, events = bout(fight(fighter("Alain"), fighter("Bors", "2")), 5, 15)
    assert resolved(events).ratings == (10, 1)
    assert state.outcome is None


@pytest.mark.parametrize(("weapon", "ending"), [("sword^0", "dying"), ("sword^1", "dead")])
def test_R9_5_dying_or_dead_ends_the_fight(weapon: str, ending: str) -> None:
    state = fight(fighter("Alain"), fighter("Bors", "10", weapon))
    state, events = bout(state, 20, 1)             # fumble v critical: Bors, complete
    assert state.outcome == Outcome(ending, 1)
    assert events[-1] == FightEnded(Outcome(ending, 1))
    assert state.awaiting is None
    for command in (Strike(0), Strike(1), Roll(0, 5), Yield(0), Forfeit(0),
                    ModeratorEnd(None, "late")):
        refused(state, command, FightOver)


# == R9.6 Yield =======================================================================


@pytest.mark.parametrize("side", [0, 1])
def test_R9_6_either_side_may_yield_at_the_start_of_a_round(side: int) -> None:
    state, events = apply(fight(), Yield(side))
    assert state.outcome == Outcome("yield", 1 - side)
    assert events == (FightEnded(Outcome("yield", 1 - side)),)
    refused(state, Strike(1 - side), FightOver)


def test_R9_6_a_side_may_yield_after_the_other_has_struck() -> None:
    state, _ = apply(fight(), Strike(0))
    state, _ = apply(state, Yield(1))
    assert state.outcome == Outcome("yield", 0)


def test_R9_6_the_side_due_to_roll_may_yield_instead_of_rolling() -> None:
    state = struck(fight())
    assert (state.awaiting.side, state.awaiting.need) == (0, Need.ROLL)
    state, events = apply(state, Yield(0))
    assert state.outcome == Outcome("yield", 1)
    assert events == (FightEnded(Outcome("yield", 1)),)


def test_R9_6_a_side_that_has_rolled_cannot_yield_that_round() -> None:
    state, _ = apply(struck(fight()), Roll(0, 10))
    with pytest.raises(IllegalCommand, match="has rolled this round"):
        apply(state, Yield(0))
    state, _ = apply(state, Yield(1))  # the other side has not rolled yet
    assert state.outcome == Outcome("yield", 0)


def test_R9_6_forfeit_and_moderator_end() -> None:
    state, _ = apply(fight(), Forfeit(0))
    assert state.outcome == Outcome("forfeit", 1)
    state, _ = apply(fight(), ModeratorEnd(1, "time"))
    assert state.outcome == Outcome("moderator", 1)
    state, _ = apply(struck(fight()), ModeratorEnd(None, "draw"))
    assert state.outcome == Outcome("draw", None)


# == Refusals =========================================================================


@pytest.mark.parametrize("value", [0, 21, -1, 100, True])
def test_R9_1_a_roll_outside_1_to_20_is_refused(value: int) -> None:
    refused(struck(fight()), Roll(0, value), InvalidRoll)


def test_R9_1_the_defender_cannot_roll_before_the_challenger() -> None:
    refused(struck(fight()), Roll(1, 5), NotYourTurn)
    state, _ = apply(struck(fight()), Roll(0, 5))
    refused(state, Roll(0, 5), NotYourTurn)        # the challenger cannot roll twice


@pytest.mark.parametrize("strikers", [(), (0,), (1,)])
def test_R9_1_no_roll_before_both_have_struck(strikers: tuple[int, ...]) -> None:
    state = fight()
    for side in strikers:
        state, _ = apply(state, Strike(side))
    refused(state, Roll(0, 5), NotYourTurn)
    refused(state, Roll(1, 5), NotYourTurn)


def test_R9_1_strike_twice_is_refused() -> None:
    state, _ = apply(fight(), Strike(0))
    refused(state, Strike(0), IllegalCommand)
    state = struck(fight())
    refused(state, Strike(0), IllegalCommand)
    refused(state, Strike(1), IllegalCommand)
    state, _ = apply(state, Roll(0, 5))
    refused(state, Strike(1), IllegalCommand)


def test_R9_1_commands_for_no_side_and_forfeits_out_of_turn_are_refused() -> None:
    refused(fight(), Strike(2), IllegalCommand)
    refused(fight(), Yield(-1), IllegalCommand)
    refused(struck(fight()), Forfeit(1), NotYourTurn)


def test_R9_a_fighter_cannot_fight_themself() -> None:
    with pytest.raises(IllegalCommand):
        start("contest", [fighter("Alain"), fighter("alain")])


# == parse_fighter ====================================================================


@pytest.mark.parametrize(("rating", "weapon", "armour", "expected"), [
    ("15W", "sword^3", 2, ContestFighter("Alain", 15, 1, "sword", 3, False, 2)),
    ("3W2", "Axe^5W", 0, ContestFighter("Alain", 3, 2, "axe", 5, True, 0)),
    ("15", "sword^0", 0, ContestFighter("Alain", 15, 0, "sword", 0, False, 0)),
    ("20w", "spear^20w", 20, ContestFighter("Alain", 20, 1, "spear", 20, True, 20)),
    ("1", "knife^1", 0, ContestFighter("Alain", 1, 0, "knife", 1, False, 0)),
])
def test_R9_parse_fighter(rating: str, weapon: str, armour: int,
                          expected: ContestFighter) -> None:
    assert parse_fighter("Alain", rating, weapon, armour) == expected


@pytest.mark.parametrize(("rating", "weapon", "armour"), [
    ("0", "sword^3", 0), ("21", "sword^3", 0), ("", "sword^3", 0), ("W", "sword^3", 0),
    ("15X", "sword^3", 0), ("15W10", "sword^3", 0), ("-3", "sword^3", 0),
    ("100", "sword^3", 0), ("15 W", "sword^3", 0),
    ("15", "sword", 0), ("15", "sword^", 0), ("15", "^3", 0), ("15", "sword^21", 0),
    ("15", "sword^3X", 0), ("15", "sword^-1", 0), ("15", "3sword^3", 0), ("15", "", 0),
    ("15", "sword^3", -1), ("15", "sword^3", 21),
])
def test_R9_parse_fighter_refusals(rating: str, weapon: str, armour: int) -> None:
    with pytest.raises(InvalidSheet):
        parse_fighter("Alain", rating, weapon, armour)


# == A whole fight ====================================================================


def test_R9_a_whole_fight_transcript() -> None:
    """Alain 15W sword^3 armour 2 against Bors 12 axe^2W armour 4."""
    alain = parse_fighter("Alain", "15W", "sword^3", 2)
    bors = parse_fighter("Bors", "12", "axe^2W", 4)
    state, _ = start("contest", [alain, bors])
    commands: list[Any] = []

    def do(command: Any) -> tuple[Any, ...]:
        nonlocal state
        state, events = apply(state, command)
        commands.append(command)
        return events

    # Round 1: Bors strikes first. Alain 9: success, mastery -> critical; Bors 11:
    # success. Minor, Alain: wound; 9 > edge 3, Bors' 11 > armour 4. Bors 12 - 1 = 11.
    assert do(Strike(1)) == (Struck(1),)
    assert do(Strike(0)) == (Struck(0),)
    assert do(Roll(0, 9)) == (Rolled(0, 9, 15, SUCCESS),)
    assert do(Roll(1, 11)) == (
        Rolled(1, 11, 12, SUCCESS),
        RoundResolved(1, (CRIT, SUCCESS), 0, 1, Gravity.WOUND, (15, 11)),
    )
    # Round 2: Alain 17: failure, mastery -> success; Bors 3: success (<= 11).
    # Marginal: Bors' lower roll wins: dazed, +1 for the mastery edge on any roll
    # (3 > 2): wound. Alain's 17 > armour 2. Alain 15 - 1 = 14.
    do(Strike(0))
    do(Strike(1))
    do(Roll(0, 17))
    assert do(Roll(1, 3)) == (
        Rolled(1, 3, 11, SUCCESS),
        RoundResolved(2, (SUCCESS, SUCCESS), 1, 0, Gravity.WOUND, (14, 11)),
    )
    # Round 3: Alain 2 -> critical; Bors 4: success. Minor: wound, +1 edge (2 <= 3),
    # -1 armour (4 <= 4): wound. Bors 12 - 2 = 10.
    do(Strike(0))
    do(Strike(1))
    assert do(Roll(0, 2)) == (Rolled(0, 2, 14, SUCCESS),)
    assert do(Roll(1, 4)) == (
        Rolled(1, 4, 11, SUCCESS),
        RoundResolved(3, (CRIT, SUCCESS), 0, 1, Gravity.WOUND, (14, 10)),
    )
    # Round 4: Alain 12 -> critical; Bors 12: failure (> 10). Alain 12 and Bors 12 are
    # equal rolls but not a marginal outcome: major, injury; Bors 12 > armour 4.
    # Bors 12 // 2 - 2 = 4.
    do(Strike(1))
    do(Strike(0))
    do(Roll(0, 12))
    assert do(Roll(1, 12)) == (
        Rolled(1, 12, 10, FAILURE),
        RoundResolved(4, (CRIT, FAILURE), 0, 2, Gravity.INJURY, (14, 4)),
    )
    # Round 5: Alain 20: fumble, mastery -> failure; Bors 1: critical. Major, Bors:
    # injury, +2 for the mastery edge (1 <= 2): dead.
    do(Strike(0))
    do(Strike(1))
    assert do(Roll(0, 20)) == (Rolled(0, 20, 14, FUMBLE),)
    assert do(Roll(1, 1)) == (
        Rolled(1, 1, 4, CRIT),
        RoundResolved(5, (FAILURE, CRIT), 1, 2, Gravity.DEAD, (14, 4)),
        FightEnded(Outcome("dead", 1)),
    )
    assert state.outcome == Outcome("dead", 1)
    assert (state.sides[0].wounds, state.sides[0].injuries) == (1, 0)
    assert (state.sides[1].wounds, state.sides[1].injuries) == (2, 1)
    assert replay("contest", [alain, bors], commands) == state


# == Properties =======================================================================

def fighters(name: str) -> st.SearchStrategy[ContestFighter]:
    return st.builds(
        ContestFighter, st.just(name), st.integers(1, 20), st.integers(0, 3),
        st.just("blade"), st.integers(0, 20), st.booleans(), st.integers(0, 20))


MAX_ROUNDS = 3000
"""Far above what fair dice need: the slowest pairing (both rated 20 in armour 20, no
edge, no mastery) hurts about one round in ten; 300 seeded fights of it took at most
481 rounds."""


@settings(max_examples=150, deadline=None)
@given(st.data(), fighters("Alain"), fighters("Bors"), st.booleans(), st.integers(0, 40),
       st.integers(0, 2**32 - 1))
def test_R9_random_legal_play_ends_within_a_bound_and_replays(
        data: st.DataObject, a: ContestFighter, b: ContestFighter, may_yield: bool,
        prefix: int, seed: int) -> None:
    """Random legal play. The first ``prefix`` commands are drawn by Hypothesis (so it
    can steer into ties, dazes, 1s and 20s, yields), the rest by a ``random.Random``
    seeded by Hypothesis, with fair dice and no yields.

    - every hurting round (wound or injury) lowers a rating by at least 1, so at most
      ``rating_a + rating_b - 1`` of them happen before someone is out; ratings never
      rise;
    - the fight ends within ``MAX_ROUNDS`` rounds (dazes and ties make no progress, so
      only fair dice bound the rounds);
    - it never gets stuck: whatever it awaits is accepted, at the chance the side's
      state gives, and a refused command changes nothing;
    - ``replay`` of the commands rebuilds the same state.
    """
    rng = random.Random(seed)
    bound = a.rating + b.rating - 1
    state, _ = start("contest", [a, b])
    commands: list[Any] = []
    hurting = 0
    previous = (a.rating, b.rating)
    while state.outcome is None and state.round <= MAX_ROUNDS:
        steered = len(commands) < prefix
        awaiting = state.awaiting
        assert awaiting is not None
        if awaiting.need is Need.STRIKE:
            options: list[Any] = [Strike(s) for s in (0, 1) if not state.ready[s]]
            if steered and may_yield:
                options += [Yield(0), Yield(1)]
            command = data.draw(st.sampled_from(options)) if steered else rng.choice(options)
        else:
            side = state.sides[awaiting.side]
            assert awaiting.chance == side.rating - (1 if side.dazed else 0)
            before = copy.deepcopy(state)
            with pytest.raises(RulesError):
                apply(state, Roll(awaiting.side, 21))
            with pytest.raises(RulesError):
                apply(state, Roll(1 - awaiting.side, 5))
            assert state == before
            value = data.draw(st.integers(1, 20)) if steered else rng.randint(1, 20)
            command = Roll(awaiting.side, value)
        state, events = apply(state, command)
        commands.append(command)
        for happened in events:
            if isinstance(happened, RoundResolved):
                if happened.gravity in (Gravity.WOUND, Gravity.INJURY):
                    hurting += 1
                assert all(n <= p for n, p in zip(happened.ratings, previous, strict=True))
                previous = happened.ratings
        assert hurting <= bound
    event(f"ending: {state.outcome.ending if state.outcome else 'unfinished'}")
    note(f"{len(commands)} commands, {hurting} hurting rounds, outcome {state.outcome}")
    assert state.outcome is not None, f"no end after {MAX_ROUNDS} rounds"
    assert state.awaiting is None
    assert state.outcome.ending in ("yield", "dying", "dead", "out")
    refused(state, Strike(0), FightOver)
    assert replay("contest", [a, b], commands) == state


# == R8.1 Undo (as the club applies it to every system) ================================


def test_R8_1_contest_undo_takes_back_the_last_decision_and_the_rolls_after_it() -> None:
    fighters = [fighter("Alain"), fighter("Bors")]
    log: list[Any] = [Strike(0), Strike(1), Roll(0, 5)]
    assert undo_point(log) == 1                       # Bors's strike and Alain's roll
    assert replay("contest", fighters, log[:1]) == apply(fight(), Strike(0))[0]
    log = [Strike(0), Strike(1), Roll(0, 5), Roll(1, 15), Strike(1)]
    assert undo_point(log) == 4                       # the new round's strike alone
    with pytest.raises(IllegalCommand, match="nothing to undo"):
        undo_point([Roll(0, 5)])
    with pytest.raises(IllegalCommand):
        undo_point([])
