"""Benchmark: a bystander's ``!roll`` while ten identities on one host flood the bot
with ``!odds`` and CTCP (issue 31, item 13).

    python bench/irc_host_flood.py [--identities N] [--odds K] [--ctcp C] [--seconds S]
                                   [--every E] [--after A]

One ngircd on loopback with its penalties off (``max_penalty_time=0``), so the flooders
can flood; the bot at its default flood settings (4 lines at once, then one a second)
and its default per-player pace. ``#arena`` holds a practice fight (Olaf, ``olaf``, and
Gorbag, ``gob``); ``#b`` holds N flooders (default 10), all from 127.0.0.1 with distinct
nicks and idents (``flood<i>!~fl<i>@127.0.0.1``: on a network without services each is
an identity of its own, for the price of one ``USER``), and two bystanders: ``near``
from the same host and ``far`` from 127.0.0.2 (another host on loopback).

For S seconds (default 10) the flooders send, spread evenly, K ``!odds Olaf vs Gorbag``
in ``#b`` (default 1,000 over all of them) and C CTCP requests to the bot (default 400:
VERSION and PING by turns). Every E seconds (default 2) from the flood's start until A
seconds after its end (default 20), a bystander (``near`` and ``far`` by turns) sends
``!roll 1d1+<k>`` in ``#b``, and the two fighters take turns to ``!attack`` (a scripted
miss), each timed until the bot's line that answers it. A probe unanswered when the
last one is due plus 120 s counts as lost.

Figures, one per line: ``host_flood.bystander_same_host_ms_p50`` and ``_max``,
``host_flood.bystander_other_host_ms_p50`` and ``_max`` (the goal: under 5,000),
``host_flood.bystander_lost`` (probes never answered), ``host_flood.fight_ms_max`` (a
fight's line after its move), ``host_flood.queue_max`` (lines waiting in the send queue,
sampled every 0.1 s) and ``host_flood.lines_to_flooders`` (what the bot said to the
flooders: replies in ``#b`` addressed to them, and NOTICEs).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "integration")]

from ircbot import BOT_NICK, bot_on  # noqa: E402
from ircserver import IrcClient, IrcLine, NgircdServer  # noqa: E402
from test_irc_host_flood import (  # noqa: E402
    ARENA,
    MISS,
    OTHER_HOST,
    SIDE,
    FightDice,
    connect_from,
    fight,
    flood_lines,
)


async def flood(clients: list[IrcClient], odds: int, ctcp: int, seconds: float) -> None:
    """``odds`` ``!odds`` and ``ctcp`` CTCP requests over all ``clients``, spread over
    ``seconds`` in ticks of a tenth of a second, each tick one write per client."""
    ticks = max(1, round(seconds * 10))
    lines = [flood_lines(odds // len(clients), ctcp // len(clients)) for _ in clients]
    began = time.monotonic()
    for tick in range(ticks):
        for client, mine in zip(clients, lines, strict=True):
            share = mine[len(mine) * tick // ticks:len(mine) * (tick + 1) // ticks]
            if share:
                await client.send_raw("".join(f"{line}\r\n" for line in share).encode())
        await asyncio.sleep(max(0.0, began + (tick + 1) / 10 - time.monotonic()))


async def watch(client: IrcClient, match: str, seen: list[tuple[float, str]]) -> None:
    """Note when each of the bot's lines containing ``match`` reaches ``client``, until
    cancelled."""
    while True:
        line: IrcLine = await client.expect(
            lambda x: x.command == "PRIVMSG" and x.nick == BOT_NICK and match in x.text,
            timeout=3600)
        seen.append((time.monotonic(), line.text))


def first_after(seen: list[tuple[float, str]], text: str, at: float) -> float | None:
    """When the first line containing ``text`` came after ``at``."""
    return next((when for when, said in seen if when >= at and text in said), None)


async def measure(server: NgircdServer, folder: Path, *, identities: int = 10,
                  odds: int = 1000, ctcp: int = 400, seconds: float = 10.0,
                  every: float = 2.0, after: float = 20.0) -> dict[str, float]:
    server.max_penalty_time = 0  # the flooders flood; the bot paces itself
    server.restart()
    async with bot_on(server, folder, channels=(ARENA, SIDE)) as run:
        dice = FightDice()
        run.referee.services = replace(run.referee.services, dice=dice)
        olaf, gob = await fight(server, dice)
        flooders = [await IrcClient.connect(server.port, f"flood{i}", f"fl{i}")
                    for i in range(identities)]
        for client in flooders:
            await client.join(SIDE)
        near = await IrcClient.connect(server.port, "near", "near")
        far = await connect_from(OTHER_HOST, server.port, "far", "far")
        for client in (near, far):
            await client.join(SIDE)
        await far.expect(lambda x: x.command == "366")  # the names: the bot is in #b

        sent: list[tuple[str, str, float]] = []  # (kind, text awaited, sent at)
        seen: list[tuple[float, str]] = []
        watchers = [asyncio.create_task(watch(c, m, seen)) for c, m in (
            (near, "rolls 1d1+"), (far, "rolls 1d1+"), (olaf, "to act:"))]
        queue_max = 0

        async def sample() -> None:
            nonlocal queue_max
            while True:
                queue_max = max(queue_max, len(run.bot.outbox))
                await asyncio.sleep(0.1)

        def answered(text: str, at: float) -> float | None:
            return first_after(seen, text, at)

        sampler = asyncio.create_task(sample())
        began = time.monotonic()
        flooding = asyncio.create_task(flood(flooders, odds, ctcp, seconds))
        moves = [(olaf, "Gorbag (gob) to act:"), (gob, "Olaf (olaf) to act:")]
        k = turn = 0
        while time.monotonic() < began + seconds + after:
            k += 1
            who = near if k % 2 else far
            sent.append(("same" if who is near else "other",
                         f"{who.nickname} rolls 1d1+{k} = [1] + {k} = {k + 1}",
                         time.monotonic()))
            await who.say(SIDE, f"!roll 1d1+{k}")
            fights = [x for x in sent if x[0] == "fight"]
            if k % 2 == 0 and (not fights or answered(fights[-1][1], fights[-1][2])):
                mover, answer = moves[turn % 2]  # the next move once the last is answered
                dice.script.push(MISS)
                sent.append(("fight", answer, time.monotonic()))
                await mover.say(ARENA, "!attack")
                turn += 1
            await asyncio.sleep(every)
        await flooding
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not all(
                answered(text, at) for _kind, text, at in sent):
            await asyncio.sleep(0.1)
        for task in (*watchers, sampler):
            task.cancel()

        latency: dict[str, list[float]] = {"same": [], "other": [], "fight": []}
        lost = 0
        for kind, text, at in sent:
            when = answered(text, at)
            if when is not None:
                latency[kind].append((when - at) * 1000)
            elif kind != "fight":
                lost += 1
        said = sum(1 for c in flooders for x in c.lines if x.nick == BOT_NICK and (
            x.command == "NOTICE" or (x.command == "PRIVMSG" and x.target == SIDE
                                      and x.text.startswith(c.nickname + ": "))))

        def p50(values: list[float]) -> float:
            return statistics.median(values) if values else float("nan")

        return {
            "host_flood.bystander_same_host_ms_p50": p50(latency["same"]),
            "host_flood.bystander_same_host_ms_max": max(latency["same"], default=float("nan")),
            "host_flood.bystander_other_host_ms_p50": p50(latency["other"]),
            "host_flood.bystander_other_host_ms_max": max(latency["other"],
                                                           default=float("nan")),
            "host_flood.bystander_lost": lost,
            "host_flood.fight_ms_max": max(latency["fight"], default=float("nan")),
            "host_flood.queue_max": queue_max,
            "host_flood.lines_to_flooders": said,
            # (0 before issue 31: nothing was dropped)
            "host_flood.lines_dropped": getattr(run.bot.outbox, "dropped", 0),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--identities", type=int, default=10)
    parser.add_argument("--odds", type=int, default=1000)
    parser.add_argument("--ctcp", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--every", type=float, default=2.0)
    parser.add_argument("--after", type=float, default=20.0)
    args = parser.parse_args(argv)
    logging.getLogger("ancath").setLevel(logging.ERROR)  # a flood's every drop is logged
    with NgircdServer() as server, tempfile.TemporaryDirectory() as folder:
        figures = asyncio.run(measure(
            server, Path(folder), identities=args.identities, odds=args.odds,
            ctcp=args.ctcp, seconds=args.seconds, every=args.every, after=args.after))
    for name, value in figures.items():
        print(f"{name} {value:.0f}" if isinstance(value, int) else f"{name} {value:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
