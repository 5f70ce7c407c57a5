"""Benchmark: what the referee's lines cost a connection, through a real ngircd.

    python bench/irc_lines.py [--fights K] [--capacity 4,8,10,12] [--seconds S]
                              [--scale X]

Lines per turn and per input. The referee plays ``K`` practice fights in automatic-roll
mode and ``K`` in manual-roll mode between Olaf (player ``olaf``) and Gorbag (``gob``)
in ``#arena``, with OS dice and the pacing lifted (lines are counted, not timed). A tiny
policy answers each prompt that ends a bot line, sent by the player it names: ``chooses:``
-> ``!first``, ``to act:`` -> ``!attack`` (``!yield`` when no attack is offered), ``defend:``
-> the first defence listed, ``answer the yield:`` -> ``!reject``, ``roll for ...`` ->
``!rol d100``. Every bot PRIVMSG to ``#arena`` from the challenge to the fight's end
counts. Figures: ``irc.lines_per_turn_auto`` (lines / turns; goal at most 1.5: a miss
1, a hit 2), ``irc.lines_per_input_auto`` and ``irc.lines_per_input_manual`` (lines /
commands the players sent; goal at most 1).

Capacity. ``N`` fights at once in ``N`` channels on one connection, each with its two
players, who answer every prompt ``10 s`` after it reaches them (a new challenge follows
an ended fight, the same way), with the default flood settings (burst 4, then 1 line a
second). Time is scaled by ``--scale`` (default 10: answers after 1 s, 10 lines a
second), which keeps every ratio and makes a run short; waits are reported in real
seconds (multiplied back). For each ``N``: ``irc.capacity.N.wait_p50_s`` and ``_p90_s``
(from a player's command to the bot's answer reaching the channel), and
``irc.capacity.N.send_busy`` (the share of the connection's send capacity used). The
connection keeps up while the answers come back before the next player would think
again: ``irc.capacity_fights`` is the largest ``N`` whose p90 wait stays under 2 s.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "integration")]

from ircbot import BOT_NICK, Running, bot_on, player, until  # noqa: E402
from ircserver import IrcClient, IrcLine, NgircdServer  # noqa: E402

import bot.irc.supervisor  # noqa: E402
from bot.config import FloodConfig  # noqa: E402
from bot.dice import OsDice  # noqa: E402
from bot.irc.budget import Budget, TokenBucket  # noqa: E402
from rules.ancath.state import FightState  # noqa: E402

PROMPT = re.compile(
    r"(?:^|[.!\]] )(?P<name>\w+)(?: \([^)]*\))?(?P<head> chooses:| to act:|, defend:"
    r"|, answer the yield:|, stop the flight or strike a last time:|, last turn:"
    r"|, roll for [^:]*:) (?P<options>!.*)$")
"""The prompt that ends a referee line: ``... Olaf (olaf), defend: !dodge 30 | ...``."""
MAX_MOVES = 600
"""Commands per fight before the policy is taken to be stuck."""
KEEPS_UP_SECONDS = 2.0


def unpaced() -> Budget:
    """A send budget that never waits (lines are counted, not timed)."""
    budget = Budget(FloodConfig())
    budget.lines, budget.bytes = TokenBucket(10**6, 10**6), TokenBucket(10**9, 10**9)
    return budget


def move(head: str, options: str) -> str:
    """The tiny policy's answer to one prompt."""
    listed = [option.split()[0] for option in options.split(" | ") if option.startswith("!")]
    if head == " chooses:":
        return "!first"
    if head == ", answer the yield:":
        return "!reject"
    if head.startswith(", roll for"):
        return "!rol d100"
    if head == " to act:":
        return next(word for word in ("!attack", "!yield", listed[0]) if word in listed)
    return listed[0]  # a defence; or after a flight, which this policy never starts


def bot_line(channel: str) -> Callable[[IrcLine], bool]:
    return lambda line: (line.command == "PRIVMSG" and line.nick == BOT_NICK
                         and line.target == channel)


async def said(client: IrcClient, channel: str) -> str:
    line: IrcLine = await client.expect(bot_line(channel), timeout=30)
    if line.text.startswith(("olaf:", "gob:")):
        raise RuntimeError(f"the referee refused a move: {line.text}")
    return line.text


async def count_lines(run: Running, olaf: IrcClient, gob: IrcClient, fights: int,
                      manual: bool) -> dict[str, float]:
    """``fights`` fights in #arena; lines per turn and per input over all of them."""
    arena = "#arena"
    run.referee.settings.set_setting(run.referee.settings.channel_setting("rolls", arena),
                            "manual" if manual else "auto", "bench", "")
    players = {"Olaf": olaf, "Gorbag": gob}
    lines = turns = inputs = 0
    for _ in range(fights):
        gob.drain()
        start = len(olaf.lines)
        await olaf.say(arena, "!challenge Gorbag practice")
        await said(olaf, arena)
        await gob.say(arena, "!accept")
        inputs += 2
        while True:
            prompt = PROMPT.search(await said(olaf, arena))
            if prompt is not None:
                inputs += 1
                if inputs > MAX_MOVES * fights:
                    raise RuntimeError("a fight ran past the move limit")
                await players[prompt["name"]].say(arena, move(prompt["head"],
                                                              prompt["options"]))
            elif run.referee.tables.table(arena).fight is None:
                break  # the line that ended the fight
        fight_id = run.referee.tables.table(arena).last_fight_id
        assert fight_id is not None
        state = run.referee.store.fight(fight_id).state
        assert isinstance(state, FightState)
        turns += state.turn
        lines += sum(1 for line in olaf.lines[start:] if bot_line(arena)(line))
    mode = "manual" if manual else "auto"
    figures = {f"irc.lines_per_input_{mode}": lines / inputs}
    if not manual:
        figures["irc.lines_per_turn_auto"] = lines / turns
    return figures


@dataclass
class Seat:
    """One player in a capacity run: answers prompts for their warrior after a pause."""

    client: IrcClient
    channel: str
    warrior: str
    foe: str
    challenger: bool
    think: float
    waits: list[float] = field(default_factory=list)
    sent_at: float | None = None
    heard: int = 0
    """Bot lines this seat saw in its channel during the run."""

    async def play(self, stop: float) -> None:
        while time.monotonic() < stop:
            try:
                line: IrcLine = await self.client.expect(bot_line(self.channel),
                                                         timeout=stop - time.monotonic())
            except TimeoutError:
                return
            self.heard += 1
            if self.sent_at is not None:
                self.waits.append(time.monotonic() - self.sent_at)
                self.sent_at = None
            prompt = PROMPT.search(line.text)
            if prompt is not None and prompt["name"] == self.warrior:
                answer = move(prompt["head"], prompt["options"])
            elif self.challenger and ("wins" in line.text or "draw" in line.text):
                answer = f"!challenge {self.foe} practice"
            elif not self.challenger and "may !accept" in line.text:
                answer = "!accept"
            else:
                continue
            await asyncio.sleep(self.think)
            self.sent_at = time.monotonic()
            await self.client.say(self.channel, answer)


async def capacity(run: Running, server: NgircdServer, fights: int, seconds: float,
                   scale: float) -> dict[str, float]:
    """``fights`` busy channels for ``seconds`` (scaled) on one connection."""
    run.referee.services = replace(run.referee.services, dice=OsDice())
    budget = run.bot.outbox.budget
    seats: list[Seat] = []
    for index in range(fights):
        channel = f"#f{index}"
        a, b = await player(server, f"a{index}"), await player(server, f"b{index}")
        for client in (a, b):
            await client.join(channel)
        seats += [Seat(a, channel, f"Wa{index}", f"Wb{index}", True, 10 / scale),
                  Seat(b, channel, f"Wb{index}", f"Wa{index}", False, 10 / scale)]
        run.bot.outbox.budget = unpaced()  # set-up lines go at once
        for client, create in ((a, f"Wa{index} free-clans broadsword shield"),
                               (b, f"Wb{index} goblin club spear")):
            await client.say(channel, f"!create {create}")   # each answered before the
            await client.expect(f"created {create.split()[0]} ")   # next is said
    run.bot.outbox.budget = Budget(FloodConfig(per_second=1.0 * scale,
                                               bytes_per_second=512 * scale))
    stop = time.monotonic() + seconds
    began = time.monotonic()
    for seat in seats:
        if seat.challenger:
            await seat.client.say(seat.channel, f"!challenge {seat.foe} practice")
            seat.sent_at = time.monotonic()
    await asyncio.gather(*(seat.play(stop) for seat in seats))
    elapsed = time.monotonic() - began
    run.bot.outbox.budget = budget
    heard = sum(seat.heard for seat in seats if seat.challenger)
    waits = sorted(w * scale for seat in seats for w in seat.waits)
    for seat in seats:
        await seat.client.quit()
    prefix = f"irc.capacity.{fights}"
    return {
        f"{prefix}.wait_p50_s": statistics.median(waits) if waits else float("inf"),
        f"{prefix}.wait_p90_s": waits[int(len(waits) * 0.9)] if waits else float("inf"),
        f"{prefix}.send_busy": heard / (elapsed * scale),
    }


async def measure(fights: int, sizes: list[int], seconds: float, scale: float,
                  server: NgircdServer, folder: Path) -> dict[str, float]:
    limits = bot.irc.supervisor.USER_BURST, bot.irc.supervisor.USER_RATE
    bot.irc.supervisor.USER_BURST, bot.irc.supervisor.USER_RATE = 10**6, 10**6
    figures: dict[str, float] = {}
    try:
        async with bot_on(server, folder, database=str(folder / "lines.sqlite3")) as run:
            run.bot.outbox.budget = unpaced()
            run.referee.services = replace(run.referee.services, dice=OsDice())
            olaf, gob = await player(server, "olaf"), await player(server, "gob")
            await olaf.say("#arena", "!create Olaf free-clans broadsword shield")
            await gob.say("#arena", "!create Gorbag goblin club spear")
            await olaf.expect(lambda line: "created Gorbag" in line.text)
            figures |= await count_lines(run, olaf, gob, fights, manual=False)
            figures |= await count_lines(run, olaf, gob, fights, manual=True)
            await olaf.quit()
            await gob.quit()
        for size in sizes:
            db = str(folder / f"capacity{size}.sqlite3")
            channels = tuple(f"#f{index}" for index in range(size))
            async with bot_on(server, folder, database=db, channels=channels) as run:
                await until(lambda: run.bot.outbox.prefix is not None)
                figures |= await capacity(run, server, size, seconds, scale)
    finally:
        bot.irc.supervisor.USER_BURST, bot.irc.supervisor.USER_RATE = limits
    keeping = [n for n in sizes if figures[f"irc.capacity.{n}.wait_p90_s"] <= KEEPS_UP_SECONDS]
    figures["irc.capacity_fights"] = max(keeping, default=0)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fights", type=int, default=20, help="fights per roll mode (20)")
    parser.add_argument("--capacity", default="4,8,10,12",
                        help="fights at once to try, comma-separated (4,8,10,12)")
    parser.add_argument("--seconds", type=float, default=30.0,
                        help="scaled seconds per capacity run (30 = 5 real minutes)")
    parser.add_argument("--scale", type=float, default=10.0, help="time scale (10)")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.capacity.split(",") if n.strip()]
    if args.fights < 1 or args.seconds <= 0 or args.scale <= 0 or min(sizes, default=1) < 1:
        parser.error("--fights, --seconds, --scale and every --capacity must be positive")
    server = NgircdServer(max_penalty_time=0).start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            figures = asyncio.run(measure(args.fights, sizes, args.seconds, args.scale,
                                          server, Path(folder)))
    finally:
        server.close()
    for name, value in figures.items():
        print(f"{name} {value:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
