"""The odds advisor: its policy, exact forced outcomes, the same figures twice, each
move weighed, the dominated-defence rule, and agreement with engine fights."""

import math
import random
from dataclasses import replace

from transcript import fight, play, warrior

from bot.odds import advisor
from bot.odds.advisor import (
    best_defence,
    odds,
    play_out,
    policy,
    weigh,
    weigh_part,
    weighed,
)
from bot.odds.chain import Chain, TooLong
from rules.ancath import apply
from rules.ancath.commands import Act, Defend
from rules.ancath.state import Action, Defence, FightState, Need, Range, Severity
from rules.ancath.tables import Location


def olaf_and_gorbag() -> tuple:
    return (warrior("Olaf", "free-clans", "broadsword", "shield", broadsword=60),
            warrior("Gorbag", "goblin", "club", "spear"))


def olaf_to_act() -> FightState:
    """A duel of Olaf and Gorbag, Olaf to act first."""
    state, _ = play(fight("duel", *olaf_and_gorbag()), """
        Olaf rolls 60
        Gorbag rolls 20
        Olaf: first
    """)
    return state


def test_forced_outcomes_are_exactly_0_and_1() -> None:
    """A yield accepted ends the fight: exactly 0. With both arms disabled against an
    armed foe a warrior loses whatever the dice: exactly 0 for them, 1 for the foe."""
    state = olaf_to_act()
    assert dict(weigh(state))[Act(0, Action.YIELD)] == 0.0
    armless = _hurt(state, 0, {Location.WEAPON_ARM: Severity.DISABLED,
                               Location.OFF_ARM: Severity.DISABLED})
    assert odds(armless, 0) == 0.0 and odds(armless, 1) == 1.0


def _hurt(state: FightState, side: int, injuries: dict[Location, Severity]) -> FightState:
    fighter = replace(state.fighters[side], injuries=injuries)
    pair = (fighter, state.fighters[1]) if side == 0 else (state.fighters[0], fighter)
    return replace(state, fighters=pair, started=True)


def test_the_two_sides_chances_add_up_to_one() -> None:
    """No fight under the policy ends without a winner: the defender's own chain gives
    one less the challenger's."""
    state = fight("duel", *olaf_and_gorbag())
    theirs = Chain(1, state, policy, best_defence).value(state)
    assert abs(odds(state, 1) - theirs) < 1e-12


def test_the_same_position_asked_twice_gets_the_same_figures() -> None:
    state = olaf_to_act()
    first = weigh(state)
    advisor._chains.clear()
    assert weigh(state) == first


def test_each_move_open_is_weighed() -> None:
    state = olaf_to_act()
    weighed = weigh(state)
    assert [move for move, _ in weighed][:2] == [Act(0, Action.ATTACK), Act(0, Action.PRESS)]
    assert all(0.0 <= chance <= 1.0 for _, chance in weighed)


def test_a_dominated_defence_never_shows_above_the_one_that_dominates_it() -> None:
    """One hit to defend: Luck (5) against a Block of 30 has the same outcomes with a
    worse chance of the good one, so it never shows higher, whatever the chain says."""
    state, _ = play(fight("practice", *olaf_and_gorbag()), """
        Olaf rolls 60
        Gorbag rolls 20
        Olaf: second
        Gorbag: attack
        Gorbag rolls 10
    """)
    assert state.awaiting is not None and state.awaiting.need is Need.DEFENCE
    weighed = dict(weigh(state))
    assert weighed[Defend(0, Defence.LUCK)] <= weighed[Defend(0, Defence.BLOCK)]
    assert weighed[Defend(0, Defence.LUCK)] <= weighed[Defend(0, Defence.PARRY)]


def test_the_engine_agrees_on_a_few_positions() -> None:
    """1,500 engine fights a position, played by the policy with seeded dice: every
    exact chance lies inside the sample's 99.9% Wilson interval."""
    rng = random.Random(14)
    for challenger, defender in (olaf_and_gorbag(), reversed(olaf_and_gorbag())):
        state = fight("duel", challenger, defender)
        exact = odds(state, 0)
        wins = sum(play_out(state, lambda _side: rng.randint(1, 100)) == 0
                   for _ in range(1500))
        low, high = _wilson(wins, 1500, 3.29)
        assert low <= exact <= high, (challenger.name, exact, wins)


def _wilson(wins: int, n: int, z: float) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_policy_defends_with_the_best_chance_and_attacks() -> None:
    state, _ = play(fight("practice", *olaf_and_gorbag()), """
        Olaf rolls 60
        Gorbag rolls 20
    """)
    assert policy(state).first  # go first
    state, _ = play(state, "Olaf: first")
    assert policy(state) == Act(0, Action.ATTACK)
    state, _ = play(state, """
        Olaf: attack
        Olaf rolls 10
    """)
    assert policy(state) == Defend(1, Defence.DODGE)  # dodge 30 beats parry 25


def test_policy_doubles_when_two_rolls_beat_one() -> None:
    state, _ = play(fight("practice", warrior("Gob", "goblin", "club", "spear", club=80),
                          warrior("Olaf", "free-clans", "broadsword", "shield")), """
        Gob: wield club
        Gob rolls 60
        Olaf rolls 20
        Gob: first
    """)
    assert policy(state) == Act(0, Action.DOUBLE)  # 1-(0.35)^2 > 0.75


def test_a_chain_interrupted_at_every_step_still_comes_to_the_same_value() -> None:
    """Work done before a deadline is kept: a chain asked with no time at all, again and
    again, gets there, and to the value of one asked without a deadline."""
    state = fight("duel", warrior("Aine", "fairy", "countersword", shortsword=65,
                                  countersword=55),
                  warrior("Olaf", "free-clans", "greatsword", "axe", greatsword=70))
    whole = Chain(0, state, policy, best_defence).value(state)
    solver, calls = Chain(0, state, policy, best_defence), 0
    while True:
        calls += 1
        try:
            value = solver.value(state, deadline=0.0)
            break
        except TooLong:
            assert calls < 1000
    assert calls > 1 and value == whole


def test_a_close_weighed_in_two_range_parts_is_the_whole_chains_figure() -> None:
    """The policy never changes the range, so each range's part is worked out alone
    (on its own worker in the bot) and the parts add up: a Close weighed that way, each
    part with nothing kept, gives what one chain over both ranges gives."""
    state = olaf_to_act()
    close = Act(0, Action.CLOSE)
    after, _ = apply(state, close)
    whole = Chain(0, state, policy, best_defence).value(after)
    parts = []
    for where in Range:
        advisor.forget()  # another worker: nothing of the other range kept
        parts.append(weigh_part(state, where))
    assert all(figure > 0 for part in parts for move, figure, _ in part if move == close)
    assert abs(dict(weighed(state, parts))[close] - whole) < 1e-12
    assert weighed(state, parts) == weigh(state)
    assert abs(odds(after, 0) - whole) < 1e-12


def test_a_question_goes_to_the_ranges_it_can_reach() -> None:
    """A part per range only where the range may change: a Close open or under way."""
    state = olaf_to_act()
    assert advisor.ranges(state) == [Range.STANDARD, Range.CLOSE]  # Close is open
    start = fight("duel", *olaf_and_gorbag())
    assert advisor.ranges(start) == [Range.STANDARD]  # the initiative roll
    attacked, _ = play(state, """
        Olaf: attack
        Olaf rolls 10
    """)
    assert advisor.ranges(attacked) == [Range.STANDARD]  # a defence: nothing moves
    closing, _ = apply(state, Act(0, Action.CLOSE))
    assert closing.awaiting is not None and closing.awaiting.need is Need.ROLL
    assert advisor.ranges(closing) == [Range.STANDARD, Range.CLOSE]


def test_work_ahead_from_a_close_under_way_grows_only_its_own_range() -> None:
    """A fight resumed with a Close under way: each range's worker grows the chain from
    where the Close settles at its range, and holds no node of the other."""
    closing, _ = apply(olaf_to_act(), Act(0, Action.CLOSE))
    for where in Range:
        advisor.forget()
        assert advisor.prepare(closing, float("inf"), where)
        assert _ranges_in(advisor.chain(closing)) == {where}


def _ranges_in(solver: Chain) -> set[Range]:
    """The ranges of a chain's nodes (its ends aside)."""
    found = set()
    for node in solver.ids:
        if isinstance(node, int):
            found.add(Range.CLOSE if node & 2 else Range.STANDARD)
        elif isinstance(node, tuple) and node and node[0] == "engine":
            found.add(node[4])
    return found
