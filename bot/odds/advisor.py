"""The odds advisor: win chances by simulating An Cath fights with a stated policy.

The policy (said in ``!help odds`` and the README): go first when choosing; on your turn
Double when it gives a better chance of at least one hit than a single Attack, else
Attack (never Press, Test, Close, Open, Flee or Yield, unless both arms are disabled:
then Flee where allowed, else Yield); defend with the best chance left; accept a yield;
answer a flight with a last Attack. Dice are a pseudo-random generator seeded from the
OS: this is an estimate, not play (R1.4 governs the dice of real fights).
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from rules.ancath import apply, legal_actions
from rules.ancath.chances import action_problem, attack_chance, defence_options
from rules.ancath.commands import (
    AcceptYield,
    Act,
    ChooseOrder,
    Command,
    DeclareBonus,
    Defend,
    ModeratorEnd,
    Roll,
    Stop,
)
from rules.ancath.state import Action, ActionContext, FightState, Need, Strike
from rules.ancath.state import succeeds as _succeeds
from rules.errors import RulesError

__all__ = ["POLICY", "Estimate", "estimate", "policy", "succeeds", "weigh"]

POLICY = ("both sides: go first; Double if it gives a better chance of a hit than "
          "Attack, else Attack; best defence left; accept a yield; strike a fleeing foe")
Roller = Callable[[int], int]
"""Gives the d100 roll for a side."""
succeeds = _succeeds


@dataclass(frozen=True, slots=True)
class Estimate:
    wins: int
    samples: int

    @property
    def chance(self) -> float:
        return self.wins / self.samples if self.samples else 0.0

    @property
    def margin(self) -> float:
        """Half the 95% interval (normal approximation)."""
        p = self.chance
        return 1.96 * math.sqrt(p * (1 - p) / self.samples) if self.samples else 1.0


def _hit_chance(chances: tuple[int, ...]) -> float:
    miss = 1.0
    for chance in chances:
        miss *= 1 - min(99, max(1, chance)) / 100  # 1 always hits, 100 always misses
    return 1 - miss


def _strike_chances(state: FightState, side: int, action: Action) -> tuple[int, ...]:
    count = 2 if action is Action.DOUBLE else 1
    ctx = ActionContext(action, side, (Strike(None),) * count)
    return tuple(attack_chance(state, ctx, i) for i in range(count))


def policy(state: FightState) -> Command:
    """The decision the policy makes for the side the fight waits for."""
    awaiting = state.awaiting
    assert awaiting is not None and awaiting.need is not Need.ROLL
    side, need = awaiting.side, awaiting.need
    if need is Need.ORDER:
        return ChooseOrder(side, True)
    if need is Need.DEFENCE:
        assert state.context is not None
        options = defence_options(state, state.context)
        return Defend(side, max(options, key=lambda d: options[d]))
    if need is Need.YIELD_ANSWER:
        return AcceptYield(side)
    if need in (Need.ACTION, Need.LAST_TURN, Need.FLEE_ANSWER):
        if need is Need.FLEE_ANSWER:  # the last turn is the next turn (R4.8)
            from dataclasses import replace

            view = replace(state, turn=state.turn + 1)
        else:
            view = state
        strikes = [a for a in (Action.DOUBLE, Action.ATTACK)
                   if action_problem(state, side, a) is None]
        if strikes and not state.fighters[side].must_draw:
            best = max(strikes, key=lambda a: _hit_chance(_strike_chances(view, side, a)))
            return Act(side, best)
        if need is Need.FLEE_ANSWER:
            return Stop(side)
        flee_ok = need is Need.ACTION and action_problem(state, side, Action.FLEE) is None
        return Act(side, Action.FLEE if flee_ok else Action.YIELD)
    raise AssertionError(f"no policy for {need}")


def play_out(state: FightState, roll: Roller, limit: int = 5000) -> int | None:
    """The winner of one simulated fight from ``state`` (None for a draw)."""
    for _ in range(limit):
        if state.outcome is not None:
            return state.outcome.winner
        awaiting = state.awaiting
        assert awaiting is not None
        if awaiting.need is Need.ROLL:
            command: Command = Roll(awaiting.side, roll(awaiting.side))
        else:
            command = policy(state)
        state, _ = apply(state, command)
    return None


def estimate(
    state: FightState, side: int, *, seconds: float = 1.0, max_samples: int = 20_000,
    target_margin: float = 0.01, roll: Roller | None = None,
) -> Estimate:
    """How often ``side`` wins from ``state``: until the 95% margin falls below
    ``target_margin`` (checked every 200 fights), ``max_samples`` fights are played, or
    ``seconds`` pass (checked after every fight: at least one is played)."""
    if roll is None:
        rng = random.Random(os.urandom(16))
        roll = lambda _side: rng.randint(1, 100)  # noqa: E731
    deadline = time.perf_counter() + seconds
    wins = samples = 0
    while samples < max_samples:
        wins += play_out(state, roll) == side
        samples += 1
        if time.perf_counter() > deadline or (
                samples % 200 == 0 and Estimate(wins, samples).margin < target_margin):
            break
    return Estimate(wins, samples)


def weigh(state: FightState, seconds: float) -> list[tuple[Command, Estimate]]:
    """The chance of the side to decide after each move open to it (bonus declarations
    aside), ``seconds`` split between the moves."""
    awaiting = state.awaiting
    assert awaiting is not None and awaiting.need is not Need.ROLL
    side = awaiting.side
    options = [o.command for o in legal_actions(state)
               if not isinstance(o.command, ModeratorEnd | DeclareBonus)
               and o.command.side == side]
    weighed: list[tuple[Command, Estimate]] = []
    for option in options:
        try:
            after, _ = apply(state, option)
        except RulesError:
            continue
        weighed.append((option, estimate(after, side, seconds=seconds / len(options))))
    return weighed

