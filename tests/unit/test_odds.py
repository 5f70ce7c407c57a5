"""The odds advisor: its policy, forced outcomes, intervals that shrink, a deadline
kept to the fight, and each move weighed."""

import random

from transcript import fight, play, warrior

from bot.odds.advisor import Estimate, estimate, policy, weigh
from rules.ancath.commands import Act, Defend
from rules.ancath.state import Action, Defence


def olaf_and_gorbag() -> tuple:
    return (warrior("Olaf", "free-clans", "broadsword", "shield", broadsword=60),
            warrior("Gorbag", "goblin", "club", "spear"))


def test_a_forced_outcome_is_exact() -> None:
    """Olaf can never hit or defend (every roll 100); Gorbag always hits and kills
    (every roll 1: a hit, and 1 is Kill on every armour column)."""
    state = fight("practice", *olaf_and_gorbag())
    result = estimate(state, 1, roll=lambda side: 100 if side == 0 else 1, max_samples=400,
                      target_margin=0.0)
    assert result == Estimate(400, 400) and result.chance == 1.0 and result.margin == 0.0
    assert estimate(state, 0, roll=lambda side: 100 if side == 0 else 1,
                    max_samples=400).chance == 0.0


def test_the_interval_shrinks_as_samples_grow() -> None:
    state = fight("practice", *olaf_and_gorbag())
    margins = []
    for samples in (200, 2000):
        rng = random.Random(7)
        result = estimate(state, 0, roll=lambda _side, r=rng: r.randint(1, 100),
                          max_samples=samples, target_margin=0.0, seconds=60)
        assert result.samples == samples
        margins.append(result.margin)
    assert margins[1] < margins[0] / 2.5  # ~ 1/sqrt(10)


def test_the_deadline_is_checked_after_every_fight() -> None:
    """No time at all still plays one fight, and only one (it used to be 200)."""
    state = fight("practice", *olaf_and_gorbag())
    assert estimate(state, 0, seconds=0.0, target_margin=0.0).samples == 1


def test_each_move_open_is_weighed() -> None:
    state, _ = play(fight("practice", *olaf_and_gorbag()), """
        Olaf rolls 60
        Gorbag rolls 20
        Olaf: first
    """)
    weighed = weigh(state, 0.0)
    assert [move for move, _ in weighed][:2] == [Act(0, Action.ATTACK), Act(0, Action.PRESS)]
    assert all(result.samples == 1 for _, result in weighed)


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
