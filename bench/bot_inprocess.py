"""Benchmark: the whole bot in process, behind a fake transport, on a real SQLite file.

    python bench/bot_inprocess.py [--fights N] [--open M] [--open-depth D] [--seed S]

Everything goes through ``Referee.handle``, as a chat line from a transport would: the
command parser, the engine, rendering, and storage with a durable commit per accepted
engine command (WAL, ``synchronous=FULL``; automatic d100 rolls are commands too, so one
chat line may commit several times). Dice are ``OsDice``, the bot's own; the players'
decisions come from ``random.Random(seed)`` (a benchmark may use a seeded PRNG; the bot
never does, R1.4), a uniform pick among the awaited side's legal options, except that
``!yield`` and ``!flee`` are taken only 1 time in 50 (or when nothing else is legal) so
fights last their usual length, and ``!bonus`` is never said.

Three phases, each on a new database file in a temp dir:

1. Fights: N channels (default 200), each with two new players who ``!create`` a warrior
   each, ``!challenge``, ``!accept`` and play the fight to its end; kinds rotate
   practice, duel, mortal. The channels take turns, one chat line per channel per pass,
   so all N fights are open at once. Every ``handle`` call is timed.
2. Open fights (a child process, so the peak is this phase's alone): M channels
   (default 1,000) each get a fight up to ``!accept`` (initiative rolled, the winner's
   ``!first``/``!second`` awaited), all left open. With ``--open-depth D`` each fight
   then takes D decisions first, so a restart has more to replay; a fight that ends
   sooner is followed by a new one in its channel, so M are still open at the end.
3. Restart (another child process): ``build_referee`` on phase 2's file, which replays
   every open fight.

Prints one figure per line, ``name value``:

- ``bot.commands_per_second``: chat lines handled per second of time in ``handle``
  (goal: at least 1,000); ``bot.wall_commands_per_second`` counts the benchmark's own
  policy too;
- ``bot.ms_per_command_p50``, ``bot.ms_per_command_p99`` (goal: under 20),
  ``bot.ms_per_command_max``: per-line latency of ``handle``;
- ``bot.cpu_ms_per_command``: the process's CPU time over phase 1 per line (the
  benchmark's own policy included; a commit's wait for the disk is not CPU), the cost
  that stays when the disk is fast;
- ``bot.commands``, ``bot.engine_commands_per_line``: lines handled in phase 1, and
  engine commands recorded per line (a line and its automatic rolls share one commit);
- ``bot.memory_mb_1000_open_fights``: peak RSS of the phase 2 process in MiB (Linux
  ``VmHWM``; ``ru_maxrss`` elsewhere), interpreter and imports included (goal: under
  150); the names keep ``1000`` whatever ``--open`` says;
- ``bot.commands_per_open_fight``: engine commands (rolls included) stored per open
  fight, which a restart replays;
- ``bot.restart_seconds_1000_open_fights``: wall time of ``build_referee`` in phase 3
  (goal: under 3), after the imports; ``bot.restart_process_seconds_1000_open_fights``
  is from the child's start (interpreter and imports included) to ready;
- ``bot.restart_memory_mb_1000_open_fights``: peak RSS of the phase 3 process.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
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
          depth: int | None) -> Iterator[tuple[str, str]]:
    """The channel's chat lines, one at a time, each worked out after the last was
    handled: the opening, then every decision to the fight's end (``depth`` None), or
    ``depth`` decisions with the fight left open (a fight that ends sooner is followed
    by a new one between two new warriors)."""
    bout = 0
    while True:
        yield from channel.opening(bout)
        if referee.tables.table(channel.name).fight is None:
            raise AssertionError(f"{channel.name}: no fight after !accept")
        taken = 0
        while depth is None or taken < depth:
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
    commits: int = 0


def play(referee: Referee, channels: Sequence[Channel], rng: random.Random,
         depth: int | None) -> Run:
    """Round-robin over the channels, one line each per pass, until every script ends."""
    run = Run()
    clock = time.perf_counter
    scripts = [(c, lines(referee, c, rng, depth)) for c in channels]
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
    """This process's peak RSS in MiB: ``VmHWM``, which a new program image starts
    afresh, where ``ru_maxrss`` keeps the parent's RSS across fork and exec."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


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


def open_phase(database: str, count: int, depth: int, seed: int) -> dict[str, float]:
    referee = build(database)
    channels = [Channel(n, KINDS[n % len(KINDS)]) for n in range(count)]
    play(referee, channels, random.Random(seed), depth)
    fights = [t.fight for t in referee.tables.values() if t.fight is not None]
    if len(fights) != count:
        raise SystemExit(f"{len(fights)} fights open, not {count}")
    return {
        "bot.memory_mb_1000_open_fights": peak_rss_mb(),
        "bot.commands_per_open_fight": sum(len(f.commands) for f in fights) / count,
    }


def restart_phase(database: str, count: int) -> dict[str, float]:
    began = time.perf_counter()
    referee = build(database)
    ready = time.perf_counter()
    resumed = sum(t.fight is not None for t in referee.tables.values())
    if resumed != count:
        raise SystemExit(f"{resumed} fights resumed, not {count}")
    return {
        "bot.restart_seconds_1000_open_fights": ready - began,
        "bot.restart_process_seconds_1000_open_fights": ready - STARTED,
        "bot.restart_memory_mb_1000_open_fights": peak_rss_mb(),
    }


def child(phase: str, database: str, args: argparse.Namespace) -> dict[str, float]:
    """Run a phase in a new interpreter; its figures come back as JSON on stdout."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--phase", phase, "--database", database,
         "--open", str(args.open), "--open-depth", str(args.open_depth),
         "--seed", str(args.seed)],
        capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"phase {phase} failed:\n{done.stderr}")
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fights", type=int, default=200, help="fights at once (200)")
    parser.add_argument("--open", type=int, default=1000,
                        help="open fights for memory and restart (1000)")
    parser.add_argument("--open-depth", type=int, default=0,
                        help="decisions each open fight gets after !accept (0)")
    parser.add_argument("--seed", type=int, default=1, help="seed for the decisions (1)")
    parser.add_argument("--phase", choices=("open", "restart"), help=argparse.SUPPRESS)
    parser.add_argument("--database", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.fights < 1 or args.open < 1 or args.open_depth < 0:
        parser.error("--fights and --open must be at least 1, --open-depth at least 0")

    if args.phase == "open":
        print(json.dumps(open_phase(args.database, args.open, args.open_depth, args.seed)))
        return 0
    if args.phase == "restart":
        print(json.dumps(restart_phase(args.database, args.open)))
        return 0

    with tempfile.TemporaryDirectory(prefix="ancath-bench-") as scratch:
        figures = fights_phase(str(Path(scratch) / "fights.sqlite3"), args.fights, args.seed)
        opened = str(Path(scratch) / "open.sqlite3")
        figures |= child("open", opened, args)
        figures |= child("restart", opened, args)
    for name, value in figures.items():
        print(f"{name} {value:.0f}" if name == "bot.commands" else f"{name} {value:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
