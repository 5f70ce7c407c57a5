"""Benchmark: the whole bot in process, behind a fake transport, on a real SQLite file.

    python bench/bot_inprocess.py [--fights N] [--open M] [--open-depth D]
                                  [--open-commands C] [--seed S]

Everything goes through ``Referee.handle``, as a chat line from a transport would, on a
SQLite file with a durable commit a line (WAL, ``synchronous=FULL``). Dice are
``OsDice``; the players' decisions come from ``random.Random(seed)`` (a benchmark may use
a seeded PRNG; the bot never does, R1.4), a uniform pick among the awaited side's legal
options, ``!yield`` and ``!flee`` only 1 time in 50, never ``!bonus``. Phases, each on a
new database file:

1. Fights: N channels (default 200), each with two new players who ``!create``,
   ``!challenge``, ``!accept`` and play to the end (practice, duel, mortal in turn),
   one chat line per channel per pass, so all N fights are open at once.
2. Open fights (a child process): M channels (default 1,000) each get a fight up to
   ``!accept`` and then D decisions (default 0), all left open (a fight that ends sooner
   is followed by a new one, played as far).
3. Restart (``bench/restart_figures.py``), three starts, each ``build_referee`` in a
   child of its own: the first on phase 2's file (it proves the ledger rows written
   since the last start, replays every open fight whole and keeps its checked
   snapshot); the second on the same file (each fight from its snapshot), with its
   floor in the same child: the open fights' rows read through ``sqlite3`` alone (JSON
   cells parsed) and the pure replay (the engine alone on the commands already
   decoded); the third on a copy of the file after the first start without its
   snapshots (the same records, every fight replayed whole: the fallback).

Phases 2 and 3 run again (``bot.realistic.*``) with every open fight played on to C
engine commands (default 68, rolls included: issue 34's realistic depth; 0 skips them).

Prints one figure a line, ``name value``: ``bot.commands_per_second`` (lines over time in
``handle``), ``bot.wall_commands_per_second``, ``bot.ms_per_command_p50``, ``_p99``,
``_max``, ``bot.cpu_ms_per_command`` (process CPU over phase 1 a line),
``bot.commands``, ``bot.engine_commands_per_line``; for phases 2 and 3 (the names keep
``1000`` whatever ``--open`` says) ``bot.memory_mb_1000_open_fights`` (phase 2's own peak
RSS, ``VmHWM`` of the new interpreter), ``bot.memory_import_floor_mb`` (a child that only
imports the modules phase 2 had loaded), ``bot.commands_per_open_fight``,
``bot.restart_first_seconds_1000_open_fights`` with the ledger rows it proved and
their seconds (``bot.restart_first_ledger_rows``, ``_seconds``);
``bot.restart_seconds_1000_open_fights`` (``build_referee``, the second start) and
its ``_cpu_seconds_`` (the child's CPU time: wall time swings with the machine's load),
``bot.restart_process_seconds_1000_open_fights`` (from the child's start),
``bot.restart_memory_mb_1000_open_fights``, ``bot.restart_fights_from_snapshots``,
``bot.restart_commands_replayed``, ``bot.restart_bare_read_seconds_...``,
``bot.restart_replay_seconds_...``, ``bot.restart_floor_seconds_...`` (their sum) and
its ``_cpu_seconds_``, ``bot.restart_x_floor``;
``bot.restart_full_replay_seconds_1000_open_fights`` (the third) and its
``_cpu_seconds_``, ``bot.restart_full_replay_commands`` and
``bot.restart_full_replay_x_floor``;
the same prefixed ``bot.realistic.``; then ``bot.realistic.restart_goal_1_5s met`` (or
``missed``: the second start at most 1.5 s) and
``bot.realistic.restart_full_replay_goal_1_5s``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STARTED = time.perf_counter()
ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:  # run as a script from anywhere: make the repository importable
    sys.path.insert(0, ROOT)

from child_memory import import_floor_kb  # noqa: E402
from restart_figures import restart_phase, without_snapshots  # noqa: E402

from bot.app import build_referee, freeze_start  # noqa: E402
from bot.clock import FakeClock  # noqa: E402
from bot.config import BotConfig  # noqa: E402
from bot.dice import OsDice  # noqa: E402
from bot.messages import Incoming, Sender  # noqa: E402
from bot.referee import Referee  # noqa: E402
from rules.ancath import legal_actions  # noqa: E402
from rules.ancath.commands import (  # noqa: E402
    AcceptYield,
    Act,
    ChooseOrder,
    Defend,
    RejectYield,
    Stop,
)
from rules.ancath.state import Action, FightState  # noqa: E402

KINDS = ("practice", "duel", "mortal")
CAST = (
    "goblin club spear",
    "free-clans broadsword shield",
    "invaders spear",
    "fairy lajatang",
    "free-clans axe greatsword",
    "goblin axe shield",
    "invaders shortsword",
    "fairy countersword",
)
"""``!create <name> ...`` tails: all four cultures, slow, long, short and paired weapons."""
RARE = (Action.YIELD, Action.FLEE)
RARE_CHANCE = 1 / 50
SCRIPT = Path(__file__).resolve()
GOAL_RESTART = 1.5   # seconds to resume 1,000 open fights of 68 commands (issue 34)


def config(database: str) -> BotConfig:
    return BotConfig(database=database, moderators=[], rolls="auto", fairy_folk_open=True)


def build(database: str) -> Referee:
    referee = build_referee(config(database), dice=OsDice(), clock=FakeClock())
    freeze_start()   # as ancath-bot run does
    return referee


def verb(command: Any, mortal: bool) -> str:
    """The chat line that makes ``command`` (the awaited side's, never a bonus)."""
    if isinstance(command, Act):
        return f"!{command.action.value}"
    if isinstance(command, Defend):
        return f"!{command.defence.value}"
    if isinstance(command, ChooseOrder):
        return "!first" if command.first else "!second"
    if isinstance(command, AcceptYield):
        if mortal:
            return "!accept prisoner" if command.prisoner else "!accept release"
        return "!accept"
    if isinstance(command, RejectYield):
        return "!reject"
    if isinstance(command, Stop):
        return "!stop"
    raise AssertionError(f"no chat verb for {command!r}")


def decide(referee: Referee, channel: str, rng: random.Random) -> tuple[str, str] | None:
    """(account, line) for the awaited decision in ``channel``; None when it has ended."""
    fight = referee.tables.table(channel).fight
    if fight is None or fight.state.awaiting is None:
        return None
    state = fight.state
    assert isinstance(state, FightState) and state.awaiting is not None
    side = state.awaiting.side
    options = [c for c in (o.command for o in legal_actions(state))
               if isinstance(c, Act | Defend | ChooseOrder | AcceptYield | RejectYield | Stop)
               and c.side == side]
    if not options:
        raise AssertionError(f"{channel}: nothing legal for side {side}: {fight.state}")
    usual = [c for c in options if not (isinstance(c, Act) and c.action in RARE)]
    pick = rng.choice(usual if usual and rng.random() >= RARE_CHANCE else options)
    return fight.accounts[side], verb(pick, fight.kind == "mortal")


@dataclass
class Channel:
    """One channel's players and how far its fight has got."""

    number: int
    kind: str

    @property
    def name(self) -> str:
        return f"#c{self.number}"

    @property
    def players(self) -> tuple[str, str]:
        return f"a{self.number}", f"b{self.number}"

    def opening(self, bout: int) -> list[tuple[str, str]]:
        """(account, line): two new warriors, a challenge and its acceptance."""
        a, b = self.players
        n = self.number
        mine, theirs = (f"A{n}", f"B{n}") if bout == 0 else (f"A{n}x{bout}", f"B{n}x{bout}")
        return [
            (a, f"!create {mine} {CAST[(2 * n + bout) % len(CAST)]}"),
            (b, f"!create {theirs} {CAST[(2 * n + bout + 1) % len(CAST)]}"),
            (a, f"!challenge {theirs} as {mine} {self.kind}"),
            (b, "!accept"),
        ]


def lines(referee: Referee, channel: Channel, rng: random.Random,
          depth: int | None, until: int = 0) -> Iterator[tuple[str, str]]:
    """The channel's chat lines, one at a time, each worked out after the last was
    handled: the opening, then every decision to the fight's end (``depth`` None), or
    ``depth`` decisions and on until the fight holds ``until`` engine commands, with the
    fight left open (a fight that ends sooner is followed by a new one between two new
    warriors, played as far)."""
    bout = 0
    while True:
        yield from channel.opening(bout)
        if referee.tables.table(channel.name).fight is None:
            raise AssertionError(f"{channel.name}: no fight after !accept")
        taken = 0
        while depth is None or taken < depth or len(
                getattr(referee.tables.table(channel.name).fight, "commands", ())) < until:
            before = referee.tables.table(channel.name).fight
            step = decide(referee, channel.name, rng)
            if step is None:
                break
            yield step
            taken += 1
            if referee.tables.table(channel.name).fight is before:  # refused: nothing moved
                raise AssertionError(f"{channel.name}: {step[1]!r} by {step[0]} "
                                     "changed nothing")
        if depth is None or referee.tables.table(channel.name).fight is not None:
            return
        bout += 1


@dataclass
class Run:
    timings: list[float] = field(default_factory=list)
    wall: float = 0.0


def play(referee: Referee, channels: Sequence[Channel], rng: random.Random,
         depth: int | None, until: int = 0) -> Run:
    """Round-robin over the channels, one line each per pass, until every script ends."""
    run = Run()
    clock = time.perf_counter
    scripts = [(c, lines(referee, c, rng, depth, until)) for c in channels]
    began = clock()
    while scripts:
        going = []
        for channel, script in scripts:
            step = next(script, None)
            if step is None:
                continue
            account, text = step
            message = Incoming(sender=Sender(nick=account, account=account), text=text,
                               channel=channel.name)
            t = clock()
            out = referee.handle(message)
            run.timings.append(clock() - t)
            if not out:
                raise AssertionError(f"{channel.name}: no answer to {text!r}")
            going.append((channel, script))
        scripts = going
    run.wall = clock() - began
    return run


def peak_rss_mb() -> float:
    """This process's own peak RSS in MiB: ``VmHWM``, which a new program image starts
    afresh (``ru_maxrss`` keeps the parent's across fork and exec). Linux only."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024  # kB
    raise SystemExit("no VmHWM in /proc/self/status: Linux only")


def fights_phase(database: str, fights: int, seed: int) -> dict[str, float]:
    referee = build(database)
    rng = random.Random(seed)
    channels = [Channel(n, KINDS[n % len(KINDS)]) for n in range(fights)]
    cpu = time.process_time()
    run = play(referee, channels, rng, None)
    cpu = time.process_time() - cpu
    still_open, problems = referee.store.open_fights()
    if still_open or problems:
        raise SystemExit(f"after the run: {len(still_open)} fights open, {problems}")
    audit = referee.store.verify()
    if audit:
        raise SystemExit(f"ledger problems after the run: {audit}")
    commits = sum(len(referee.store.fight(referee.tables.table(c.name).last_fight_id or 0).commands)
                  for c in channels)
    timings = run.timings
    cuts = statistics.quantiles(timings, n=100, method="inclusive")
    return {
        "bot.commands": float(len(timings)),
        "bot.commands_per_second": len(timings) / sum(timings),
        "bot.wall_commands_per_second": len(timings) / run.wall,
        "bot.ms_per_command_p50": cuts[49] * 1000,
        "bot.ms_per_command_p99": cuts[98] * 1000,
        "bot.ms_per_command_max": max(timings) * 1000,
        "bot.cpu_ms_per_command": cpu / len(timings) * 1000,
        "bot.engine_commands_per_line": commits / len(timings),
    }


def open_phase(database: str, count: int, depth: int, until: int,
               seed: int) -> dict[str, Any]:
    referee = build(database)
    channels = [Channel(n, KINDS[n % len(KINDS)]) for n in range(count)]
    play(referee, channels, random.Random(seed), depth, until)
    fights = [t.fight for t in referee.tables.values() if t.fight is not None]
    if len(fights) != count:
        raise SystemExit(f"{len(fights)} fights open, not {count}")
    return {
        "bot.memory_mb_1000_open_fights": peak_rss_mb(),
        "bot.commands_per_open_fight": sum(len(f.commands) for f in fights) / count,
        "modules": sorted(sys.modules),
    }


def child(phase: str, database: str, args: argparse.Namespace,
          until: int) -> dict[str, Any]:
    """Run a phase in a new interpreter; its figures come back as JSON on stdout."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--phase", phase, "--database", database,
         "--open", str(args.open), "--open-depth", str(args.open_depth if not until else 0),
         "--open-commands", str(until), "--seed", str(args.seed)],
        capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"phase {phase} failed:\n{done.stderr}")
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def open_and_restart(scratch: str, args: argparse.Namespace, until: int) -> dict[str, float]:
    """Phases 2 and 3 with the open fights played ``args.open_depth`` decisions deep, or
    (``until``) to that many engine commands; the import floor beside the memory."""
    opened = Path(scratch) / f"open{until}.sqlite3"
    url = f"sqlite:///{opened}"
    figures = child("open", url, args, until)
    modules = figures.pop("modules")
    figures["bot.memory_import_floor_mb"] = import_floor_kb(modules) / 1024
    first = child("restart", url, args, until)
    whole_copy = opened.with_name(f"whole{until}.sqlite3")
    without_snapshots(opened, whole_copy)
    snap = child("restart", url, args, until)
    whole = child("restart", f"sqlite:///{whole_copy}", args, until)
    floor = snap["restart_floor_seconds"]
    names = {"seconds": "restart_seconds_1000_open_fights",
             "cpu_seconds": "restart_cpu_seconds_1000_open_fights",
             "process_seconds": "restart_process_seconds_1000_open_fights",
             "memory_mb": "restart_memory_mb_1000_open_fights",
             "from_snapshots": "restart_fights_from_snapshots",
             "commands_replayed": "restart_commands_replayed",
             "bare_read_seconds": "restart_bare_read_seconds_1000_open_fights",
             "replay_seconds": "restart_replay_seconds_1000_open_fights",
             "floor_seconds": "restart_floor_seconds_1000_open_fights",
             "floor_cpu_seconds": "restart_floor_cpu_seconds_1000_open_fights"}
    return figures | {
        "bot.restart_first_seconds_1000_open_fights": first["restart_seconds"],
        "bot.restart_first_ledger_rows": first["restart_ledger_rows"],
        "bot.restart_first_ledger_seconds": first["restart_ledger_seconds"],
        **{f"bot.{name}": snap[f"restart_{key}"] for key, name in names.items()},
        "bot.restart_x_floor": snap["restart_seconds"] / floor,
        "bot.restart_full_replay_seconds_1000_open_fights": whole["restart_seconds"],
        "bot.restart_full_replay_cpu_seconds_1000_open_fights": whole["restart_cpu_seconds"],
        "bot.restart_full_replay_commands": whole["restart_commands_replayed"],
        "bot.restart_full_replay_x_floor": whole["restart_seconds"] / floor}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fights", type=int, default=200, help="fights at once (200)")
    parser.add_argument("--open", type=int, default=1000,
                        help="open fights for memory and restart (1000)")
    parser.add_argument("--open-depth", type=int, default=0,
                        help="decisions each open fight gets after !accept (0)")
    parser.add_argument("--open-commands", type=int, default=68,
                        help="engine commands each open fight holds in the realistic "
                             "restart (68)")
    parser.add_argument("--seed", type=int, default=1, help="seed for the decisions (1)")
    parser.add_argument("--phase", choices=("open", "restart"), help=argparse.SUPPRESS)
    parser.add_argument("--database", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.fights < 1 or args.open < 1 or args.open_depth < 0 or args.open_commands < 0:
        parser.error("--fights and --open must be at least 1, --open-depth and "
                     "--open-commands at least 0")

    if args.phase == "open":
        print(json.dumps(open_phase(args.database, args.open, args.open_depth,
                                    args.open_commands, args.seed)))
        return 0
    if args.phase == "restart":
        print(json.dumps(restart_phase(build, args.database, args.open, STARTED,
                                       peak_rss_mb)))
        return 0

    with tempfile.TemporaryDirectory(prefix="ancath-bench-") as scratch:
        figures = fights_phase(str(Path(scratch) / "fights.sqlite3"), args.fights, args.seed)
        figures |= open_and_restart(scratch, args, 0)
        if args.open_commands:
            figures |= {name.replace("bot.", "bot.realistic.", 1): value for name, value
                        in open_and_restart(scratch, args, args.open_commands).items()}
    for name, value in figures.items():
        print(f"{name} {value:.0f}" if name == "bot.commands" else f"{name} {value:.2f}")
    if args.open_commands:
        for goal, name in (("restart_goal_1_5s", "restart_seconds_1000_open_fights"),
                           ("restart_full_replay_goal_1_5s",
                            "restart_full_replay_seconds_1000_open_fights")):
            met = figures[f"bot.realistic.{name}"] <= GOAL_RESTART
            print(f"bot.realistic.{goal} {'met' if met else 'missed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
