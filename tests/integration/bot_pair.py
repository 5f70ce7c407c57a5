"""Two ``ancath-bot run`` processes on one database, each on an ngircd of its own as the
networks ``north`` and ``south``, each refereeing its network's ``#arena``, and the
players in each ``#arena`` (``test_two_bots``, ``test_two_bots_killed``).

The servers run with penalties off and the bots at their config's fastest pacing (20
lines a second) and without their per-player pace (``RUN``): these tests are about two
processes on one database; the servers' and the bot's defaults are tested in
``test_irc_flood``, ``test_irc_bot`` and ``test_irc_inspircd_defaults``.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path

from ircbot import BOT_NICK
from ircserver import IrcClient, IrcLine, NgircdServer

__all__ = ["NETWORKS", "PASSWORD", "Bots", "Side"]

PASSWORD = "two-bots-modpass"

CONFIG = """\
database: {url}
network: {network}
heartbeat_file: {heartbeat}
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
    """The two servers and the two bot processes (each logging to ``<network>.log``
    beside its config ``<network>.yaml``), started at once."""

    def __init__(self, url: str, tmp_path: Path, stack: ExitStack, binary: str) -> None:
        self.url, self.logs = url, [tmp_path / f"{name}.log" for name in NETWORKS]
        self.servers = [stack.enter_context(NgircdServer(binary=binary, max_penalty_time=0))
                        for _ in NETWORKS]
        self.configs = configs = [tmp_path / f"{network}.yaml" for network in NETWORKS]
        for network, server, config in zip(NETWORKS, self.servers, configs, strict=True):
            config.write_text(CONFIG.format(url=url, network=network, port=server.port,
                                            nick=BOT_NICK, heartbeat=config.with_suffix(
                                                ".heartbeat")))
        password = subprocess.run(
            [sys.executable, "-m", "bot.cli", "moderator", "password", "mod", "--config",
             str(configs[0]), "--password-stdin"], input=PASSWORD + "\n",
            capture_output=True, text=True, timeout=120)   # migrates the new database too
        assert password.returncode == 0, password.stderr
        self.processes: list[subprocess.Popen[bytes]] = []
        stack.callback(self.stop)
        self.start()

    def start(self) -> None:
        """Both bots, again (their logs go on)."""
        self.processes = []
        for config, log in zip(self.configs, self.logs, strict=True):
            with log.open("a") as sink:
                self.processes.append(subprocess.Popen(
                    [sys.executable, "-c", RUN, str(config)],
                    stdout=subprocess.DEVNULL, stderr=sink))

    def kill(self, index: int) -> None:
        """SIGKILL the bot of ``NETWORKS[index]``, and wait for it to die."""
        self.processes[index].send_signal(signal.SIGKILL)
        self.processes[index].wait()

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
        self.gone = False
        """The bot quit (``reply``) since it last joined (``wait_for_bot``)."""

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
        self.gone = False

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

    async def reply(self, nick: str, text: str) -> str | None:
        """What the bot says next in ``#arena`` after ``nick`` says ``text`` there; None
        when the bot quits first (killed), or had quit before."""
        if self.gone:
            return None
        await self.say(nick, text)
        line: IrcLine = await self.players["watch"].expect(
            lambda line: line.nick == BOT_NICK and (
                line.command == "QUIT" or (line.command == "PRIVMSG" and line.target == "#arena")),
            timeout=30)
        self.gone = line.command == "QUIT"
        return None if self.gone else line.text

    async def quit(self) -> None:
        for client in self.players.values():
            await client.quit()
