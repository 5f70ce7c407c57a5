"""Benchmark: complete An Cath fights through the pure engine, on one core.

    python bench/engine_fights.py [--fights N] [--seed S]

Six fixed warriors (all four cultures; slow, long, short and doubling weapons) meet in
every ordered pairing, with the fight kind rotating practice, duel, mortal. A random
legal policy plays each fight to its end: a uniform pick from ``legal_actions`` for a
decision, ``randint(1, 100)`` for a roll, both from ``random.Random(seed)``, so a run is
repeatable. (A benchmark may use a seeded PRNG; the bot never does, R1.4.)

Prints one figure per line, ``name value``:

- ``engine.fights_per_second``: whole fights (``start``, every ``legal_actions`` and
  ``apply``, the policy) per second of wall time;
- ``engine.applies_per_second``: ``apply`` calls per second of time spent in ``apply``;
- ``engine.legal_actions_per_second``: the same for ``legal_actions``;
- ``engine.commands_per_fight``, ``engine.turns_per_fight``: means per fight;
- ``engine.max_commands_per_fight``: the longest fight, in commands.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:  # run as a script from anywhere: make the repository importable
    sys.path.insert(0, ROOT)

from rules.ancath import apply, legal_actions, start  # noqa: E402
from rules.ancath.commands import Command, Roll  # noqa: E402
from rules.ancath.sheet import Sheet, create_warrior  # noqa: E402
from rules.ancath.state import Kind, Need  # noqa: E402
from rules.ancath.tables import Armour, Culture, Skill  # noqa: E402

KINDS = (Kind.PRACTICE, Kind.DUEL, Kind.MORTAL)


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


@dataclass
class Totals:
    fights: int = 0
    commands: int = 0
    turns: int = 0
    longest: int = 0
    legal_calls: int = 0
    wall: float = 0.0
    in_apply: float = 0.0
    in_legal: float = 0.0

    def figures(self) -> dict[str, float]:
        return {
            "engine.fights_per_second": self.fights / self.wall,
            "engine.applies_per_second": self.commands / self.in_apply,
            "engine.legal_actions_per_second": self.legal_calls / self.in_legal,
            "engine.commands_per_fight": self.commands / self.fights,
            "engine.turns_per_fight": self.turns / self.fights,
            "engine.max_commands_per_fight": float(self.longest),
        }


def run(fights: int, seed: int) -> Totals:
    """Play ``fights`` fights; deterministic for a given seed."""
    rng = random.Random(seed)
    cast = warriors()
    pairs = [(a, b) for a in cast for b in cast if a is not b]
    clock = time.perf_counter
    totals = Totals()
    began = clock()
    for number in range(fights):
        challenger, defender = pairs[(number // len(KINDS)) % len(pairs)]
        state, _ = start(KINDS[number % len(KINDS)], challenger, defender)
        commands = 0
        while state.awaiting is not None:
            awaiting = state.awaiting
            command: Command
            if awaiting.need is Need.ROLL:
                command = Roll(awaiting.side, rng.randint(1, 100))
            else:
                t = clock()
                options = legal_actions(state)
                totals.in_legal += clock() - t
                totals.legal_calls += 1
                command = rng.choice(options).command
            t = clock()
            state, _ = apply(state, command)
            totals.in_apply += clock() - t
            commands += 1
        totals.fights += 1
        totals.commands += commands
        totals.turns += state.turn
        totals.longest = max(totals.longest, commands)
    totals.wall = clock() - began
    return totals


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fights", type=int, default=20000, help="fights to run (20000)")
    parser.add_argument("--seed", type=int, default=1, help="seed for choices and rolls (1)")
    args = parser.parse_args(argv)
    if args.fights < 1:
        parser.error("--fights must be at least 1")
    figures = run(args.fights, args.seed).figures()
    for name, value in figures.items():
        print(f"{name} {value:.1f}")
    return figures


if __name__ == "__main__":
    main()
