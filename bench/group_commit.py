"""Benchmark: durable commands per second with group commit, beside the bare ceiling of
one commit per transaction measured in the same run.

    python bench/group_commit.py [--fights N] [--lines L] [--window MS]
                                 [--ceiling-commands C] [--seed S] [--sync-ms D]
                                 [--pg-url URL | --no-pg] [--no-sqlite]

For each backend (a new SQLite file in WAL mode with ``synchronous=FULL``; and a new
database on the PostgreSQL server of ``--pg-url``, ``ANCATH_BENCH_PG_URL`` or
``ANCATH_TEST_PG_URL``, as ``bench/storage_commits.py`` makes them):

1. ``ceiling``: ``bench/storage_commits.py``'s run, C fight commands recorded through
   ``Store.record`` one transaction each (default 2,000): the bare one-commit-per-
   transaction rate; and ``bare_commits_per_second``, its ``bare``: C bare commits of
   one row straight through the driver, the disk's (or server's) own ceiling, which
   says how much of ``ceiling`` is the store's CPU rather than the sync.
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
   - ``paced``: with group commit, each player's lines are due at random times, the next
     a random interval after it sent the last (exponential, its mean set so that the N
     players offer half of what ``saturated`` did), or as soon as the answer to the
     last came when that was later: a load offered whatever the latency (while the
     answers come within the interval), and the latency at a load the bot carries;
   - ``paced_alone``: the same load with a window of 0;
   - ``goal``: with group commit, paced as ``paced`` but offering the goal's load, twice
     the ceiling in fight commands (in lines, at the fight commands a line kept in
     ``saturated``; what it carried is its ``x_ceiling_fight_commands``): the goal's p99
     at the goal's own rate. Where the bot cannot carry that load (``saturated`` is below
     it) the lines wait in its queue, and its p99 says so.

3. On PostgreSQL only (SQLite serves one process, as the README says): two processes on
   one new database, as two bots on two networks share a club. Each is a child process
   (this script with hidden options) with its own referee, on network ``north`` or
   ``south``, and half the fights (channel and warrior numbers ``0..N/2-1`` and
   ``N/2..N-1``, so names never meet) and half the lines; both sign with one ledger key.
   Both start at one moment the parent gives once both are ready, and each hands back its
   timings as JSON on stdout:

   - ``two_processes``: as ``saturated``;
   - ``paced_two_processes``: as ``paced``, the same think time, so the same load in all.

With ``--sync-ms D`` every commit in every phase, the ceilings' included, waits D
milliseconds more before it is sent (a sleep, which holds the transaction's locks and
not the GIL, as a disk's sync does): the same run on a disk whose sync is D ms slower,
such as the 220 commits a second issue 16 measured on a busy hour (D about 4), where
this machine's own disk syncs in about 0.15 ms.

Prints one figure per line, ``group_commit.<backend>.<name> value``: ``ceiling`` (commands
a second) and ``bare_commits_per_second``, then for each phase
``<phase>.commands_per_second`` (chat lines answered per second of wall time),
``<phase>.ms_p50`` and ``<phase>.ms_p99`` (latency), ``<phase>.commands_per_commit``, and
``<phase>.x_ceiling`` (commands a second over the ceiling; goal: at least 2, with p99
under 20 ms). The ceiling counts fight commands (a roll is one), and a chat line keeps
about two (its automatic rolls with it), so each phase adds
``<phase>.fight_commands_per_second`` (fight commands kept, counted in its database at its
end, over its wall time) and ``<phase>.x_ceiling_fight_commands`` (that over the ceiling:
the two in one unit). ``paced.offered_per_second`` is the load the paced players offered
and ``goal.offered_per_second`` the goal's, in chat lines a second.
The two-process phases count the lines of both over the wall time from the common start to
the last one's end, take the quantiles over the lines of both, and add
``<phase>.x_one_process``: commands a second over the one-process phase of the same run
(``saturated`` or ``paced``; the paced load is offered, so near 1 there).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import statistics
import subprocess
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
from sqlalchemy import Engine, event, func, select  # noqa: E402

from bot.app import build_referee, freeze_start  # noqa: E402
from bot.chat.lanes import Lanes  # noqa: E402
from bot.clock import FakeClock  # noqa: E402
from bot.dice import OsDice  # noqa: E402
from bot.messages import Incoming, Outgoing, Sender  # noqa: E402
from bot.odds.worker import InlineExecutor  # noqa: E402
from bot.referee import Referee  # noqa: E402
from storage.db import open_database  # noqa: E402
from storage.db_engines import make_engine  # noqa: E402
from storage.keys import KEY_ENV, Keyring, new_key  # noqa: E402
from storage.models import FightCommand  # noqa: E402

ENDLESS = 10**9
"""Decisions a channel's fights take: a new fight follows each that ends."""
NETWORKS = ("north", "south")
"""The two-process phases' processes, one network each."""
SCRIPT = Path(__file__).resolve()


@dataclass
class Phase:
    """What one phase measured."""

    timings: list[float] = field(default_factory=list)
    wall: float = 0.0
    commits: int = 0
    recorded: int = 0
    """Fight commands (rolls included) the phase kept: the ceiling's unit."""

    def figures(self, name: str, ceiling: float) -> dict[str, float]:
        cuts = statistics.quantiles(self.timings, n=100, method="inclusive")
        rate, recorded = len(self.timings) / self.wall, self.recorded / self.wall
        return {
            f"{name}.commands_per_second": rate,
            f"{name}.ms_p50": cuts[49] * 1000,
            f"{name}.ms_p99": cuts[98] * 1000,
            f"{name}.commands_per_commit": len(self.timings) / max(self.commits, 1),
            f"{name}.x_ceiling": rate / ceiling,
            f"{name}.fight_commands_per_second": recorded,
            f"{name}.x_ceiling_fight_commands": recorded / ceiling,
        }


def recorded(url: str) -> int:
    """The fight commands kept in the database at ``url`` (a phase's own)."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return connection.execute(select(func.count()).select_from(FightCommand)
                                      ).scalar_one()
    finally:
        engine.dispose()


def slow_sync(milliseconds: float) -> None:
    """Every commit of every engine of this process ``milliseconds`` slower."""
    if milliseconds > 0:
        event.listen(Engine, "commit", lambda _connection: time.sleep(milliseconds / 1000))


def referee_on(url: str, network: str | None = None, key: str | None = None) -> Referee:
    """A referee on ``url``, on ``network`` (else the default one), signing with ``key``
    (else a new one)."""
    settings = config(url)
    if network is not None:
        settings = settings.model_copy(update={"network": network})
    referee = build_referee(settings, dice=OsDice(), clock=FakeClock(),
                            odds_workers=InlineExecutor(),
                            keyring=Keyring.of(key or new_key(), source="the bench's own key"))
    freeze_start()   # as ancath-bot run does
    return referee


async def play(referee: Referee, args: argparse.Namespace, window: float,
               think: float, first: int = 0) -> Phase:
    """``args.lines`` chat lines from ``args.fights`` channels (numbered from ``first``),
    one line out per channel at a time, a new fight in a channel whose fight ended,
    through the lanes; each player's next line is due a random time (``think`` seconds
    on average) after it sent the last, or at once when the answer came later; with
    ``think`` 0 every line goes the moment the answer to the last came."""
    loop = asyncio.get_running_loop()
    phase, finished = Phase(), loop.create_future()
    rng = random.Random(args.seed)
    channels = [Channel(n, KINDS[n % len(KINDS)]) for n in range(first, first + args.fights)]
    scripts = {c.name: lines(referee, c, rng, ENDLESS) for c in channels}
    out = [0]
    due = {c: loop.time() + rng.expovariate(1 / think) if think else 0.0 for c in scripts}
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
            loop.call_later(max(0.0, due[channel] - loop.time()), send, channel)
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
        if think:
            due[channel] = loop.time() + rng.expovariate(1 / think)

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


def child(args: argparse.Namespace) -> None:
    """One process of a two-process phase: its referee, ``ready`` on stdout, then the
    common start (epoch seconds) from stdin, its lines, and its timings as JSON."""
    slow_sync(args.sync_ms)
    referee = referee_on(args.database, args.child, os.environ[KEY_ENV])
    try:
        print("ready", flush=True)
        start = float(sys.stdin.readline())
        time.sleep(max(0.0, start - time.time()))
        played = asyncio.run(play(referee, args, args.window / 1000, args.think, args.first))
        ended = time.time()
    finally:
        referee.store.engine.dispose()
    print(json.dumps({"timings": played.timings, "commits": played.commits, "ended": ended}))


def two_processes(url: str, args: argparse.Namespace, think: float) -> Phase:
    """``args.fights`` fights and ``args.lines`` lines split between two child processes
    on ``url``, started together; their lines and commits together, over the wall time
    from the start to the last one's end."""
    open_database(url).dispose()   # migrated here, not by both children at once
    key, parts = new_key(), len(NETWORKS)

    def cut(total: int, index: int) -> int:
        return total * index // parts

    children: dict[str, subprocess.Popen[str]] = {}
    try:
        for index, network in enumerate(NETWORKS):
            first = cut(args.fights, index)
            children[network] = subprocess.Popen(
                [sys.executable, str(SCRIPT), "--child", network, "--database", url,
                 "--first", str(first), "--fights", str(cut(args.fights, index + 1) - first),
                 "--lines", str(cut(args.lines, index + 1) - cut(args.lines, index)),
                 "--window", str(args.window), "--think", str(think),
                 "--sync-ms", str(args.sync_ms),
                 "--seed", str(args.seed + index)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                env={**os.environ, KEY_ENV: key})
        for network, process in children.items():
            if process.stdout is None or process.stdout.readline() != "ready\n":
                raise SystemExit(f"the {network} child did not start")
        start = time.time() + 0.1
        for process in children.values():   # both told before either is waited for
            if process.stdin is not None:
                process.stdin.write(f"{start}\n")
                process.stdin.flush()
        done = [process.communicate()[0] for process in children.values()]
        for network, process in children.items():
            if process.returncode:
                raise SystemExit(f"the {network} child failed")
    finally:
        for process in children.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    reports = [json.loads(report) for report in done]
    return Phase(timings=[t for r in reports for t in r["timings"]],
                 wall=max(r["ended"] for r in reports) - start,
                 commits=sum(r["commits"] for r in reports))


def backend(fresh: Callable[[], Any], args: argparse.Namespace,
            two: bool = False) -> dict[str, float]:
    """Every figure of one backend; ``fresh()`` makes a new database, its URL; ``two``
    adds the two-process phases."""
    with fresh() as url:
        timings = storage_commits.run(url, args.ceiling_commands, args.seed)
    ceiling = len(timings) / sum(timings)
    with fresh() as url:
        timings = storage_commits.bare(url, args.ceiling_commands, args.sync_ms / 1000)
    figures = {"ceiling": ceiling, "bare_commits_per_second": len(timings) / sum(timings)}

    def phase(name: str, window: float, think: float) -> float:
        with fresh() as url:
            referee = referee_on(url)
            try:
                played = asyncio.run(play(referee, args, window, think))
            finally:
                referee.store.engine.dispose()
            played.recorded = recorded(url)
        figures.update(played.figures(name, ceiling))
        return figures[f"{name}.commands_per_second"]

    window = args.window / 1000
    offered = phase("saturated", window, 0.0) / 2
    phase("alone", 0.0, 0.0)
    figures["paced.offered_per_second"] = offered
    phase("paced", window, args.fights / offered)
    phase("paced_alone", 0.0, args.fights / offered)
    goal = 2 * ceiling * figures["saturated.commands_per_second"] \
        / figures["saturated.fight_commands_per_second"]
    figures["goal.offered_per_second"] = goal
    phase("goal", window, args.fights / goal)
    if two:
        for name, one, think in (("two_processes", "saturated", 0.0),
                                 ("paced_two_processes", "paced", args.fights / offered)):
            with fresh() as url:
                both = two_processes(url, args, think)
                both.recorded = recorded(url)
                figures.update(both.figures(name, ceiling))
            figures[f"{name}.x_one_process"] = (figures[f"{name}.commands_per_second"]
                                                / figures[f"{one}.commands_per_second"])
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
    parser.add_argument("--sync-ms", type=float, default=0.0,
                        help="every commit this much slower, as on a slower disk (0)")
    parser.add_argument("--pg-url", help="PostgreSQL server URL (default: from env)")
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    parser.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    parser.add_argument("--child", choices=NETWORKS, help=argparse.SUPPRESS)
    parser.add_argument("--database", help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--think", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args)
        return 0
    if args.fights < 1 or args.lines < 2 or args.ceiling_commands < 2 or args.window <= 0 \
            or args.sync_ms < 0:
        parser.error("--fights at least 1, --lines and --ceiling-commands at least 2, "
                     "--window above 0, --sync-ms at least 0")
    slow_sync(args.sync_ms)
    pg_url = storage_commits.pg_server(args, "group_commit.postgresql")
    if pg_url is None and args.no_sqlite:
        parser.error("--no-sqlite without a PostgreSQL URL leaves nothing to measure")
    if pg_url is not None and args.fights < 2:
        parser.error("--fights at least 2 on PostgreSQL: the two-process phases split them")

    if not args.no_sqlite:
        with tempfile.TemporaryDirectory(prefix="ancath-bench-") as scratch:
            files = itertools.count(1)

            @contextmanager
            def sqlite_file() -> Iterator[str]:
                yield f"sqlite:///{Path(scratch) / f'bench{next(files)}.sqlite3'}"

            report("sqlite", backend(sqlite_file, args))

    if pg_url is not None:
        report("postgresql", backend(lambda: storage_commits.scratch_pg_database(pg_url),
                                     args, two=True))
    return 0


def report(name: str, figures: dict[str, float]) -> None:
    for key, value in figures.items():
        print(f"group_commit.{name}.{key} {value:.2f}")


if __name__ == "__main__":
    sys.exit(main())
