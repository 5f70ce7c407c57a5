"""The bot's pacing against a server that kills: InspIRCd 3 at its DEFAULT connect class
(recvq 4096 bytes, threshold 10 penalty units, one unit a second, fakelag on), unlike
the ``inspircd`` fixture of the identity tests, which lifts those limits.

Ten channels and the default flood settings: every JOIN and WHO the bot sends on
connect, and every line it says, has to fit the server's budget, or InspIRCd closes
the link ("RecvQ exceeded") and the bot comes back only to be killed again. Every wait
is on an event; the test takes about a minute because the server allows one line a
second and the bot has about fifty to send.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from inspircd import InspircdServer
from ircbot import BOT_NICK, bot_on, joined, until
from ircserver import IrcClient, IrcClosedError, IrcLine
from test_irc_bot import sync

CHANNELS = tuple(f"#room{i}" for i in range(10))
LONG = 400
"""Bytes of text in each long line: ten of them held by the server exceed its recvq."""


@pytest.fixture
def inspircd_defaults(inspircd_binary: str) -> Iterator[InspircdServer]:
    """InspIRCd with its default flood limits and no services (identity is not tested)."""
    server = InspircdServer(binary=inspircd_binary, link_services=False,
                            lift_flood_limits=False)
    server.start()
    try:
        yield server
    finally:
        server.close()


def said(channel: str, text: str) -> Callable[[IrcLine], bool]:
    def match(line: IrcLine) -> bool:
        return (line.command == "PRIVMSG" and line.nick == BOT_NICK
                and line.target == channel and text in line.text)
    return match


def test_ten_channels_at_inspircd_defaults_never_get_the_bot_killed(
    inspircd_defaults: InspircdServer, tmp_path: Path
) -> None:
    server = inspircd_defaults

    async def scenario() -> None:
        # five players, each in two of the ten channels (InspIRCd's 001 takes ~1 s:
        # connect them together); a player pays the server's JOIN penalty too
        players = await asyncio.gather(*(IrcClient.connect(server.port, f"p{i}")
                                         for i in range(5)))
        for i, client in enumerate(players):
            for channel in CHANNELS[2 * i:2 * i + 2]:
                await client.join(channel)
        async with bot_on(server, tmp_path, channels=CHANNELS) as run:
            for i, client in enumerate(players):  # the bot is in every channel
                for channel in CHANNELS[2 * i:2 * i + 2]:
                    await client.expect(joined(channel), 60)
            run.dice.push(*[1] * 10)
            long_text = {c: f"{c} " + "x" * (LONG - len(c) - 1) for c in CHANNELS}
            for channel in CHANNELS:
                run.bot.outbox.message(channel, long_text[channel])
            for i, client in enumerate(players):
                for channel in CHANNELS[2 * i:2 * i + 2]:
                    await client.say(channel, "!roll 1d1")

            def count(text: Callable[[int, str], str]) -> int:
                return sum(1 for i, client in enumerate(players)
                           for channel in CHANNELS[2 * i:2 * i + 2]
                           for x in client.lines if said(channel, text(i, channel))(x))

            def roll(i: int, _channel: str) -> str:
                return f"p{i} rolls 1d1 = [1] = 1"

            def long_line(_i: int, channel: str) -> str:
                return long_text[channel]

            # a roll's answer that cannot go out within reply_seconds (behind the long
            # lines, at one line a second) is dropped, not queued: each comes or is dropped
            outbox = run.bot.outbox
            with contextlib.suppress(TimeoutError):
                await until(lambda: count(long_line) == 10 and len(outbox) == 0, 120)
            with contextlib.suppress(TimeoutError, IrcClosedError):
                for client in players:  # each has read what the bot sent before that
                    await sync(client)
            sessions, rolls, long_lines = run.bot.sessions, count(roll), count(long_line)
            print(f"{rolls} rolls answered, {outbox.dropped} dropped as too late")
            assert (sessions, rolls + outbox.dropped, long_lines) == (1, 10, 10), (
                f"{sessions} sessions; delivered {rolls} of 10 rolls ({outbox.dropped} "
                f"dropped as too late) and {long_lines} of 10 long lines")
        for client in players:
            await client.quit()

    asyncio.run(scenario())
