"""Benchmark: the referee through a real ngircd on loopback, next to a bare echo bot.

    python bench/irc_latency.py [--samples N] [--batch B] [--warmup W]
                                [--profile FILE] [--sopel-python PATH]

One ngircd (penalties off: ``max_penalty_time=0``), one process, one asyncio loop for
the server's clients and both bots. The referee's per-player command limit and its send
budgets are lifted for the whole run, so every figure is the bot's own work, not pacing.

Reply latency. The referee joins ``#arena``; ``bench/irc_echo.py``, a bare echo bot on
the same library (``AioReactor``, ``LenientDecodingLineBuffer``, no CAP, answering from
its event handler with ``conn.privmsg``), joins ``#bench``. Each bot has its own
channel, so a trigger wakes only the bot being timed, and the channels have names of
the same length and the same two members (the bot and the one player, ``ann``). One
round trip, the same client procedure for both: ``ann`` sends ``PRIVMSG <channel>
:!roll 1d6`` and waits for the bot's PRIVMSG to that channel with the expected text;
the echo bot's fixed reply is the very text the referee says with its scripted die
(``ann rolls 1d6 = [3] = 3``), so the lines both ways are byte for byte the same
length. Round trips are sequential. Fairness: first ``W`` warm-up round trips per bot,
alternating and not timed; then ``N`` timed ones per bot in batches of ``B``, the
order of the bots reversed every other round of batches (referee, echo, echo, referee,
...), so a drift of the machine over the run falls on both alike.

What each does for its round trip. The echo bot: the library parses the line and calls
its handler, which compares the text with the trigger and sends a fixed PRIVMSG; nothing
else. The referee: the same library, then its sans-I/O session (``bot/irc/session.py``)
makes the line a message, admission checks its sender's pace and counts it for the fair
order of replies, the referee finds ``!roll`` in its command registry, sees it needs no
storage and, SQLite's ``PRAGMA data_version`` saying no other connection committed since
it last read the club's version (so the ignore list it keeps is as the newest row says,
whichever process wrote it), answers on the event loop (``bot/chat/lanes.py``): checks
the database file is still there, rolls the scripted die and words the line; the outbox
queues it through its token budget (lifted) and fair order and sends it. A line the
check cannot clear goes to the talk lane's thread as before; ``irc.answered_on_loop``
is the share of the timed round trips that did not. Both answer from inside the
library's handler and write with the library's ``send_raw``, no event loop hop between.
Neither waits for pacing: ngircd's penalties are off for every client, and the
referee's budgets are lifted though their code runs (a few µs of its overhead); the echo
bot has no pacing of its own, which any bot on a real server needs: the one thing it
skips that is not the referee's own.

The ratio depends on where the scheduler puts this process and ngircd: on one core the
shared part of a round trip is about half what it is across two (a cross-core wake-up
each way), while the referee's own extra time stays the same, so the ratio is higher.
``taskset -c 0 python bench/irc_latency.py`` gives the repeatable one-core figure.

Figures, one per line, after ``#`` lines saying what each bot does:
``irc.reply_latency_ms_p50`` and ``_p99`` (the referee), ``irc.echo_latency_ms_p50`` and
``_p99`` (the echo bot), ``irc.overhead_ratio_p50`` (referee p50 / echo p50),
``irc.answered_on_loop`` (the share of the referee's timed round trips answered with no
thread hand-off), ``irc.reply_cpu_ms_p50``, ``irc.echo_cpu_ms_p50`` and
``irc.cpu_ratio_p50`` (this process's CPU time over one round trip, every thread's: the
player's client, whichever bot is timed and the loop; ngircd's is not in it: a figure
that a loaded machine disturbs less than wall time), ``irc.goal_ratio_1.5 met`` or
``missed`` (the goal: overhead ratio at most 1.5), then Sopel: with ``--sopel-python
PATH`` (the Python of a venv with Sopel: it pins SQLAlchemy below 2, which the bot needs;
``bench/irc_sopel.py``), Sopel joins ``#sopel`` on the same ngircd and its ``.roll 1d6``
round trips alternate with the other two (its reply is any line of it there; its flood
limits lifted), printing ``irc.sopel_latency_ms_p50``, ``irc.sopel_roll_ratio`` (Sopel's
p50 over the referee's) and ``irc.goal_sopel_4x met`` or ``missed`` (the referee's
``!roll`` at least 4x faster); without it, ``irc.sopel_roll_ratio not-measured`` with
why. Then ``irc.reconnect_seconds``. Lines per
turn and per input are ``bench/irc_lines.py``'s.

Reconnect: last, ngircd is stopped and started again and the time until the bot is
back in its channel (a new client sees it in NAMES) is measured.

``--profile FILE`` runs the referee's side of the timed round trips under cProfile (the
library's processing of each read, which calls the bot's event handlers, and each send)
and writes the stats to FILE (``python -m pstats FILE``). The profiler slows the
referee: the figures of a profiled run are not the benchmark's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "integration"), str(ROOT / "bench")]

from irc_echo import TRIGGER, EchoBot  # noqa: E402
from irc_sopel import SopelBot  # noqa: E402
from ircbot import BOT_NICK, Running, bot_on, player, until  # noqa: E402
from ircserver import IrcClient, IrcLine, NgircdServer  # noqa: E402

import bot.irc.supervisor  # noqa: E402
from bot.irc.budget import TokenBucket  # noqa: E402

ARENA, BENCH = "#arena", "#bench"
"""The referee's channel and the echo bot's: same length, same members."""
ECHO_NICK = "Echo"
GOAL = 1.5
"""The referee's p50 over the echo bot's, at most."""
SOPEL_GOAL = 4.0
"""Sopel's ``.roll`` p50 over the referee's ``!roll``, at least."""
SOPEL_CHANNEL, SOPEL_NICK = "#sopel", "Sopel"
DOES = (
    "# echo: library parse, handler compares the text with !roll 1d6, sends a fixed PRIVMSG",
    "# referee: library parse, IRC session, admission (pace, fair order), registry, "
    "PRAGMA data_version (the club's version unchanged), !roll 1d6 rolled and worded on "
    "the event loop (no thread hand-off), outbox (budget lifted, fair order), sent",
)
PLAYER = "ann"
REPLY = f"{PLAYER} rolls 1d6 = [3] = 3"
"""What the referee says to ``!roll 1d6`` with a scripted 3; the echo bot's fixed reply."""


@dataclass
class Target:
    """One bot under test: where to send the trigger and whose reply to wait for."""

    label: str
    channel: str
    nick: str
    trigger: str = TRIGGER
    reply: str | None = REPLY
    """The answer awaited; None: any line of the bot in the channel (Sopel's dice)."""
    latencies: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    """The process's CPU time (every thread's) over each round trip, in ms."""

    def figures(self, prefix: str) -> dict[str, float]:
        ordered = sorted(self.latencies)
        return {
            f"{prefix}_p50": statistics.median(ordered),
            f"{prefix}_p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
        }


async def round_trip(client: IrcClient, target: Target) -> float:
    """One ``!roll 1d6`` and the bot's answer in ms; identical for both bots."""
    channel, nick, reply = target.channel, target.nick, target.reply

    def answer(line: IrcLine) -> bool:
        return (line.command == "PRIVMSG" and line.nick == nick and line.target == channel
                and reply in (None, line.text))

    began = time.perf_counter()
    await client.say(channel, target.trigger)
    await client.expect(answer)
    return (time.perf_counter() - began) * 1000


def schedule(targets: list[Target], samples: int, batch: int) -> Iterator[Target]:
    """``samples`` round trips each, in batches of ``batch``: A B C, C B A, A B C, ..."""
    left = {target.label: samples for target in targets}
    order = list(targets)
    while any(left.values()):
        for target in order:
            count = min(batch, left[target.label])
            left[target.label] -= count
            for _ in range(count):
                yield target
        order.reverse()


@contextlib.contextmanager
def profiled(run: Running, profiler: cProfile.Profile | None) -> Iterator[None]:
    """Run the referee's side of a round trip under ``profiler``: everything the library
    does with the bytes it reads (parsing, dispatch, every handler of the bot, the
    referee) and the send of each line the outbox hands it. The outbox's wake-up between
    the two is an event loop hop and shows in neither."""
    conn = run.bot.connection
    if profiler is None or conn is None:
        yield
        return
    depth = 0

    def wrap(call: Callable[..., object]) -> Callable[..., object]:
        def inner(*args: object) -> object:
            nonlocal depth
            if depth:  # a send from inside a handler: already profiled
                return call(*args)
            depth += 1
            try:
                return profiler.runcall(call, *args)
            finally:
                depth -= 1
        return inner

    conn.process_data = wrap(conn.process_data)
    conn.send_raw = wrap(conn.send_raw)
    try:
        yield
    finally:
        del conn.process_data, conn.send_raw  # back to the class's methods


async def latencies(run: Running, server: NgircdServer, samples: int, batch: int,
                    warmup: int, profiler: cProfile.Profile | None,
                    sopel_python: str | None) -> dict[str, float]:
    referee = Target("referee", ARENA, BOT_NICK)
    echo = Target("echo", BENCH, ECHO_NICK)
    sopel = Target("sopel", SOPEL_CHANNEL, SOPEL_NICK, ".roll 1d6", None)
    targets = [referee, echo] + ([sopel] if sopel_python else [])
    async with EchoBot(server.host, server.port, nick=ECHO_NICK, channel=BENCH,
                       reply=REPLY) as echo_bot, contextlib.AsyncExitStack() as stack:
        ann = await player(server, PLAYER)  # joins #arena
        await ann.join(BENCH)
        if sopel_python:
            await ann.join(SOPEL_CHANNEL)
            await stack.enter_async_context(SopelBot(
                sopel_python, server.host, server.port, nick=SOPEL_NICK,
                channel=SOPEL_CHANNEL))
            await ann.expect(lambda line: line.command == "JOIN" and line.nick == SOPEL_NICK,
                             timeout=60)
        run.dice.push(*([3] * 2 * (samples + warmup)))
        for target in schedule(targets, warmup, 1):
            await round_trip(ann, target)
        handed = run.bot.lanes.handed_off
        with profiled(run, profiler):
            for target in schedule(targets, samples, batch):
                cpu = time.process_time()
                target.latencies.append(await round_trip(ann, target))
                target.cpu.append((time.process_time() - cpu) * 1000)
        handed = run.bot.lanes.handed_off - handed
        assert echo_bot.answered == samples + warmup, echo_bot.answered
        await ann.quit()
    figures = {**referee.figures("irc.reply_latency_ms"), **echo.figures("irc.echo_latency_ms")}
    echo_p50 = figures["irc.echo_latency_ms_p50"]
    figures["irc.overhead_ratio_p50"] = figures["irc.reply_latency_ms_p50"] / echo_p50
    figures["irc.answered_on_loop"] = 1 - handed / samples
    figures["irc.reply_cpu_ms_p50"] = statistics.median(referee.cpu)
    figures["irc.echo_cpu_ms_p50"] = statistics.median(echo.cpu)
    figures["irc.cpu_ratio_p50"] = figures["irc.reply_cpu_ms_p50"] / figures["irc.echo_cpu_ms_p50"]
    if sopel_python:
        figures["irc.sopel_latency_ms_p50"] = statistics.median(sopel.latencies)
        figures["irc.sopel_roll_ratio"] = (figures["irc.sopel_latency_ms_p50"]
                                           / figures["irc.reply_latency_ms_p50"])
    return figures


async def reconnect(run: Running, server: NgircdServer) -> dict[str, float]:
    server.stop()
    await until(lambda: not run.bot.connected.is_set())
    began = time.perf_counter()
    server.start()
    await until(lambda: run.bot.sessions == 2 and run.bot.outbox.prefix is not None
                and run.bot.connected.is_set(), 60)
    watcher = await player(server, "watcher")
    await watcher.expect(lambda line: line.command == "353" and BOT_NICK in line.text)
    figure = time.perf_counter() - began
    await watcher.quit()
    return {"irc.reconnect_seconds": figure}


async def measure(samples: int, server: NgircdServer, folder: Path, *,
                  batch: int = 10, warmup: int = 30,
                  profiler: cProfile.Profile | None = None,
                  sopel_python: str | None = None) -> dict[str, float]:
    limits = bot.irc.supervisor.USER_BURST, bot.irc.supervisor.USER_RATE
    bot.irc.supervisor.USER_BURST, bot.irc.supervisor.USER_RATE = 10**6, 10**6
    try:
        async with bot_on(server, folder) as run:
            budget = run.bot.outbox.budget
            budget.lines, budget.bytes = TokenBucket(10**6, 10**6), TokenBucket(10**9, 10**9)
            figures = await latencies(run, server, samples, batch, warmup, profiler,
                                      sopel_python)
            figures |= await reconnect(run, server)
            return figures
    finally:
        bot.irc.supervisor.USER_BURST, bot.irc.supervisor.USER_RATE = limits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=300,
                        help="timed round trips per bot (300)")
    parser.add_argument("--batch", type=int, default=10,
                        help="round trips per batch before the other bot's turn (10)")
    parser.add_argument("--warmup", type=int, default=30,
                        help="untimed round trips per bot first (30)")
    parser.add_argument("--sopel-python", metavar="PATH",
                        help="the Python of a venv with Sopel: time its .roll 1d6 too")
    parser.add_argument("--profile", metavar="FILE",
                        help="cProfile the referee's handlers; write pstats to FILE")
    args = parser.parse_args(argv)
    if min(args.samples, args.batch) < 1 or args.warmup < 0:
        parser.error("--samples and --batch must be at least 1, --warmup 0")
    profiler = cProfile.Profile() if args.profile else None
    server = NgircdServer(max_penalty_time=0).start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            figures = asyncio.run(measure(args.samples, server, Path(folder),
                                          batch=args.batch, warmup=args.warmup,
                                          profiler=profiler,
                                          sopel_python=args.sopel_python))
    finally:
        server.close()
    if profiler is not None:
        profiler.dump_stats(args.profile)
    print("\n".join(DOES))
    reconnect_s = figures.pop("irc.reconnect_seconds")
    sopel_figures = {name: figures.pop(name) for name in list(figures) if "sopel" in name}
    for name, value in figures.items():
        print(f"{name} {value:.3f}")
    met = figures["irc.overhead_ratio_p50"] <= GOAL
    print(f"irc.goal_ratio_1.5 {'met' if met else 'missed'}")
    if args.sopel_python:
        for name, value in sopel_figures.items():
            print(f"{name} {value:.3f}")
        sopel = sopel_figures["irc.sopel_roll_ratio"]
        print(f"irc.goal_sopel_4x {'met' if sopel >= SOPEL_GOAL else 'missed'}")
    else:
        print("irc.sopel_roll_ratio not-measured (no --sopel-python: Sopel pins SQLAlchemy "
              "< 2, which the bot needs; give the Python of a venv of its own)")
    print(f"irc.reconnect_seconds {reconnect_s:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
