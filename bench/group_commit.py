"""Benchmark: durable commands per second with group commit, beside the bare ceiling of
one commit per transaction measured in the same run.

    python bench/group_commit.py [--fights N] [--lines L] [--window MS]
                                 [--ceiling-commands C] [--seed S] [--pg-url URL | --no-pg]

For each backend (a new SQLite file in WAL mode with ``synchronous=FULL``; and a new
database on the PostgreSQL server of ``--pg-url``, ``ANCATH_BENCH_PG_URL`` or
``ANCATH_TEST_PG_URL``, as ``bench/storage_commits.py`` makes them):

1. ``ceiling``: ``bench/storage_commits.py``'s run, C fight commands recorded through
   ``Store.record`` one transaction each (default 2,000): the bare one-commit-per-
   transaction rate.
2. The bot: N fights (default 200) in N channels at once, L chat lines in all (default
   6,000), played as ``bench/bot_inprocess.py`` plays them (the same players, rules and
   automatic dice; a channel whose fight ended starts another), but each line goes
   through the IRC transport's lanes (``bot.chat.lanes``): the event loop queues it, the
   records lane runs it, and its lines come back to the loop once committed. A line's
   latency runs from queueing it to its lines being handed back. Each phase is on a
   new database:

   - ``saturated``: with group commit (``--window``, default 1 ms); every player answers
     the moment the answer arrives, so N lines are out at once: the most the bot does;
   - ``alone``: the same with a window of 0, each command its own transaction (the bot
     before group commit);
   - ``paced``: with group commit, each player answers a random think time after the
     answer (exponential, its mean set so that the N players offer half of what
     ``saturated`` did): the latency at a load the bot carries;
   - ``paced_alone``: the same load with a window of 0.

Prints one figure per line, ``group_commit.<backend>.<name> value``: ``ceiling`` (commands
a second), then for each phase ``<phase>.commands_per_second`` (chat lines answered per
second of wall time), ``<phase>.ms_p50`` and ``<phase>.ms_p99`` (latency),
``<phase>.commands_per_commit``, and ``<phase>.x_ceiling`` (commands a second over the
ceiling; goal: at least 2, with p99 under 20 ms); ``paced.offered_per_second`` is the
load the paced players offered.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:  # run as a script from anywhere: make the repository importable
    sys.path.insert(0, ROOT)

import storage_commits  # noqa: E402
from bot_inprocess import KINDS, Channel, config, lines  # noqa: E402
from sqlalchemy import event  # noqa: E402

from bot.app import build_referee  # noqa: E402
from bot.chat.lanes import Lanes  # noqa: E402
from bot.chat.messages import Incoming, Outgoing, Sender  # noqa: E402
from bot.clock import FakeClock  # noqa: E402
from bot.dice import OsDice  # noqa: E402
from bot.odds.worker import InlineExecutor  # noqa: E402
from bot.referee import Referee  # noqa: E402
from storage.keys import Keyring, new_key  # noqa: E402

ENDLESS = 10**9
"""Decisions a channel's fights take: a new fight follows each that ends."""


@dataclass
class Phase:
    """What one phase measured."""

    timings: list[float] = field(default_factory=list)
    wall: float = 0.0
    commits: int = 0

    def figures(self, name: str, ceiling: float) -> dict[str, float]:
        cuts = statistics.quantiles(self.timings, n=100, method="inclusive")
        rate = len(self.timings) / self.wall
        return {
            f"{name}.commands_per_second": rate,
            f"{name}.ms_p50": cuts[49] * 1000,
            f"{name}.ms_p99": cuts[98] * 1000,
            f"{name}.commands_per_commit": len(self.timings) / max(self.commits, 1),
            f"{name}.x_ceiling": rate / ceiling,
        }


def referee_on(url: str) -> Referee:
    return build_referee(config(url), dice=OsDice(), clock=FakeClock(),
                         odds_workers=InlineExecutor(),
                         keyring=Keyring.of(new_key(), source="the bench's own key"))


async def play(referee: Referee, args: argparse.Namespace, window: float,
               think: float) -> Phase:
    """``args.lines`` chat lines from ``args.fights`` channels, one line out per channel
    at a time, a new fight in a channel whose fight ended, through the lanes; each
    player answers a random think time (``think`` seconds on average) after the answer
    came, or at once."""
    loop = asyncio.get_running_loop()
    phase, finished = Phase(), loop.create_future()
    rng = random.Random(args.seed)
    channels = [Channel(n, KINDS[n % len(KINDS)]) for n in range(args.fights)]
    scripts = {c.name: lines(referee, c, rng, ENDLESS) for c in channels}
    out = [0]
    lanes = Lanes(window)

    def failed(error: BaseException) -> None:
        if not finished.done():
            finished.set_exception(error)

    def guard(call: Callable[[], list[Outgoing]]) -> list[Outgoing] | None:
        try:
            return call()
        except Exception as error:
            loop.call_soon_threadsafe(failed, error)
            raise

    def later(channel: str) -> None:
        if think:
            loop.call_later(rng.expovariate(1 / think), send, channel)
        else:
            send(channel)

    def send(channel: str) -> None:
        if len(phase.timings) + out[0] >= args.lines:
            if not out[0] and not finished.done():
                finished.set_result(None)
            return
        try:
            account, text = next(scripts[channel])
        except Exception as error:   # a line that changed nothing
            failed(error)
            return
        sent = time.perf_counter()
        out[0] += 1

        def deliver(answer: list[Outgoing]) -> None:
            phase.timings.append(time.perf_counter() - sent)
            out[0] -= 1
            if not answer:
                failed(AssertionError(f"{channel}: no answer to {text!r}"))
            else:
                later(channel)

        lanes.line(referee, Incoming(sender=Sender(nick=account, account=account), text=text,
                                     channel=channel), guard, deliver)

    def committed(_connection: Any) -> None:
        phase.commits += 1

    event.listen(referee.store.engine, "commit", committed)
    began = time.perf_counter()
    try:
        for channel in scripts:
            later(channel)
        await finished
    finally:
        phase.wall = time.perf_counter() - began
        event.remove(referee.store.engine, "commit", committed)
        lanes.close()
    return phase


def backend(fresh: Callable[[], Any], args: argparse.Namespace) -> dict[str, float]:
    """Every figure of one backend; ``fresh()`` makes a new database, its URL."""
    with fresh() as url:
        timings = storage_commits.run(url, args.ceiling_commands, args.seed)
    ceiling = len(timings) / sum(timings)
    figures = {"ceiling": ceiling}

    def phase(name: str, window: float, think: float) -> float:
        with fresh() as url:
            referee = referee_on(url)
            try:
                played = asyncio.run(play(referee, args, window, think))
            finally:
                referee.store.engine.dispose()
        figures.update(played.figures(name, ceiling))
        return figures[f"{name}.commands_per_second"]

    window = args.window / 1000
    offered = phase("saturated", window, 0.0) / 2
    phase("alone", 0.0, 0.0)
    figures["paced.offered_per_second"] = offered
    phase("paced", window, args.fights / offered)
    phase("paced_alone", 0.0, args.fights / offered)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fights", type=int, default=200, help="fights at once (200)")
    parser.add_argument("--lines", type=int, default=6000,
                        help="chat lines in each phase (6000)")
    parser.add_argument("--window", type=float, default=1.0,
                        help="group commit's window in ms (1.0)")
    parser.add_argument("--ceiling-commands", type=int, default=2000,
                        help="commands for the ceiling (2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pg-url", help="PostgreSQL server URL (default: from env)")
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    args = parser.parse_args(argv)
    if args.fights < 1 or args.lines < 2 or args.ceiling_commands < 2 or args.window <= 0:
        parser.error("--fights at least 1, --lines and --ceiling-commands at least 2, "
                     "--window above 0")

    with tempfile.TemporaryDirectory(prefix="ancath-bench-") as scratch:
        files = itertools.count(1)

        @contextmanager
        def sqlite_file() -> Iterator[str]:
            yield f"sqlite:///{Path(scratch) / f'bench{next(files)}.sqlite3'}"

        report("sqlite", backend(sqlite_file, args))

    pg_url = storage_commits.pg_server(args, "group_commit.postgresql")
    if pg_url is not None:
        report("postgresql", backend(lambda: storage_commits.scratch_pg_database(pg_url),
                                     args))
    return 0


def report(name: str, figures: dict[str, float]) -> None:
    for key, value in figures.items():
        print(f"group_commit.{name}.{key} {value:.2f}")


if __name__ == "__main__":
    sys.exit(main())
