"""Benchmark: exact ``!odds`` on 20 positions from random fights; and, offline, their
agreement with engine fights.

    python bench/odds_exact.py [--positions N] [--seed S] [--kind K] [--checked C]
                               [--sampled PLAYOUTS] [--agree FIGHTS] [--jobs J]

The cast of ``bench/engine_fights.py`` (six warriors, all cultures) meets in ``N``
random pairings and kinds; each fight is played by the advisor's policy with seeded
dice (a benchmark may seed its dice; the bot never does, R1.4) for a random number of
steps, and stops at a decision: that is the position. Figures, one per line:

- ``odds_exact.matchup_cold_s_min``, ``_median``, ``_max``: ``!odds A vs B`` from the
  fight's start with no chain kept (a worker's first question about a matchup), worked
  out here, on one core;
- ``odds_exact.in_fight_cold_s_*``: ``!odds`` in the fight (each legal move weighed)
  with no chain kept, both ranges here, one after the other;
- ``odds_exact.request_matchup_s_*``, ``odds_exact.request_in_fight_s_*``: the same
  two questions as the bot asks them, from sending the jobs to the last part's return:
  one part per range the question reaches, each on the worker that keeps that range's chain
  (``bot.odds.worker.start_workers``: two processes), nothing kept;
- ``odds_exact.in_fight_warm_s_*``: the same after the fight's chain was worked out
  ahead from its start (what a bot on IRC does when a fight begins);
- ``odds_exact.ahead_s_*``: that work ahead, in 0.25 s pieces, in all;
- ``odds_exact.nodes_*``: the chain's size after the cold in-fight question;
- the margin, measured: for the first ``C`` positions (``--checked``, 5), the exact chance
  of the first side against a Monte Carlo estimate of ``PLAYOUTS`` (``--sampled``, 2,000)
  fights played out from the position by the same policy with seeded dice:
  ``odds_exact.margin_points_max``, the largest difference, in percentage points;
  ``odds_exact.margin_sampling_error_points``, that position's sampling error (one
  standard error of the estimate, points); ``odds_exact.margin_sigma_max``, the largest
  difference in standard errors; ``odds_exact.margin_goal`` ``met`` when that is within 3
  (the difference is what sampling alone explains) or ``missed``;
- with ``--agree FIGHTS``: ``odds_exact.agree_within_99``: of the positions, how many
  have their exact chance inside the 99% Wilson interval of ``FIGHTS`` engine fights
  played from them by the policy (``odds_exact.agree_worst_sigma``: the largest
  distance in standard errors). Offline, not in CI: 200,000 fights a position take
  about ten minutes each on this machine.
"""

from __future__ import annotations

import argparse
import importlib
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from engine_fights import KINDS, warriors  # noqa: E402

from bot.odds import advisor  # noqa: E402
from bot.odds.worker import start_workers  # noqa: E402
from rules.ancath import apply, start  # noqa: E402
from rules.ancath.commands import Roll  # noqa: E402
from rules.ancath.state import FightState, Kind, Need, Range  # noqa: E402


def positions(count: int, seed: int,
              kinds: tuple[Kind, ...] = KINDS) -> list[tuple[FightState, FightState]]:
    """(start, position) pairs: a position is a decision in a fight under the policy."""
    rng = random.Random(seed)
    cast = warriors()
    out: list[tuple[FightState, FightState]] = []
    while len(out) < count:
        a, b = rng.sample(cast, 2)
        first, _ = start(rng.choice(kinds), a, b)
        state, steps = first, rng.randint(0, 40)
        candidate = None
        while state.outcome is None and steps >= 0:
            awaiting = state.awaiting
            assert awaiting is not None
            if awaiting.need is Need.ROLL:
                state, _ = apply(state, Roll(awaiting.side, rng.randint(1, 100)))
                continue
            candidate = state
            steps -= 1
            if steps >= 0:
                state, _ = apply(state, advisor.policy(state))
        if candidate is not None:
            out.append((first, candidate))
    return out


def _timed(job: object) -> float:
    assert callable(job)
    began = time.perf_counter()
    job()
    return time.perf_counter() - began


def _requested(workers: list[ProcessPoolExecutor], state: FightState) -> float:
    """Seconds from sending ``state``'s question to its workers, one part per range as
    the pending requests do, to the last part's return; nothing kept before."""
    for worker in workers:
        worker.submit(advisor.forget).result()
    part = (advisor.weigh_part if state.awaiting and state.awaiting.need is not Need.ROLL
            else advisor.chance_part)
    began = time.perf_counter()
    futures = [workers[advisor.shard(state, where) % len(workers)].submit(part, state, where)
               for where in advisor.ranges(state)]
    for future in futures:
        future.result()
    return time.perf_counter() - began


def _spread(name: str, values: list[float]) -> None:
    for label, value in (("min", min(values)), ("median", statistics.median(values)),
                         ("max", max(values))):
        print(f"odds_exact.{name}_{label} {value:.3f}")


def _sampled(job: tuple[FightState, int, int]) -> tuple[float, float]:
    """The exact chance of side 0 from a position minus ``fights`` playouts' estimate,
    and the estimate's standard error (from the exact chance), both in points."""
    state, fights, seed = job
    exact = advisor.odds(state, 0)
    rng = random.Random(seed)
    wins = sum(advisor.play_out(state, lambda _s: rng.randint(1, 100)) == 0
               for _ in range(fights))
    return 100 * abs(exact - wins / fights), 100 * math.sqrt(exact * (1 - exact) / fights)


def _margin(drawn: list[tuple[FightState, FightState]], checked: int, fights: int,
            seed: int, jobs: int) -> None:
    """Print the margin of the exact chances, measured against playouts."""
    tasks = [(position, fights, seed + 1000 + i)
             for i, (_, position) in enumerate(drawn[:checked])]
    with ProcessPoolExecutor(jobs) as pool:
        sampled = list(pool.map(_sampled, tasks))
    worst, error = max(sampled)
    sigma = max(diff / se if se else (0.0 if diff == 0 else math.inf) for diff, se in sampled)
    print(f"odds_exact.margin_points_max {worst:.3f}")
    print(f"odds_exact.margin_sampling_error_points {error:.3f}")
    print(f"odds_exact.margin_sigma_max {sigma:.2f}")
    print(f"odds_exact.margin_goal {'met' if sigma <= 3 else 'missed'}")


def _agree(job: tuple[FightState, int, int]) -> tuple[bool, float]:
    """Whether the exact chance lies inside the 99% Wilson interval of ``fights``
    engine fights, and how many of its standard errors the sample lies from it."""
    state, fights, seed = job
    exact = advisor.odds(state, 0)
    rng = random.Random(seed)
    wins = sum(advisor.play_out(state, lambda _s: rng.randint(1, 100)) == 0
               for _ in range(fights))
    z, p = 2.576, wins / fights
    centre = (p + z * z / (2 * fights)) / (1 + z * z / fights)
    half = z * math.sqrt(p * (1 - p) / fights + z * z / (4 * fights * fights)) / (
        1 + z * z / fights)
    error = math.sqrt(exact * (1 - exact) / fights)
    return abs(exact - centre) <= half + 1e-12, abs(p - exact) / error if error else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--agree", type=int, default=0, metavar="FIGHTS")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--checked", type=int, default=5,
                        help="positions whose margin is measured (5)")
    parser.add_argument("--sampled", type=int, default=2000,
                        help="playouts per checked position (2000)")
    parser.add_argument("--kind", choices=[k.value for k in Kind], action="append",
                        help="only fights of this kind (again for more; default all)")
    args = parser.parse_args(argv)
    kinds = tuple(Kind(k) for k in args.kind) if args.kind else KINDS
    drawn = positions(args.positions, args.seed, kinds)
    importlib.import_module("bot.odds.linear")  # as the worker does when it starts
    matchup, cold, warm, nodes, ahead = [], [], [], [], []
    for first, position in drawn:
        advisor.forget()
        matchup.append(_timed(lambda f=first: advisor.odds(f, 0)))
        advisor.forget()
        cold.append(_timed(lambda p=position: advisor.weigh(p)
                           if p.awaiting and p.awaiting.need is not Need.ROLL
                           else advisor.odds(p, 0)))
        nodes.append(float(len(advisor.chain(position).values)))
        advisor.forget()
        began = time.perf_counter()
        for where in Range:
            while not advisor.prepare(first, 0.1, where):
                pass
        ahead.append(time.perf_counter() - began)
        warm.append(_timed(lambda p=position: advisor.weigh(p)))
    workers = start_workers()
    try:
        for worker in workers:
            worker.submit(advisor.forget).result()  # started and warmed
        asked = [(_requested(workers, first), _requested(workers, position))
                 for first, position in drawn]
    finally:
        for worker in workers:
            worker.shutdown()
    _spread("matchup_cold_s", matchup)
    _spread("in_fight_cold_s", cold)
    _spread("request_matchup_s", [m for m, _ in asked])
    _spread("request_in_fight_s", [f for _, f in asked])
    _spread("in_fight_warm_s", warm)
    _spread("ahead_s", ahead)
    _spread("nodes", nodes)
    _margin(drawn, max(1, args.checked), max(1, args.sampled), args.seed, args.jobs)
    if args.agree:
        jobs = [(position, args.agree, args.seed + i) for i, (_, position) in enumerate(drawn)]
        with ProcessPoolExecutor(args.jobs) as pool:
            agreed = list(pool.map(_agree, jobs))
        print(f"odds_exact.agree_within_99 {sum(inside for inside, _ in agreed)}/{len(agreed)}")
        print(f"odds_exact.agree_worst_sigma {max(sigma for _, sigma in agreed):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
