"""Benchmark: the referee kept busy in ten channels of an InspIRCd at its defaults.

    python bench/irc_inspircd_defaults.py [--seconds S] [--channels C] [--interval I]

InspIRCd 3 with its default connect class (recvq 4096 bytes, 10 penalty units at once,
then one a second; tests/integration/inspircd.py with ``lift_flood_limits=False``), the
bot with its default flood settings in ``C`` channels (10), one player in each. From the
moment the bot is in its channel, for ``S`` seconds (120), every player sends a command
every ``I`` seconds (10), the players staggered: the players are busy while the bot is
still joining (and asking WHO), as they are when it comes back after a reconnect, and
then about one command a second reaches a bot that may send one line a second: its
send queue stays busy. Two commands in three are ``!roll 1d6+N`` (a reply of
about 50 bytes), the third ``!roll 80d100+N`` (about 360 bytes); ``N`` counts the
commands, so every reply is known by its dice. Then the bot gets up to 10 minutes to
say what it still has queued (the wait ends sooner when its queue is empty and nothing
more arrives: what was lost stays lost).

Figures, one per line: ``inspircd_defaults.disconnects`` (how often the server dropped
the bot; the goal is 0), ``.commands`` (sent by the players), ``.lines_queued`` (lines
the bot queued to say), ``.lines_delivered`` (lines of the bot's the players received,
but its busy lines, which name the askers of answers dropped),
``.lines_dropped_queued`` and ``.lines_dropped_unqueued`` (reply lines dropped as too
late to send, issue 31: after waiting in the queue, or at once), and
``.last_line_late_seconds`` (from the command to its reply, for the reply that arrived
last). Lines queued less those dropped after queueing equal those delivered when
nothing was lost.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "integration")]

from inspircd import InspircdServer  # noqa: E402
from ircbot import BOT_NICK, bot_on, joined  # noqa: E402
from ircserver import IrcClient, IrcClosedError, IrcLine  # noqa: E402

from bot.dice import OsDice  # noqa: E402
from bot.messages import Priority  # noqa: E402

DRAIN_SECONDS = 600.0
"""The most the bot gets, after the players stop, to say what it still has queued."""
SETTLE_SECONDS = 30.0
"""With the bot connected and its queue empty, how long to wait for late replies."""


@dataclass
class Room:
    """One channel and its player: the commands it sent, the replies it saw."""

    channel: str
    client: IrcClient
    sent: dict[str, float] = field(default_factory=dict)
    """The dice of each command -> when it was sent."""
    answered: dict[str, float] = field(default_factory=dict)
    """The dice of each reply seen -> when it arrived."""
    lines: int = 0
    """Lines of the bot's seen in the channel."""
    bot_here: asyncio.Event = field(default_factory=asyncio.Event)

    async def listen(self) -> None:
        """Note the bot's JOIN and every line it says here, until cancelled or the link
        closes."""
        def said(line: IrcLine) -> bool:
            return (line.command == "PRIVMSG" and line.nick == BOT_NICK
                    and line.target == self.channel) or joined(self.channel)(line)

        with contextlib.suppress(IrcClosedError):
            while True:
                line = await self.client.expect(said, timeout=3600)
                if line.command == "JOIN":
                    self.bot_here.set()
                    continue
                if line.text.startswith("busy"):  # names askers of answers dropped
                    continue
                self.lines += 1
                words = line.text.split()
                if len(words) > 2 and words[1] == "rolls":
                    self.answered.setdefault(words[2], time.monotonic())


async def play(room: Room, delay: float, seconds: float, interval: float,
               numbers: list[int]) -> None:
    """From ``delay`` after the bot joined, a command every ``interval`` seconds for
    ``seconds``."""
    await asyncio.wait_for(room.bot_here.wait(), 120)
    start = due = time.monotonic() + delay
    while due < start + seconds:
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        numbers[0] += 1
        n = numbers[0]
        dice = f"80d100+{n}" if n % 3 == 0 else f"1d6+{n}"
        room.sent[dice] = time.monotonic()
        await room.client.say(room.channel, f"!roll {dice}")
        due += interval


async def measure(server: InspircdServer, folder: Path, seconds: float, channels: int,
                  interval: float) -> dict[str, float]:
    names = [f"#room{i}" for i in range(channels)]
    clients = await asyncio.gather(*(IrcClient.connect(server.port, f"p{i}")
                                     for i in range(channels)))
    rooms = [Room(name, client) for name, client in zip(names, clients, strict=True)]
    for room in rooms:
        await room.client.join(room.channel)
    queued = 0
    listeners = [asyncio.create_task(room.listen()) for room in rooms]
    async with bot_on(server, folder, channels=tuple(names)) as run:
        run.referee.services = replace(run.referee.services, dice=OsDice())
        outbox = run.bot.outbox
        message = outbox.message

        def counted(target: str, text: str, priority: Priority = Priority.CHATTER,
                    command: str = "PRIVMSG", fit: Callable[[int], str] | None = None,
                    **more: Any) -> int:
            nonlocal queued
            lines = message(target, text, priority, command, fit, **more)
            queued += lines
            return lines

        outbox.message = counted  # type: ignore[method-assign, assignment]
        numbers = [0]
        await asyncio.gather(*(play(room, i * interval / channels, seconds, interval,
                                    numbers) for i, room in enumerate(rooms)))
        deadline = time.monotonic() + DRAIN_SECONDS
        settled: float | None = None
        while (sum(len(r.answered) for r in rooms) + outbox.dropped  # one line a reply
               < sum(len(r.sent) for r in rooms)):
            now = time.monotonic()
            if len(outbox) or not run.bot.connected.is_set():
                settled = None
            elif settled is None:
                settled = now
            if now > deadline or (settled is not None and now - settled > SETTLE_SECONDS):
                break
            await asyncio.sleep(0.2)  # a benchmark polls its clock; tests wait on events
        for task in listeners:
            task.cancel()
        disconnects = run.bot.sessions - 1
        refused, expired = outbox.dropped - outbox.expired, outbox.expired
    for room in rooms:
        await room.client.quit()
    late = max(((arrived, arrived - room.sent[dice]) for room in rooms
                for dice, arrived in room.answered.items()), default=(0.0, float("nan")))[1]
    return {
        "inspircd_defaults.disconnects": disconnects,
        "inspircd_defaults.commands": numbers[0],
        "inspircd_defaults.lines_queued": queued,
        "inspircd_defaults.lines_delivered": sum(room.lines for room in rooms),
        "inspircd_defaults.lines_dropped_queued": expired,
        "inspircd_defaults.lines_dropped_unqueued": refused,
        "inspircd_defaults.last_line_late_seconds": late,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0,
                        help="how long the players keep the bot busy (120)")
    parser.add_argument("--channels", type=int, default=10,
                        help="channels, one player in each (10)")
    parser.add_argument("--interval", type=float, default=10.0,
                        help="seconds between one player's commands (10)")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.channels < 1 or args.interval <= 0:
        parser.error("--seconds and --interval must be above 0, --channels at least 1")
    server = InspircdServer(link_services=False, lift_flood_limits=False).start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            figures = asyncio.run(measure(server, Path(folder), args.seconds, args.channels,
                                          args.interval))
    finally:
        server.close()
    for name, value in figures.items():
        print(f"{name} {value:.1f}" if isinstance(value, float) else f"{name} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
