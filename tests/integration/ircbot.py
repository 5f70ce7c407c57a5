"""The referee on a real server (ngircd or InspIRCd), for tests: ``async with
bot_on(server, tmp_path) as run``.

``irc`` keywords override the ``IrcConfig`` (``port=server.tls_port, tls=True``).
``run.bot`` is the :class:`bot.irc.supervisor.IrcBot`, ``run.dice`` its scripted dice,
``run.referee`` the referee with its store. Its ``!odds`` workers start with their
first job (``warm_odds=True``: at once, as ``ancath-bot run`` starts them) and stop with
the bot: each warm worker costs about a second of CPU, which the other tests would share.
``from_bot(client, text)`` waits for the bot's PRIVMSG containing ``text``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ircserver import IrcClient, IrcLine

from bot.app import build_referee
from bot.config import BotConfig, FloodConfig, IrcConfig
from bot.dice import ScriptedDice
from bot.irc.supervisor import IrcBot
from bot.odds import pending
from bot.odds.worker import start_workers
from bot.referee import Referee

BOT_NICK = "Ref"


class Server(Protocol):
    """Where a test server listens (``NgircdServer``, ``InspircdServer``)."""

    host: str
    port: int


def joined(channel: str, nick: str = BOT_NICK) -> Callable[[IrcLine], bool]:
    """Matches ``nick``'s JOIN of ``channel``."""
    return lambda line: line.command == "JOIN" and line.nick == nick and line.target == channel


@dataclass
class Running:
    bot: IrcBot
    dice: ScriptedDice
    referee: Referee


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll a condition of the bot's own state (no fixed sleeps: it returns at once)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def bot_on(
    server: Server, tmp_path: Path, *, moderators: tuple[str, ...] = (),
    burst: int = 4, per_second: float = 1.0, database: str | None = None,
    joined: bool = True, channels: tuple[str, ...] = ("#arena",), warm_odds: bool = False,
    network: str = "default", **irc: object,
) -> AsyncIterator[Running]:
    config = BotConfig(
        database=database or str(tmp_path / "bot.sqlite3"), moderators=list(moderators),
        network=network,
        irc=IrcConfig.model_validate({
            "server": server.host, "port": server.port, "tls": False, "nick": BOT_NICK,
            "channels": list(channels), "reconnect_max_seconds": 1.0,
            "connect_timeout": 5.0,
            "flood": FloodConfig(burst=burst, per_second=per_second), **irc}),
    )
    assert config.irc is not None
    dice = ScriptedDice([])
    referee = build_referee(config, dice=dice, odds_workers=start_workers(warm=warm_odds))
    bot = IrcBot(config.irc, referee)
    task = asyncio.create_task(bot.run())
    try:
        if joined:
            await until(lambda: bot.outbox.prefix is not None)  # our own JOIN echoed
        yield Running(bot, dice, referee)
    finally:
        bot.stop()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        pending.close(referee)
        referee.store.engine.dispose()


async def player(server: Server, nick: str, user: str | None = None) -> IrcClient:
    client = await IrcClient.connect(server.port, nick, user)
    await client.join("#arena")
    return client


async def from_bot(client: IrcClient, text: str, timeout: float = 10.0) -> IrcLine:
    return await client.expect(
        lambda line: line.command == "PRIVMSG" and line.nick == BOT_NICK and text in line.text,
        timeout=timeout)
