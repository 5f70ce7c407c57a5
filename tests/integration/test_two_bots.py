"""Two bot processes on one PostgreSQL database (issue 16): ``ancath-bot run`` twice, each
on an ngircd of its own as the networks ``north`` and ``south``, each refereeing its
network's ``#arena``; the players' hosts are one machine, so ``hero`` is the same person
(``~hero@127.0.0.1``) on both networks, and both configs say so (``shared_accounts``:
else ``south``, not the club's home, would name him ``south:~hero@127.0.0.1``).

Round after round, Hero is challenged in both ``#arena`` at once and ``hero`` accepts
both at the same moment: exactly one fight opens, and the other bot refuses. And a
moderator closing or opening Fairy Folk creation in one process counts at the other's
next command; and one taking back an ignore counts in the other's next line from that
player. The servers run with penalties off, the bots at their config's fastest
pacing (20 lines a second) and without their per-player pace (``RUN``): this test is
about two processes on one database, 200 rounds of it; the servers' and the bot's
defaults are tested in ``test_irc_flood``, ``test_irc_bot`` and
``test_irc_inspircd_defaults`` (at the defaults, one command every 2 s a player, 200
rounds would take over 7 minutes).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from ircbot import BOT_NICK
from ircserver import IrcClient, IrcLine, NgircdServer, find_ngircd
from sqlalchemy import text

from storage.db import make_engine

pytestmark = [
    pytest.mark.skipif(find_ngircd() is None, reason="ngircd is not installed"),
    pytest.mark.parametrize("database_url", [pytest.param("postgresql",
                                                          marks=pytest.mark.postgresql)],
                            indirect=True),
]

ROUNDS = 200
FAIRY_EVERY = 40
PASSWORD = "two-bots-modpass"

CONFIG = """\
database: {url}
network: {network}
moderators: [mod]
irc:
  server: 127.0.0.1
  port: {port}
  tls: false
  nick: {nick}
  channels: ["#arena"]
  shared_accounts: true
  flood: {{burst: 50, per_second: 20, burst_bytes: 65536, bytes_per_second: 65536}}
"""

NETWORKS = ("north", "south")

RUN = """\
import sys
import bot.irc.supervisor
from bot.cli import main
bot.irc.supervisor.USER_BURST = bot.irc.supervisor.USER_RATE = 10**6
sys.exit(main(["run", "--config", sys.argv[1]]))
"""
"""``ancath-bot run`` without the per-player pace (five commands, then one every 2 s)."""


class Bots:
    """The two servers and the two bot processes (``bot.log`` beside each config)."""

    def __init__(self, url: str, tmp_path: Path, stack: ExitStack) -> None:
        self.url, self.logs = url, [tmp_path / f"{name}.log" for name in NETWORKS]
        self.servers = [stack.enter_context(NgircdServer(max_penalty_time=0))
                        for _ in NETWORKS]
        configs = [tmp_path / f"{network}.yaml" for network in NETWORKS]
        for network, server, config in zip(NETWORKS, self.servers, configs, strict=True):
            config.write_text(CONFIG.format(url=url, network=network, port=server.port,
                                            nick=BOT_NICK))
        password = subprocess.run(
            [sys.executable, "-m", "bot.cli", "moderator", "password", "mod", "--config",
             str(configs[0]), "--password-stdin"], input=PASSWORD + "\n",
            capture_output=True, text=True, timeout=120)   # migrates the new database too
        assert password.returncode == 0, password.stderr
        self.processes: list[subprocess.Popen[bytes]] = []
        for config, log in zip(configs, self.logs, strict=True):
            with log.open("w") as sink:
                self.processes.append(subprocess.Popen(
                    [sys.executable, "-c", RUN, str(config)],
                    stdout=subprocess.DEVNULL, stderr=sink))
        stack.callback(self.stop)

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def logged(self) -> str:
        return "\n".join(f"== {log.name}\n{log.read_text()}" for log in self.logs)


class Side:
    """One network's ``#arena``: its players, and a watcher reading the bot's lines in
    the order it says them."""

    def __init__(self, server: NgircdServer) -> None:
        self.server = server
        self.players: dict[str, IrcClient] = {}

    async def join(self, *nicks: str) -> None:
        first = not self.players
        for nick in ("watch", *nicks) if first else nicks:
            client = await IrcClient.connect(self.server.port, nick, nick)
            await client.join("#arena")
            self.players[nick] = client
        if first:
            await self.wait_for_bot()

    async def wait_for_bot(self) -> None:
        await self.players["watch"].expect(
            lambda line: (line.command == "JOIN" and line.nick == BOT_NICK)
            or (line.command == "353" and BOT_NICK in line.text.replace("@", "").split()),
            timeout=60)   # the bot joins after us, or was there first

    async def say(self, nick: str, text: str, target: str = "#arena") -> None:
        await self.players[nick].say(target, text)

    async def answer(self, nick: str, text: str, target: str = "#arena") -> str:
        """What the bot says next after ``nick`` says ``text`` (to ``target``)."""
        await self.say(nick, text, target)
        private = target == BOT_NICK
        watcher, to = (self.players[nick], nick) if private else (self.players["watch"], target)
        line: IrcLine = await watcher.expect(
            lambda line: line.command == "PRIVMSG" and line.nick == BOT_NICK
            and line.target == to, timeout=30)
        return line.text

    async def quit(self) -> None:
        for client in self.players.values():
            await client.quit()


def open_fights(url: str) -> list[tuple[str, int]]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(   # type: ignore[misc]
                "SELECT network, COUNT(*) FROM fights WHERE ended_at IS NULL "
                "GROUP BY network ORDER BY network")).all()]
    finally:
        engine.dispose()


@pytest.fixture
def bots(database_url: str, tmp_path: Path) -> Iterator[Bots]:
    with ExitStack() as stack:
        running = Bots(database_url, tmp_path, stack)
        yield running
        log = running.logged()
        assert "Traceback" not in log, log


def test_the_same_warrior_accepted_in_two_processes_at_once_fights_once(
    bots: Bots, database_url: str,
) -> None:
    north, south = (Side(server) for server in bots.servers)
    challengers = {"north": ("aed", "Aed"), "south": ("bran", "Bran")}

    async def scenario() -> tuple[int, int]:
        try:
            return await rounds()
        finally:
            for side in (north, south):
                await side.quit()

    async def rounds() -> tuple[int, int]:
        await north.join("hero", "aed", "mod")
        await south.join("hero", "bran", "mod", "puck")
        assert "created Hero" in await north.answer("hero", "!create Hero goblin club spear")
        assert "created Aed" in await north.answer("aed", "!create Aed goblin club spear")
        assert "created Bran" in await south.answer("bran", "!create Bran goblin club spear")
        for side in (north, south):
            assert "logged in as moderator mod" in await side.answer(
                "mod", f"!mod login {PASSWORD}", target=BOT_NICK)
        sides = {"north": north, "south": south}
        pending = dict.fromkeys(NETWORKS, False)
        won = dict.fromkeys(NETWORKS, 0)
        fairy = 0
        for round_ in range(ROUNDS):
            for network, side in sides.items():   # a refused accept leaves its challenge
                if not pending[network]:
                    nick, mine = challengers[network]
                    said = await side.answer(nick, f"!challenge Hero as {mine}")
                    assert f"{mine} challenges you" in said, said
                    pending[network] = True
            said = dict(zip(NETWORKS, await asyncio.gather(
                north.answer("hero", "!accept"), south.answer("hero", "!accept")),
                strict=True))
            refused = [n for n in NETWORKS if "already fighting" in said[n]]
            assert len(refused) == 1, (round_, said)
            (winner,) = set(NETWORKS) - set(refused)
            assert open_fights(database_url) == [(winner, 1)], (round_, said)
            won[winner] += 1
            pending[winner] = False
            said_end = await sides[winner].answer("mod", f"!mod end draw round {round_}")
            assert "draw" in said_end, said_end
            if round_ % FAIRY_EVERY == FAIRY_EVERY - 1:
                fairy += 1
                await fairy_folk_seen_across(sides, fairy)
            if round_ == ROUNDS // 2:
                await ignore_taken_back_across(north, south)
        return won["north"], won["south"]

    won = asyncio.run(scenario())
    print(f"{ROUNDS} rounds: north opened {won[0]}, south {won[1]}")
    assert open_fights(database_url) == []
    assert all(won), "one process won every race: the accepts were never at once"


async def ignore_taken_back_across(north: Side, south: Side) -> None:
    """A moderator on the north ignores ``troll``, who plays on the south, and takes it
    back: the south bot, which last read the list with troll in it, reads it again before
    it drops his line."""
    if "troll" not in south.players:
        await south.join("troll")
    ignoring = await north.answer("mod", "!mod ignore *!~troll@* spam")
    assert ignoring.startswith("mod: ignoring *!~troll@*"), ignoring
    await south.say("troll", "!roll d6")
    assert (await south.answer("puck", "!roll d6")).startswith("puck rolls d6")
    assert "no longer ignored" in await north.answer("mod", "!mod unignore *!~troll@* ok")
    answered = await south.answer("troll", "!roll d6")
    assert answered.startswith("troll rolls d6"), answered


async def fairy_folk_seen_across(sides: dict[str, Side], turn: int) -> None:
    """A moderator on one network closes, then opens, Fairy Folk creation: ``puck`` on
    the other network meets each at his next command."""
    changer, creator = (sides["north"], sides["south"]) if turn % 2 else \
        (sides["south"], sides["north"])
    if "puck" not in creator.players:
        await creator.join("puck")
    assert "closed" in await changer.answer("mod", "!mod fairy close for now")
    refused = await creator.answer("puck", f"!create Puck{turn} fairy shortsword lajatang")
    assert refused.startswith("puck: Fairy Folk"), refused
    assert "open" in await changer.answer("mod", "!mod fairy open again")
    created = await creator.answer("puck", f"!create Puck{turn} fairy shortsword lajatang")
    assert f"created Puck{turn}" in created, created

