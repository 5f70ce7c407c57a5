"""Benchmark: chat lines a second with group commit, against bare commits of the same run.

    python bench/group_commit.py [--fights N] [--goal-fights G] [--lines L] [--window MS]
                                 [--ceiling-commands C] [--seed S] [--sync-ms D]
                                 [--pg-url URL | --no-pg] [--no-sqlite]

For each backend (a new SQLite file in WAL mode with ``synchronous=FULL``; and new
databases on the PostgreSQL server of ``--pg-url``, ``ANCATH_BENCH_PG_URL`` or
``ANCATH_TEST_PG_URL``, as ``bench/storage_commits.py`` makes them), and for each fights
count, G (default 16, the issue's goal) and N (default 200):

1. The references, each on a new database of the same kind (same file system, same
   server): ``bare_commits``, C transactions of one small row INSERTed and committed
   straight through the driver (sqlite3 or psycopg), measured before the phases and
   again after them (``_before``, ``_after``; the ratios use their mean); and
   ``store_record``, C fight commands through ``Store.record``, one a transaction.
2. The bot: N fights in N channels at once, L chat lines a phase (default 6,000), played
   as ``bench/bot_inprocess.py`` plays them (a channel whose fight ended starts another),
   each line through the IRC transport's lanes (``bot.chat.lanes``): the event loop
   queues it, the records lane runs it, its lines come back once committed (its latency).
   A chat line may carry a fight command and its automatic rolls: each phase counts
   both (fight commands in its database). Each phase on a new database:

   - ``saturated``: group commit (``--window``, default 1 ms), every player answering
     the moment its answer comes: the most the bot does;
   - ``alone``: the same with a window of 0, one transaction a line;
   - ``paced``/``paced_alone``: players answering at random times (exponential think
     time, from the line they sent last), offering half of ``saturated``'s lines;
   - ``goal``: paced, offering the goal's load, twice the bare commits in chat lines.
3. PostgreSQL only, at N fights: two child processes on one database (networks ``north``
   and ``south``, half the fights and lines each, one ledger key, started together):
   ``two_processes`` (as ``saturated``) and ``paced_two_processes`` (as ``paced``).

``--sync-ms D``: every commit D ms slower (a sleep holding the transaction's locks, not
the GIL), as on a disk with a slower sync.

Prints one figure a line, ``group_commit.<backend>.<N>_fights.<name> value``:
``bare_commits_per_second`` (and ``_before``, ``_after``), ``store_record_per_second``;
for each phase ``lines_per_second``, ``fight_commands_per_second``, ``ms_p50``,
``ms_p99``, ``lines_per_commit``, ``x_bare_commits_in_lines`` (chat lines a second over
bare commits a second: the goal's ratio), ``x_bare_commits_in_fight_commands`` and
``x_store_record_in_fight_commands``; ``paced.offered_lines_per_second``,
``goal.offered_lines_per_second``; ``<two-process phase>.x_one_process``. Then
``group_commit.<backend>.goal_2x_bare_in_lines_at_<G>_fights met`` (or ``missed``):
``saturated.x_bare_commits_in_lines`` at G fights at least 2.
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
CHILD = Path(__file__).resolve().parent / "group_commit_child.py"
"""A two-process phase's process."""


@dataclass
class Phase:
    """What one phase measured."""

    timings: list[float] = field(default_factory=list)
    wall: float = 0.0
    commits: int = 0
    recorded: int = 0
    """Fight commands (rolls included) the phase kept."""

    def figures(self, name: str, bare: float, store: float) -> dict[str, float]:
        """Its figures; ``bare`` and ``store`` are the same run's bare commits and
        ``Store.record`` commands a second."""
        cuts = statistics.quantiles(self.timings, n=100, method="inclusive")
        rate, recorded = len(self.timings) / self.wall, self.recorded / self.wall
        return {
            f"{name}.lines_per_second": rate,
            f"{name}.fight_commands_per_second": recorded,
            f"{name}.ms_p50": cuts[49] * 1000,
            f"{name}.ms_p99": cuts[98] * 1000,
            f"{name}.lines_per_commit": len(self.timings) / max(self.commits, 1),
            f"{name}.x_bare_commits_in_lines": rate / bare,
            f"{name}.x_bare_commits_in_fight_commands": recorded / bare,
            f"{name}.x_store_record_in_fight_commands": recorded / store,
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
                [sys.executable, str(CHILD), network, url,
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


def per_second(fresh: Callable[[], Any], measure: Callable[[str], list[float]]) -> float:
    """Commits a second of ``measure`` (each commit's seconds) on a new database."""
    with fresh() as url:
        timings = measure(url)
    return len(timings) / sum(timings)


def backend(fresh: Callable[[], Any], args: argparse.Namespace,
            two: bool = False) -> dict[str, float]:
    """Every figure of one backend at ``args.fights``; ``fresh()`` makes a new database,
    its URL; ``two`` adds the two-process phases."""
    count, sync = args.ceiling_commands, args.sync_ms / 1000

    def bare_rate() -> float:   # one small row a transaction, the driver alone
        return per_second(fresh, lambda url: storage_commits.bare(url, count, sync))

    before = bare_rate()
    store = per_second(fresh, lambda url: storage_commits.run(url, count, args.seed))
    runs: list[tuple[str, Phase]] = []

    def phase(name: str, window: float, think: float) -> float:
        with fresh() as url:
            referee = referee_on(url)
            try:
                played = asyncio.run(play(referee, args, window, think))
            finally:
                referee.store.engine.dispose()
            played.recorded = recorded(url)
        runs.append((name, played))
        return len(played.timings) / played.wall

    window = args.window / 1000
    offered = phase("saturated", window, 0.0) / 2
    phase("alone", 0.0, 0.0)
    phase("paced", window, args.fights / offered)
    phase("paced_alone", 0.0, args.fights / offered)
    goal = 2 * before
    phase("goal", window, args.fights / goal)
    if two:
        for name, think in (("two_processes", 0.0), ("paced_two_processes",
                                                      args.fights / offered)):
            with fresh() as url:
                both = two_processes(url, args, think)
                both.recorded = recorded(url)
            runs.append((name, both))
    after = bare_rate()
    bare = (before + after) / 2
    figures = {"bare_commits_per_second": bare, "bare_commits_per_second_before": before,
               "bare_commits_per_second_after": after, "store_record_per_second": store,
               "paced.offered_lines_per_second": offered,
               "goal.offered_lines_per_second": goal}
    for name, played in runs:
        figures |= played.figures(name, bare, store)
    for name, one in (("two_processes", "saturated"), ("paced_two_processes", "paced")):
        if f"{name}.lines_per_second" in figures:
            figures[f"{name}.x_one_process"] = (figures[f"{name}.lines_per_second"]
                                                / figures[f"{one}.lines_per_second"])
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fights", type=int, default=200, help="fights at once (200)")
    parser.add_argument("--goal-fights", type=int, default=16,
                        help="fights at once for the goal's figure (16)")
    parser.add_argument("--lines", type=int, default=6000,
                        help="chat lines in each phase (6000)")
    parser.add_argument("--window", type=float, default=1.0,
                        help="group commit's window in ms (1.0)")
    parser.add_argument("--ceiling-commands", type=int, default=2000,
                        help="commits for each reference (2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sync-ms", type=float, default=0.0,
                        help="every commit this much slower, as on a slower disk (0)")
    parser.add_argument("--pg-url", help="PostgreSQL server URL (default: from env)")
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    parser.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    args = parser.parse_args(argv)
    if min(args.fights, args.goal_fights) < 1 or min(args.lines, args.ceiling_commands) < 2 \
            or args.window <= 0 or args.sync_ms < 0:
        parser.error("--fights and --goal-fights at least 1, --lines and --ceiling-commands "
                     "at least 2, --window above 0, --sync-ms at least 0")
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

            every_count("sqlite", sqlite_file, args, False)

    if pg_url is not None:
        every_count("postgresql", lambda: storage_commits.scratch_pg_database(pg_url), args,
                    True)
    return 0


def every_count(name: str, fresh: Callable[[], Any], args: argparse.Namespace,
                two: bool) -> None:
    """Print a backend's figures at ``--goal-fights`` and ``--fights``, then the goal."""
    goal = 0.0
    for fights in dict.fromkeys((args.goal_fights, args.fights)):
        figures = backend(fresh, argparse.Namespace(**{**vars(args), "fights": fights}),
                          two and fights == args.fights)
        for key, value in figures.items():
            print(f"group_commit.{name}.{fights}_fights.{key} {value:.2f}", flush=True)
        if fights == args.goal_fights:
            goal = figures["saturated.x_bare_commits_in_lines"]
    print(f"group_commit.{name}.goal_2x_bare_in_lines_at_{args.goal_fights}_fights "
          f"{'met' if goal >= 2 else 'missed'}")


if __name__ == "__main__":
    sys.exit(main())
