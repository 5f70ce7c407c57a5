"""Joining many channels on a real server (Debian's ngircd), issue 32: after a restart a
channel's fight is resumed right after its own JOIN, not after every channel's; and a
JOIN the server refuses (ngircd allows 10 channels) is logged with the server's reason
and named to a moderator by ``!status``. Every wait is on an event, never a sleep."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from types import SimpleNamespace

import pytest
from club import Club
from ircbot import BOT_NICK, bot_on, from_bot, joined, player, until
from ircserver import NgircdServer

from bot.chat.moderators import hash_password, password_key
from bot.config import FloodConfig
from bot.irc import supervisor
from bot.irc.supervisor import IrcBot
from bot.messages import Outgoing, Priority, Sender


def quick(server: NgircdServer, max_joins: int = 0) -> NgircdServer:
    """Penalties off (each refused JOIN would cost 2 s); at most ``max_joins`` channels."""
    server.max_penalty_time, server.max_joins = 0, max_joins
    server.stop()
    return server.start()


def test_a_fight_is_resumed_right_after_its_channels_join_not_after_all(
        ngircd: NgircdServer, tmp_path: Path) -> None:
    """Item 7: with five channels, #arena's resume line (joined third) comes before the
    bot's JOIN of the fifth; before, every JOIN went first (7 s with 5 channels)."""
    channels = ("#one", "#two", "#arena", "#four", "#five")

    async def scenario() -> None:
        server = quick(ngircd)
        async with bot_on(server, tmp_path, burst=10, per_second=10) as run:
            gob, olaf = await player(server, "gob"), await player(server, "olaf")
            await gob.say("#arena", "!create Gorbag goblin club spear")
            await from_bot(gob, "created Gorbag")
            await olaf.say("#arena", "!create Olaf free-clans broadsword shield")
            await from_bot(olaf, "created Olaf")
            await olaf.say("#arena", "!challenge Gorbag")
            await from_bot(gob, "Olaf challenges you")
            run.dice.push(50, 40)
            await gob.say("#arena", "!accept")
            await from_bot(olaf, "Olaf (olaf) chooses")
        for channel in channels:  # olaf sees the bot join each of them
            if channel != "#arena":
                await olaf.join(channel)
        # paced so each line waits for the budget: the order is the queue's
        async with bot_on(server, tmp_path, channels=channels, burst=4, per_second=3):
            resumed = await from_bot(olaf, "Fight resumed:")
            assert resumed.text == "Fight resumed: Olaf (olaf) chooses: !first | !second"
            await until(lambda: any(joined("#five")(x) for x in olaf.lines))
            order = [x.target if x.command == "JOIN" else "resumed" for x in olaf.lines
                     if x.nick == BOT_NICK and (x.command == "JOIN" or x is resumed)]
            # #four's JOIN was queued with #arena's WHO, before the WHO's end
            assert order == ["#one", "#two", "#arena", "#four", "resumed", "#five"], order
    asyncio.run(scenario())


def test_a_line_said_while_the_link_is_down_waits_for_its_channels_join(
        ngircd: NgircdServer, tmp_path: Path) -> None:
    """The channels are joined one at a time, in turn with fight output, so a line said
    while the link was down (a time-limit warning) waits for its channel's JOIN rather
    than go out first and be refused."""
    async def scenario() -> None:
        server = quick(ngircd)
        async with bot_on(server, tmp_path, channels=("#one", "#arena"), burst=10,
                          per_second=10) as run:
            session, back = run.bot._session, asyncio.Event()

            async def after_the_player() -> bool:
                await asyncio.wait_for(back.wait(), 30)
                return await session()

            run.bot._session = after_the_player  # type: ignore[method-assign]
            server.stop()
            await until(lambda: not run.bot.connected.is_set())
            run.bot._deliver([Outgoing("#arena", "said while down", Priority.FIGHT)])
            server.start()
            ann = await player(server, "ann")
            back.set()
            said = await from_bot(ann, "said while down")
            bots = [x for x in ann.lines if x.nick == BOT_NICK]
            assert joined("#arena")(bots[0]) and bots[1] is said, bots
    asyncio.run(scenario())


def test_refused_joins_are_logged_and_named_to_a_moderator_by_status(
        ngircd: NgircdServer, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Item 10: ngircd lets a client into 10 channels (MaxJoins); of 12 configured the
    last two are refused (405), each a WARNING with the server's reason, and a
    moderator's ``!status`` names them in its one line; a player's does not."""
    channels = ("#arena", *(f"#c{n:02}" for n in range(2, 13)))
    caplog.set_level(logging.INFO, logger="ancath.irc")

    async def scenario() -> None:
        server = quick(ngircd, max_joins=10)
        async with bot_on(server, tmp_path, channels=channels, moderators=("mod",),
                          burst=20, per_second=20) as run:
            store = run.referee.store
            store.set_setting(password_key("mod"),
                              hash_password("modpass123", "mod", store.keyring), "test")
            await until(lambda: len(run.referee.tables.not_in) == 2)
            mod, ann = await player(server, "mod", user="mod"), await player(server, "ann")
            await mod.say(BOT_NICK, "!mod login modpass123")
            await from_bot(mod, "logged in as moderator mod")
            await mod.say("#arena", "!status")
            said = await from_bot(mod, "mod: ")
            assert said.text == (
                "mod: there is no fight in this channel; start one with !challenge | not in "
                "2 channels: #c11 (too many channels), #c12 (too many channels)")
            await ann.say("#arena", "!status")
            said = await from_bot(ann, "ann: ")
            assert said.text == "ann: there is no fight in this channel; start one with " \
                                "!challenge"
            assert run.bot.session.joins.line is None
            run.bot._deliver([Outgoing("#c12", "a time limit's warning", Priority.FIGHT),
                              Outgoing("#c12", "ann: !top: 1. Olaf 3.2 BP")])
            assert len(run.bot.held) == 1  # the fight's line waits for a later JOIN
    asyncio.run(scenario())
    assert ("not in #c12 (too many channels): kept until it is joined again (1 lines "
            "wait): a time limit's warning") in caplog.text
    assert "not in #c12 (too many channels), dropped: ann: !top: 1. Olaf 3.2 BP" in caplog.text
    refused = [r.getMessage() for r in caplog.records if "cannot join" in r.getMessage()]
    assert refused == [f"cannot join #c{n}: too many channels (405 You have joined too many "
                       "channels)" for n in (11, 12)]
    assert all(r.levelno == logging.WARNING for r in caplog.records
               if "cannot join" in r.getMessage())


def test_status_names_the_channels_it_is_not_in_in_one_line(tmp_path: Path) -> None:
    """A moderator's ``!status`` with 21 channels refused: as many as fit one line, then
    how many more."""
    club = Club(tmp_path)
    club.referee.tables.not_in = {f"#channel-{n:02}": "too many channels" for n in range(11, 32)}
    club.referee.tables.not_in["#channel-11"] = "banned"
    said = club.say("mod !status")
    assert len(said) == 1 and len(said[0].encode()) <= 400, said
    assert said[0].startswith(
        "#arena mod: there is no fight in this channel; start one with !challenge | not in "
        "21 channels: #channel-11 (banned), #channel-12 (too many channels), ")
    assert said[0].endswith(" more")
    assert club.say("olaf !status") == [
        "#arena olaf: there is no fight in this channel; start one with !challenge"]
    club.referee.tables.not_in = {}
    assert club.say("mod !status") == [
        "#arena mod: there is no fight in this channel; start one with !challenge"]


def test_status_of_a_fight_keeps_the_fight_first(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("olaf !challenge Gorbag")
    club.referee.tables.not_in = {"#side": "kicked by op"}
    assert club.say("mod !status") == [
        "#arena Olaf has challenged Gorbag (practice). | not in 1 channel: #side (kicked "
        "by op)"]


class Wire:
    """The link as the supervisor sees it, with no server: every line it writes."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def is_connected(self) -> bool:
        return True

    def send_raw(self, line: str) -> None:
        self.lines.append(line)


def test_a_silent_server_costs_10_s_a_join_and_fight_lines_wait_for_their_channel(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """Review of issue 32, as the supervisor carries a session out (no server, its clock
    scripted): a JOIN with no answer is given up after 10 s, not 30; the lines said for
    that channel meanwhile, and for one the bot is kicked from, keep their fight lines
    and anchors until a later JOIN of it succeeds, and drop their chatter (a WARNING)."""
    club = Club(tmp_path, channels=("#arena", "#side"))
    assert club.config.irc is not None
    bot = IrcBot(club.config.irc.model_copy(update={"flood": FloodConfig(burst=50)}),
                 club.referee)
    bot.lanes.close()
    now = [1000.0]
    monkeypatch.setattr(supervisor, "time", SimpleNamespace(monotonic=lambda: now[0]))
    wire = bot.connection = Wire()  # type: ignore[assignment]
    me = ":AnCath!~ancath@bot.host"

    def server(*lines: str) -> list[str]:
        """The server says ``lines``; what the bot writes back."""
        for line in lines:
            bot._act(bot.session.receive(line))
        while (out := bot.outbox.next_line()[0]) is not None:
            assert bot._send_line(out)
            bot.outbox.sent()
        said, wire.lines[:] = wire.lines[:], []
        return said

    def later(seconds: float) -> list[str]:
        now[0] += seconds
        bot._late()
        return server()

    ann = Sender(nick="ann", account="ann")
    anchor = "Gorbag forfeits by the time limit. ledger #9 0123456789abcdef"

    def said(channel: str) -> list[Outgoing]:
        return [Outgoing(channel, "Olaf (olaf) to act: !attack 25", Priority.FIGHT),
                Outgoing(channel, anchor, Priority.CHATTER, fit=lambda _n: anchor),
                Outgoing(channel, "ann: !top: 1. Olaf 3.2 BP", asker=ann)]

    assert server(":srv 001 AnCath :Welcome") == ["JOIN #arena"]
    assert later(9.9) == []
    assert later(0.2) == ["JOIN #side"]  # 10 s, not 30
    assert club.referee.tables.not_in == {"#arena": "no answer"}
    bot._deliver(said("#arena"))
    assert server(f"{me} JOIN #side") == ["WHO #side"]
    assert server(":op!~op@op.host KICK #side AnCath :out") == []
    bot._deliver(said("#side"))
    assert len(bot.held) == 4
    # a late echo of #arena's JOIN, and #side joined again (an invite, a reconnect)
    assert server(f"{me} JOIN #arena") == [
        "PRIVMSG #arena :Olaf (olaf) to act: !attack 25", f"PRIVMSG #arena :{anchor}"]
    assert server(f"{me} JOIN #side") == [
        "PRIVMSG #side :Olaf (olaf) to act: !attack 25", f"PRIVMSG #side :{anchor}"]
    kept = "kept until it is joined again"
    assert [m for m in caplog.messages if "ledger key" not in m] == [
        "no answer in 10 s to JOIN #arena",
        f"not in #arena (no answer): {kept} (1 lines wait): Olaf (olaf) to act: !attack 25",
        f"not in #arena (no answer): {kept} (2 lines wait): {anchor}",
        "not in #arena (no answer), dropped: ann: !top: 1. Olaf 3.2 BP",
        "kicked from #side by op: out",
        f"not in #side (kicked by op): {kept} (1 lines wait): Olaf (olaf) to act: !attack 25",
        f"not in #side (kicked by op): {kept} (2 lines wait): {anchor}",
        "not in #side (kicked by op), dropped: ann: !top: 1. Olaf 3.2 BP"]
