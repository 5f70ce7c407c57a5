"""Benchmark: reply latency through a real ngircd on loopback, and reconnect time.

    python bench/irc_latency.py [--samples N]

One player sends ``!roll 1d6`` and waits for the referee's answer, N times in a row;
then the server is stopped and started again and the time until the bot is back in
its channel is measured. ngircd's penalties are off, and the per-player command limit
and the send bucket are lifted for the run, so the figures are the bot's own round trip, not pacing.
Prints one figure per line.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "integration")]

from ircbot import BOT_NICK, bot_on, from_bot, player, until  # noqa: E402
from ircserver import NgircdServer  # noqa: E402

import bot.network  # noqa: E402
from bot.outbox import TokenBucket  # noqa: E402


async def measure(samples: int, server: NgircdServer, folder: Path) -> dict[str, float]:
    limits = bot.network.USER_BURST, bot.network.USER_RATE
    bot.network.USER_BURST, bot.network.USER_RATE = 10**6, 10**6
    try:
        return await _measure(samples, server, folder)
    finally:
        bot.network.USER_BURST, bot.network.USER_RATE = limits


async def _measure(samples: int, server: NgircdServer, folder: Path) -> dict[str, float]:
    async with bot_on(server, folder) as run:
        run.bot.outbox.bucket = TokenBucket(10**6, 10**6)
        ann = await player(server, "ann")
        run.dice.push(*([3] * samples))
        latencies = []
        for _ in range(samples):
            began = time.perf_counter()
            await ann.say("#arena", "!roll 1d6")
            await from_bot(ann, "ann rolls 1d6")
            latencies.append((time.perf_counter() - began) * 1000)
        server.stop()
        await until(lambda: not run.bot.connected.is_set())
        began = time.perf_counter()
        server.start()
        await until(lambda: run.bot.sessions == 2 and run.bot.outbox.prefix is not None
                    and run.bot.connected.is_set(), 60)
        watcher = await player(server, "watcher")
        await watcher.expect(lambda line: line.command == "353" and BOT_NICK in line.text)
        reconnect = time.perf_counter() - began
    latencies.sort()
    return {
        "irc.reply_latency_ms_p50": statistics.median(latencies),
        "irc.reply_latency_ms_p99": latencies[min(len(latencies) - 1,
                                                  int(len(latencies) * 0.99))],
        "irc.reconnect_seconds": reconnect,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=300)
    args = parser.parse_args(argv)
    server = NgircdServer(max_penalty_time=0).start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            figures = asyncio.run(measure(args.samples, server, Path(folder)))
    finally:
        server.close()
    for name, value in figures.items():
        print(f"{name} {value:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
