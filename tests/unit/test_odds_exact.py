"""The exact chain against the engine: roll classes against all 100 values, every
regular turn of the fast path against the engine's own ``apply``, and the one derived
step (both arms disabled against an armed foe) against the engine alone.

Positions come from fights played by the policy with seeded dice, and from regular
states with random injuries and flags, in every kind, with the cast of
bench/engine_fights.py (slow, long, short, doubling and two-handed weapons).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Hashable, Iterator
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from engine_fights import KINDS, warriors

from bot.odds.advisor import best_defence, policy
from bot.odds.chain import Chain, key, roll_classes
from bot.odds.nodes import Next, Won
from bot.odds.regular import Regular
from rules.ancath import apply, start
from rules.ancath.chances import TWO_HANDERS, secondary_weapon
from rules.ancath.commands import Roll
from rules.ancath.damage import injure
from rules.ancath.state import Bonus, FightState, Kind, Need, Range, Severity
from rules.ancath.tables import Location


def paths(fights: int, seed: int, kinds: tuple[Kind, ...] = KINDS) -> Iterator[FightState]:
    """Every state of ``fights`` fights played by the policy with seeded dice."""
    rng = random.Random(seed)
    cast = warriors()
    for _ in range(fights):
        a, b = rng.sample(cast, 2)
        state, _ = start(rng.choice(kinds), a, b)
        while state.outcome is None:
            yield state
            awaiting = state.awaiting
            assert awaiting is not None
            command = (Roll(awaiting.side, rng.randint(1, 100)) if awaiting.need is Need.ROLL
                       else policy(state))
            state, _ = apply(state, command)


def _chain(chains: dict[Hashable, Chain], state: FightState) -> Chain:
    names = (state.kind, *(f.sheet.name for f in state.fighters))
    return chains.setdefault(names, Chain(0, state, policy, best_defence))


def test_a_roll_is_worth_the_mean_over_its_100_values() -> None:
    """At every roll of 6 duels the chain's value, made of one value per class, equals
    the mean of its values after each of the 100 values applied by the engine."""
    chains: dict[Hashable, Chain] = {}
    rolls = 0
    for state in paths(6, 1, (Kind.DUEL,)):
        awaiting = state.awaiting
        assert awaiting is not None
        if awaiting.need is not Need.ROLL:
            continue
        solver = _chain(chains, state)
        each = [solver.value(apply(state, Roll(awaiting.side, v))[0]) for v in range(1, 101)]
        assert abs(solver.value(state) - sum(each) / 100) < 1e-12
        assert len({round(v, 12) for v in each}) <= len(roll_classes(state))
        rolls += 1
    assert rolls > 25


def _engine_turn(regular: Regular[Next], state: FightState) -> dict[Hashable, float]:
    """Where a regular state's turn leads, worked out through the engine: every roll by
    its classes, every decision by the policy, until the next regular state, an end,
    or both sides armless."""
    out: dict[Hashable, float] = {}
    stack = [(1.0, state, True)]
    while stack:
        p, current, first = stack.pop()
        if current.outcome is not None:
            node: Hashable = Won(current.outcome.winner)
        elif not first and (found := regular.key(current)) is not None:
            node = found
        elif not first and _both_armless(current):
            node = key(current)
        else:
            awaiting = current.awaiting
            assert awaiting is not None
            if awaiting.need is Need.ROLL:
                for value, size in roll_classes(current):
                    stack.append((p * size / 100, apply(current, Roll(awaiting.side, value))[0],
                                  False))
            else:
                stack.append((p, apply(current, policy(current))[0], False))
            continue
        out[node] = out.get(node, 0.0) + p
    return out


def _both_armless(state: FightState) -> bool:
    return (state.awaiting is not None and state.awaiting.need is Need.ACTION
            and all(f.armless for f in state.fighters))


def _as_is(target: Next) -> Next:
    return target


def _fast_turn(regular: Regular[Next], state: FightState) -> dict[Hashable, float]:
    found = regular.key(state)
    assert found is not None
    out: dict[Hashable, float] = {}
    for p, target in zip(*regular.turn(found), strict=True):
        node = key(target) if isinstance(target, FightState) else target
        out[node] = out.get(node, 0.0) + p
    return out


def _same(fast: dict[Hashable, float], engine: dict[Hashable, float]) -> bool:
    return fast.keys() == engine.keys() and all(
        abs(fast[k] - engine[k]) < 1e-12 for k in fast)


def _regular_states() -> Iterator[FightState]:
    """Regular states of fights played out, then regular states with random injuries
    and flags for every pairing of the cast (rare turns: free attacks, a downed
    striker, a two-hander drawing, a pair that doubled)."""
    for state in paths(10, 2):
        if state.started and state.awaiting is not None and state.awaiting.need is Need.ACTION:
            yield state
    rng = random.Random(3)
    cast = warriors()
    for a, b in [(a, b) for a in cast for b in cast if a is not b] * 3:
        state, _ = start(rng.choice(KINDS), a, b)
        fighters = list(state.fighters)
        actor = rng.randrange(2)
        for side, f in enumerate(fighters):
            injuries: dict[Location, Severity] = {}
            for _ in range(rng.randint(0, 3)):
                harm = injure(injuries, rng.choice(list(Location)), rng.choice(list(Severity)))
                if not harm.killed:
                    injuries = dict(harm.injuries)
            if side == actor and f.disabled(Location.WEAPON_ARM):
                injuries.pop(Location.OFF_ARM, None)  # the actor keeps an arm
            f = replace(f, injuries=injuries)
            if (f.disabled(Location.WEAPON_ARM) and f.weapon in TWO_HANDERS
                    and rng.random() < 0.5):  # drawn already (R6.5)
                f = replace(f, weapon=secondary_weapon(f.sheet) or f.weapon)
            if side != actor:
                drawing = (f.disabled(Location.WEAPON_ARM) and f.weapon in TWO_HANDERS
                           and rng.random() < 0.5)
                f = replace(f, press_penalty=rng.random() < 0.3,
                            pair_doubled=rng.random() < 0.3, must_draw=drawing,
                            dodge_only=drawing)
            if rng.random() < 0.3:  # a Test bonus held, undeclared (R4.5)
                f = replace(f, bonus=Bonus(rng.choice((5, 10, 20)),
                                           state.turn - rng.choice((1, 2))))
            fighters[side] = f
        yield replace(state, fighters=(fighters[0], fighters[1]), started=True,
                      range=rng.choice(list(Range)), actor=actor,
                      awaiting=replace(state.awaiting, side=actor, need=Need.ACTION)
                      if state.awaiting else None, initiative=(None, None))


def test_every_regular_turn_matches_the_engine() -> None:
    regulars: dict[Hashable, Regular[Next]] = {}
    checked = mirrored = bonuses = 0
    for state in _regular_states():
        if state.fighters[state.actor or 0].armless:
            continue  # the derived step: next test
        names = (state.kind, *(f.sheet.name for f in state.fighters))
        regular = regulars.setdefault(names, Regular(state, policy, best_defence, _as_is))
        if regular.key(state) is None:
            continue
        fast, engine = _fast_turn(regular, state), _engine_turn(regular, state)
        assert _same(fast, engine), state
        checked += 1
        mirrored += any(f.disabled(Location.LEFT_LEG) and not f.disabled(Location.RIGHT_LEG)
                        for f in state.fighters)
        bonuses += any(f.bonus is not None for f in state.fighters)
    assert checked > 150
    assert mirrored > 10  # a left leg down: the fast path keeps its mirror (the right)
    assert bonuses > 40


def test_both_arms_disabled_against_an_armed_foe_loses_whatever_the_dice() -> None:
    """Worked out through the engine alone (no fast path): exactly 0."""
    cast = warriors()
    armless = {Location.WEAPON_ARM: Severity.DISABLED, Location.OFF_ARM: Severity.DISABLED}
    checked = 0
    for kind in (Kind.DUEL, Kind.PRACTICE):
        for a, b in ((cast[0], cast[1]), (cast[2], cast[4])):
            state, _ = start(kind, a, b)
            for extra in ({}, {Location.RIGHT_LEG: Severity.DISABLED}):
                fighters = (replace(state.fighters[0], injuries={**armless, **extra}),
                            state.fighters[1])
                position = replace(state, fighters=fighters, started=True, actor=0,
                                   awaiting=replace(state.awaiting, side=0, need=Need.ACTION)
                                   if state.awaiting else None)
                solver = Chain(0, position, policy, best_defence)
                solver.regular.key = lambda _state: None  # type: ignore[method-assign,assignment]
                assert solver.value(position) == 0.0
                checked += 1
    assert checked == 8
