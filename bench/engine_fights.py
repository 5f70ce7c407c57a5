"""Benchmark: complete An Cath fights through the pure engine, on one core.

    python bench/engine_fights.py [--fights N] [--advisor-fights M] [--seed S]

Compare with the rules of another commit in the same run by putting a copy of its
``rules/`` first on ``PYTHONPATH`` (the repository is only appended to ``sys.path``).

Six fixed warriors (all four cultures; slow, long, short and doubling weapons) meet in
every ordered pairing. Two policies play in the same run, rolls from
``random.Random(seed)`` (a benchmark may use a seeded PRNG; the bot never does, R1.4):

- ``random``: a uniform pick from ``legal_actions`` for each decision, the fight kind
  rotating practice, duel, mortal (many fights end early: a yield, first blood, a flight);
- ``advisor``: the odds advisor's own policy (``bot.odds.advisor.policy``: go first, Double
  or Attack by the better hit chance, best defence left, accept a yield, strike a fleeing
  foe), mortal fights only, so each runs to a kill (or, rarely, an escape or a yield:
``kills_per_fight``). Importing it brings no I/O (no asyncio, sockets or database).

Each phase is timed in CPU seconds (``time.process_time``), then its recorded commands
are replayed through ``start`` and ``apply`` alone, and its decision points through
``legal_actions`` alone, so the engine's own rates are apart from the policy's cost.
A bare reference is timed in the same run: ``dataclasses.replace`` of an 11-field frozen
slots dataclass with ``FightState``'s fields, and a direct construction of one.

Prints one figure per line, ``name value`` (rates per CPU second). The random policy's
figures keep their old names, ``engine.X``; the advisor's are ``engine.advisor.X``:
``fights_per_second`` (whole fights: start, policy, legal_actions, apply),
``applies_per_second`` and ``legal_actions_per_second`` (replayed), ``commands_per_fight``,
``turns_per_fight``, ``max_commands_per_fight``, ``engine_share`` (the replay's CPU over the
fights' CPU) and, for the advisor, ``kills_per_fight`` (the share ended by a kill). Then
``engine.bare.replaces_per_second``, ``engine.bare.constructions_per_second``,
``engine.applies_per_bare_replace`` (how many bare replaces one apply costs) and
``engine.goal_ratio`` (random fights/s over the goal of 10,000: met at >= 1).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, make_dataclass, replace
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:  # run as a script: the repository, after any PYTHONPATH (old rules)
    sys.path.append(ROOT)

from bot.odds.advisor import policy as advisor_policy  # noqa: E402
from rules.ancath import apply, legal_actions, start  # noqa: E402
from rules.ancath.commands import Command, Roll  # noqa: E402
from rules.ancath.sheet import Sheet, create_warrior  # noqa: E402
from rules.ancath.state import Ending, FightState, Kind, Need  # noqa: E402
from rules.ancath.tables import Armour, Culture, Skill  # noqa: E402

KINDS = (Kind.PRACTICE, Kind.DUEL, Kind.MORTAL)
GOAL = 10_000.0
"""Random-policy fights per second on one core (issue 34)."""
Policy = Callable[[FightState, random.Random], Command]


def _warrior(name: str, culture: Culture, picks: Sequence[Skill], armour: Armour, bp: int,
             **levels: int) -> Sheet:
    sheet, _ = create_warrior(name, culture, picks, armour, fairy_open=True)
    skills = {**sheet.skills, **{Skill(k): v for k, v in levels.items()}}
    return replace(sheet, skills=skills, bp=bp)


def warriors() -> tuple[Sheet, ...]:
    """The fixed cast: two pairs share a BP total, so initiative is sometimes rolled."""
    return (
        _warrior("Marcus", Culture.INVADERS, [Skill.SPEAR], Armour.COHORT, 50,
                 spear=60, shield=50, move=40),
        _warrior("Olaf", Culture.FREE_CLANS, [Skill.AXE, Skill.GREATSWORD], Armour.HIGHLANDER,
                 120, greatsword=70, axe=45, move=45),
        _warrior("Aine", Culture.FAIRY, [Skill.COUNTERSWORD], Armour.LEATHER, 120,
                 shortsword=65, countersword=55, move=55),
        _warrior("Niamh", Culture.FAIRY, [Skill.LAJATANG], Armour.NONE, 0,
                 lajatang=60, shortsword=40, move=50),
        _warrior("Gorbag", Culture.GOBLIN, [Skill.CLUB, Skill.SHIELD], Armour.LEATHER, 0,
                 club=55, shield=45, move=35),
        _warrior("Ugluk", Culture.GOBLIN, [Skill.AXE, Skill.SPEAR], Armour.NONE, 50,
                 axe=50, spear=40, move=30),
    )


def random_choice(state: FightState, rng: random.Random) -> Command:
    """A uniform pick among the legal decisions."""
    return rng.choice(legal_actions(state)).command


def advisor_choice(state: FightState, rng: random.Random) -> Command:
    """The odds advisor's decision (it asks ``legal_actions`` nothing; no randomness)."""
    return advisor_policy(state)


@dataclass
class Totals:
    """One policy's fights: counts, CPU seconds, and the fights kept for the replays."""

    fights: int = 0
    commands: int = 0
    turns: int = 0
    longest: int = 0
    kills: int = 0
    cpu: float = 0.0
    played: list[tuple[Kind, Sheet, Sheet, list[Command]]] = field(default_factory=list)


def run(fights: int, seed: int, choose: Policy = random_choice,
        kinds: Sequence[Kind] = KINDS) -> Totals:
    """Play ``fights`` fights; deterministic for a given seed."""
    rng = random.Random(seed)
    cast = warriors()
    pairs = [(a, b) for a in cast for b in cast if a is not b]
    totals = Totals()
    began = time.process_time()
    for number in range(fights):
        challenger, defender = pairs[(number // len(kinds)) % len(pairs)]
        kind = kinds[number % len(kinds)]
        state, _ = start(kind, challenger, defender)
        commands: list[Command] = []
        while state.awaiting is not None:
            awaiting = state.awaiting
            command = (Roll(awaiting.side, rng.randint(1, 100)) if awaiting.need is Need.ROLL
                       else choose(state, rng))
            state, _ = apply(state, command)
            commands.append(command)
        totals.played.append((kind, challenger, defender, commands))
        totals.fights += 1
        totals.commands += len(commands)
        totals.turns += state.turn
        totals.kills += state.outcome is not None and state.outcome.ending is Ending.KILL
        totals.longest = max(totals.longest, len(commands))
    totals.cpu = time.process_time() - began
    return totals


def replay(totals: Totals) -> tuple[float, float, int]:
    """CPU seconds of ``start`` + ``apply`` over every recorded command, CPU seconds of
    ``legal_actions`` at every decision point, and how many decision points."""
    decisions: list[FightState] = []
    began = time.process_time()
    for kind, challenger, defender, commands in totals.played:
        state, _ = start(kind, challenger, defender)
        for command in commands:
            state, _ = apply(state, command)
    in_apply = time.process_time() - began
    for kind, challenger, defender, commands in totals.played:
        state, _ = start(kind, challenger, defender)
        for command in commands:
            if not isinstance(command, Roll):
                decisions.append(state)
            state, _ = apply(state, command)
    began = time.process_time()
    for state in decisions:
        legal_actions(state)
    return in_apply, time.process_time() - began, len(decisions)


def bare(steps: int) -> tuple[float, float]:
    """Per CPU second: ``dataclasses.replace`` of an 11-field frozen state, and a direct
    construction of one (the floor of building a state once). The state is a plain
    frozen slots dataclass of ``FightState``'s fields, so the reference is what
    ``dataclasses`` alone costs, whatever the engine does to build its own states."""
    plain = make_dataclass("PlainState", [f.name for f in fields(FightState)], frozen=True,
                           slots=True)
    first, _ = start(Kind.MORTAL, *warriors()[:2])
    state = plain(*(getattr(first, f.name) for f in fields(FightState)))
    began = time.process_time()
    for turn in range(steps):
        state = replace(state, turn=turn)
    replaces = steps / (time.process_time() - began)
    s = state
    began = time.process_time()
    for turn in range(steps):
        s = plain(s.kind, s.fighters, s.awaiting, s.range, turn, s.actor, s.started,
                  s.initiative, s.fleeing, s.context, s.outcome)
    return replaces, steps / (time.process_time() - began)


def figures_of(prefix: str, totals: Totals) -> dict[str, float]:
    """The figures of one policy's phase, replays included, named ``prefix`` + name."""
    in_apply, in_legal, decisions = replay(totals)
    return {
        f"{prefix}fights_per_second": totals.fights / totals.cpu,
        f"{prefix}applies_per_second": totals.commands / in_apply,
        f"{prefix}legal_actions_per_second": decisions / in_legal,
        f"{prefix}commands_per_fight": totals.commands / totals.fights,
        f"{prefix}turns_per_fight": totals.turns / totals.fights,
        f"{prefix}max_commands_per_fight": float(totals.longest),
        f"{prefix}engine_share": in_apply / totals.cpu,
    }


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fights", type=int, default=20000,
                        help="random-policy fights (20000)")
    parser.add_argument("--advisor-fights", type=int, default=None,
                        help="advisor-policy mortal fights, each to its end (a fifth of --fights)")
    parser.add_argument("--seed", type=int, default=1, help="seed for choices and rolls (1)")
    args = parser.parse_args(argv)
    advisor_fights = args.fights // 5 if args.advisor_fights is None else args.advisor_fights
    if args.fights < 1 or advisor_fights < 1:
        parser.error("--fights and --advisor-fights must be at least 1")
    figures = figures_of("engine.", run(args.fights, args.seed))
    advisor = run(advisor_fights, args.seed, advisor_choice, (Kind.MORTAL,))
    figures.update(figures_of("engine.advisor.", advisor))
    figures["engine.advisor.kills_per_fight"] = advisor.kills / advisor.fights
    replaces, constructions = bare(max(20000, args.fights * 5))
    figures["engine.bare.replaces_per_second"] = replaces
    figures["engine.bare.constructions_per_second"] = constructions
    figures["engine.applies_per_bare_replace"] = replaces / figures["engine.applies_per_second"]
    figures["engine.goal_ratio"] = figures["engine.fights_per_second"] / GOAL
    for name, value in figures.items():
        print(f"{name} {value:.2f}")
    return figures


if __name__ == "__main__":
    main()
