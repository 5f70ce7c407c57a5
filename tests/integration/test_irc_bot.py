"""The referee on a real IRC server (Debian's ngircd on 127.0.0.1), driven by plain
socket clients; every wait is on an event, never a fixed sleep."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest
from ircbot import BOT_NICK, bot_on, from_bot, player, until
from ircserver import IrcClient, IrcLine, NgircdServer

from bot.chat.moderators import hash_password, password_key
from bot.irc.supervisor import USER_BURST
from bot.messages import Outgoing, Priority
from rules.ancath.sheet import Sheet


async def sync(client: IrcClient) -> None:
    """A PING round trip: the server has handled what ``client`` sent before it, and
    ``client`` has read what the server sent it before the PONG."""
    await client.send_raw("PING :sync")
    await client.expect(lambda line: line.command == "PONG")


def quick(server: NgircdServer) -> NgircdServer:
    """Penalties off: these tests are about behaviour, not the server's pacing."""
    server.max_penalty_time = 0
    server.stop()
    return server.start()


def test_a_whole_practice_fight_through_the_server(ngircd: NgircdServer, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with bot_on(quick(ngircd), tmp_path) as run:
            gob, olaf = await player(ngircd, "gob"), await player(ngircd, "olaf")
            await gob.say("#arena", "!create Gorbag goblin club spear")
            await from_bot(gob, "created Gorbag")
            await olaf.say("#arena", "!create Olaf free-clans broadsword shield")
            await from_bot(olaf, "created Olaf")
            await olaf.say("#arena", "!challenge Gorbag")
            await from_bot(gob, "Olaf challenges you")
            run.dice.push(50, 40)  # initiative: Olaf 50, Gorbag 40
            await gob.say("#arena", "!accept")
            await from_bot(olaf, "Olaf (olaf) chooses: !first | !second")
            await olaf.say("#arena", "!first")
            await from_bot(olaf, "Olaf (olaf) to act:")
            run.dice.push(20)  # 20 vs 25: hit
            await olaf.say("#arena", "!attack")
            await from_bot(gob, "Gorbag (gob), defend:")
            run.dice.push(80, 5)  # dodge 80 vs 30 fails; damage 5: kill on leather
            await gob.say("#arena", "!dodge")
            line = await from_bot(olaf, "Olaf wins by a kill")
            assert "BP: Olaf +0.2, Gorbag +0.1." in line.text
            store = run.referee.store
            assert store.warrior("Olaf").sheet_as(Sheet).bp == 2
            assert store.warrior("Gorbag").sheet_as(Sheet).bp == 1
            assert store.verify() == [] and run.dice.left == 0
    asyncio.run(scenario())


def test_bad_bytes_and_a_failing_handler_do_not_drop_the_bot(
    ngircd: NgircdServer, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with bot_on(quick(ngircd), tmp_path) as run:
            ann = await player(ngircd, "ann")
            await ann.send_raw(b"PRIVMSG #arena :!roll \xff\xfe\xc3(\r\n")
            await from_bot(ann, "ann: cannot read")
            real = run.referee.handle

            exploded: list[object] = []

            def explode(*args: object) -> list[Outgoing]:
                exploded.append(args)
                raise RuntimeError("a handler bug")

            run.referee.handle = explode  # type: ignore[assignment,method-assign]
            await ann.say("#arena", "!help")
            await until(lambda: bool(exploded))  # the bot read it before the fix goes back
            run.referee.handle = real  # type: ignore[method-assign]
            run.bot.accounts.set = explode  # type: ignore[assignment,method-assign]
            bea = await player(ngircd, "bea")  # a JOIN whose handler raises
            run.dice.push(1)
            await bea.say("#arena", "!roll 1d1")
            await from_bot(bea, "bea rolls 1d1 = [1] = 1")
            assert run.bot.sessions == 1  # never reconnected
    asyncio.run(scenario())


def test_cr_lf_and_nul_never_reach_the_server_raw(ngircd: NgircdServer, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with bot_on(quick(ngircd), tmp_path) as run:
            ann = await player(ngircd, "ann")
            # ngircd ends a line at a lone CR: the client's own tail becomes a command.
            await ann.send_raw("PRIVMSG #arena :!create Gob\rNICK hacker goblin club spear")
            await from_bot(ann, "usage: !create")  # the bot saw only "!create Gob"
            # What the bot itself sends is cleaned, whatever a reply carries.
            run.bot.outbox.message("#arena", "hi\rNICK hacked\nJOIN #evil\0 end", Priority.FIGHT)
            line = await from_bot(ann, "hi NICK hacked JOIN #evil end")
            assert line.nick == BOT_NICK
            run.bot.outbox.message("#arena\rJOIN #evil", "targets are checked too")
            run.dice.push(1)
            await ann.say("#arena", "!roll 1d1")
            await from_bot(ann, "ann rolls 1d1")
            assert not any("targets are checked" in x.raw for x in ann.lines)
            assert run.bot.nick == BOT_NICK
    asyncio.run(scenario())


def test_a_long_reply_arrives_split_and_whole(ngircd: NgircdServer, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with bot_on(quick(ngircd), tmp_path) as run:
            ann = await player(ngircd, "ann")
            words = [f"w{i:03d}" for i in range(120)]  # 600 bytes with spaces
            run.bot.outbox.message("#arena", " ".join(words), Priority.FIGHT)
            first = await from_bot(ann, "w000")
            second = await from_bot(ann, "w119")
            assert (first.text + " " + second.text).split() == words
            assert all(len(x.raw.encode()) <= 510 for x in (first, second))
    asyncio.run(scenario())


def test_a_burst_of_30_keeps_to_the_bucket_and_loses_nothing(
    ngircd: NgircdServer, tmp_path: Path
) -> None:
    burst, rate = 4, 10.0

    async def scenario() -> None:
        async with bot_on(quick(ngircd), tmp_path, burst=burst, per_second=rate) as run:
            ann = await player(ngircd, "ann")
            await asyncio.sleep(0.5)  # let the bucket fill after the JOIN
            for i in range(30):
                run.bot.outbox.message("#arena", f"line {i}")
            arrivals = []
            for i in range(30):
                await from_bot(ann, f"line {i}")
                arrivals.append(time.monotonic())
            start = arrivals[0]
            for i, moment in enumerate(arrivals):
                # never more than the burst plus what the rate refilled (20 ms slack)
                assert i + 1 <= burst + (moment - start + 0.02) * rate, (i, moment - start)
    asyncio.run(scenario())


def test_the_fight_goes_on_after_the_server_restarts(ngircd: NgircdServer, tmp_path: Path) -> None:
    async def scenario() -> None:
        server = quick(ngircd)
        async with bot_on(server, tmp_path) as run:
            gob, olaf = await player(server, "gob"), await player(server, "olaf")
            eve = await player(server, "eve")  # there before the restart, not after it
            await gob.say("#arena", "!create Gorbag goblin club spear")
            await from_bot(gob, "created Gorbag")  # each answer awaited: two players'
            await olaf.say("#arena", "!create Olaf free-clans broadsword shield")
            await from_bot(olaf, "created Olaf")  # lines may reach the bot in any order
            await olaf.say("#arena", "!challenge Gorbag")
            await from_bot(gob, "Olaf challenges you")
            run.dice.push(50, 40)
            await gob.say("#arena", "!accept")
            await from_bot(olaf, "Olaf (olaf) chooses")
            people = run.referee.identity.people
            assert people.identity("eve") == "~eve@127.0.0.1"
            # the bot reconnects once the players are back, so they hear it rejoin
            back = asyncio.Event()
            session = run.bot._session

            async def after_the_players() -> bool:
                await asyncio.wait_for(back.wait(), 30)
                return await session()

            run.bot._session = after_the_players  # type: ignore[method-assign]
            server.stop()
            began = time.monotonic()
            await until(lambda: not run.bot.connected.is_set())
            server.start()
            gob, olaf = await player(server, "gob"), await player(server, "olaf")
            back.set()
            line = await from_bot(olaf, "Fight resumed:")  # once, on the bot's JOIN
            print(f"reconnected and resumed in {time.monotonic() - began:.2f} s")
            assert line.text == "Fight resumed: Olaf (olaf) chooses: !first | !second"
            await olaf.say("#arena", "!first")
            await from_bot(olaf, "Olaf acts first.")
            assert run.bot.sessions == 2
            assert [x for x in olaf.lines if "Fight resumed:" in x.text] == [line]
            # a new session, a new book: eve is not there any more
            assert people.identity("olaf") == "~olaf@127.0.0.1"
            assert people.identity("eve") is None
            assert eve.closed.is_set()  # the server it was on went away
    asyncio.run(scenario())


def test_the_book_of_people_follows_joins_who_nicks_parts_kicks_and_quits(
    ngircd: NgircdServer, tmp_path: Path
) -> None:
    async def scenario() -> None:
        server = quick(ngircd)
        early = await player(server, "early")  # there before the bot (and op): from WHO
        await early.join("#side")
        async with bot_on(server, tmp_path, channels=("#arena", "#side")) as run:
            people, accounts = run.referee.identity.people, run.bot.accounts
            await until(lambda: people.identity("early") == "~early@127.0.0.1")
            late = await player(server, "late")  # from its JOIN
            await until(lambda: people.identity("late") == "~late@127.0.0.1")
            await late.nick("later")
            await until(lambda: people.identity("later") == "~late@127.0.0.1")
            assert people.identity("late") is None and people.nick("~late@127.0.0.1") == "later"

            kicked = await player(server, "kicked")
            await until(lambda: people.identity("kicked") == "~kicked@127.0.0.1")
            await early.send_raw("KICK #arena kicked :out")
            await until(lambda: people.identity("kicked") is None)

            await early.part("#arena")  # still in #side with the bot: still known
            run.dice.push(1)
            await late.say("#arena", "!roll 1d1")  # the bot reads the PART before this
            await from_bot(late, "later rolls 1d1")
            assert people.identity("early") == "~early@127.0.0.1"
            await early.part("#side")  # the last channel it shared with the bot
            await until(lambda: people.identity("early") is None)

            await late.quit()
            await until(lambda: people.identity("later") is None)
            assert accounts.get("later") is None and run.dice.left == 0
            await early.quit()
            await kicked.quit()
    asyncio.run(scenario())


def test_outsiders_nick_changers_and_fake_moderators(ngircd: NgircdServer, tmp_path: Path) -> None:
    async def scenario() -> None:
        # ngircd runs no identd: every ident is unverified ("~mod"), so the moderator
        # logs in by password (R8.2)
        async with bot_on(quick(ngircd), tmp_path, moderators=("mod",)) as run:
            store = run.referee.store
            store.set_setting(password_key("mod"),
                              hash_password("modpass123", "mod", store.keyring), "test")
            gob, olaf = await player(ngircd, "gob"), await player(ngircd, "olaf")
            eve = await player(ngircd, "eve")
            await gob.say("#arena", "!create Gorbag goblin club spear")
            await from_bot(gob, "created Gorbag")  # each answer awaited: two players'
            await olaf.say("#arena", "!create Olaf free-clans broadsword shield")
            await from_bot(olaf, "created Olaf")  # lines may reach the bot in any order
            await olaf.say("#arena", "!challenge Gorbag")
            await from_bot(gob, "Olaf challenges you")
            run.dice.push(50, 40)
            await gob.say("#arena", "!accept")
            await from_bot(olaf, "Olaf (olaf) chooses")
            await eve.say("#arena", "!first")
            await from_bot(eve, "eve: only Olaf and Gorbag's players act in this fight")
            await olaf.nick("olafur")  # same user@host: still Olaf's player
            await olaf.say("#arena", "!first")
            await from_bot(olaf, "Olaf acts first.")
            real = await player(ngircd, "mod", user="mod")
            await real.say(BOT_NICK, "!mod login modpass123")
            await from_bot(real, "logged in as moderator mod")
            await real.say("#arena", "!mod bp Olaf +1.0 prize")
            await from_bot(real, "Olaf: +1.0 BP recorded")
            await real.quit()  # the login ends with the nick
            fake = await player(ngircd, "mod", user="mod")  # the same nick and ident
            await fake.say("#arena", "!mod bp Olaf +5.0 bribe")
            await from_bot(fake, "mod: only moderators use !mod")
            assert run.referee.store.warrior("Olaf").sheet_as(Sheet).bp == 10  # tenths
    asyncio.run(scenario())


def test_ctcp_version_and_private_messages(ngircd: NgircdServer, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with bot_on(quick(ngircd), tmp_path):
            ann = await player(ngircd, "ann")
            await ann.say(BOT_NICK, "\x01VERSION\x01")
            reply = await ann.expect(lambda line: line.command == "NOTICE"
                                     and line.nick == BOT_NICK)
            assert "ancath-bot" in reply.text
            await ann.say(BOT_NICK, "!help buy")
            line = await ann.expect(lambda x: x.command == "PRIVMSG" and x.nick == BOT_NICK)
            assert line.target == "ann" and "!buy <warrior> <skill>" in line.text
    asyncio.run(scenario())


def test_an_ignored_player_hears_nothing_not_even_ctcp(ngircd: NgircdServer,
                                                      tmp_path: Path) -> None:
    async def scenario() -> None:
        async with bot_on(quick(ngircd), tmp_path) as run:
            run.referee.settings.set_setting("ignored", ["Spam!*@*"], "test",
                                             "a moderator's ruling")
            spam, ann = await player(ngircd, "spam"), await player(ngircd, "ann")
            await spam.say(BOT_NICK, "\x01VERSION\x01")
            for _ in range(2 * USER_BURST):
                await spam.say("#arena", "!help")
            await sync(spam)
            await ann.say("#arena", "!help buy")
            await from_bot(ann, "ann: !buy <warrior> <skill>")
            await sync(spam)  # spam has read what the bot said before ann's answer
            assert [x for x in spam.lines if x.nick == BOT_NICK and (
                x.target == "spam" or "spam" in x.text)] == []
    asyncio.run(scenario())


def test_a_ctcp_flood_is_paced_like_commands(ngircd: NgircdServer, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with bot_on(quick(ngircd), tmp_path) as run:
            flood, ann = await player(ngircd, "flood"), await player(ngircd, "ann")
            for _ in range(4 * USER_BURST):
                await flood.say(BOT_NICK, "\x01VERSION\x01")
            run.dice.push(1)
            await flood.say("#arena", "!roll 1d1")  # the same budget: spent on VERSIONs
            await sync(flood)  # the server has passed all of it on to the bot
            await ann.say("#arena", "!roll 1d1")
            await from_bot(ann, "ann rolls 1d1")  # not held back behind 20 replies

            def notices() -> list[str]:
                return [x.text for x in flood.lines if x.command == "NOTICE"
                        and x.nick == BOT_NICK]

            # the bot owes flood USER_BURST answers and one line saying why: each comes
            # (after ann's, the lighter asker's) or is dropped as too late to send
            await until(lambda: len(notices()) + run.bot.outbox.dropped == USER_BURST + 1)
            await sync(flood)  # and nothing more comes
            versions = [x for x in notices() if "ancath-bot" in x]
            assert len(versions) <= USER_BURST  # then one line saying why, and silence
            assert [x for x in notices() if x not in versions] in (
                [], ["slow down: one command every 2 s"])
            assert len(notices()) + run.bot.outbox.dropped == USER_BURST + 1
            assert not any("flood rolls" in x.text for x in flood.lines)
            assert run.dice.left == 0
    asyncio.run(scenario())


def test_the_log_says_where_it_connects_and_why_the_link_dropped(
    ngircd: NgircdServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="ancath.irc")
    where = f"127.0.0.1:{ngircd.port}"

    async def scenario() -> None:
        async with bot_on(quick(ngircd), tmp_path) as run:
            ngircd.stop()  # ngircd tells its clients: ERROR :Server going down
            await until(lambda: not run.bot.connected.is_set())
            await until(lambda: "reconnecting in" in caplog.text)
    asyncio.run(scenario())
    said = [r.getMessage() for r in caplog.records if r.name == "ancath.irc"]
    assert said[:4] == [f"connecting to {where}", f"connected to {where}",
                        f"registered as {BOT_NICK}", "joined #arena"]
    assert said[4] == f"disconnected from {where}: Server going down"
    assert [r.levelname for r in caplog.records if r.getMessage() == said[4]] == ["WARNING"]
    assert said[5].startswith("reconnecting in") and said[5].endswith(" s (Server going down)")


def test_one_player_cannot_starve_the_channel(ngircd: NgircdServer, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with bot_on(quick(ngircd), tmp_path) as run:
            spam, ann = await player(ngircd, "spam"), await player(ngircd, "ann")
            run.dice.push(*[1] * (USER_BURST + 1))
            for _ in range(3 * USER_BURST):
                await spam.say("#arena", "!roll 1d1")
            await sync(spam)  # the server has passed all of it on to the bot
            await ann.say("#arena", "!roll 1d1")
            await from_bot(ann, "ann rolls 1d1")  # answered despite the flood

            def answered() -> list[IrcLine]:
                return [x for x in spam.lines if x.nick == BOT_NICK and "spam rolls" in x.text]

            def notices() -> list[str]:
                return [x.text for x in spam.lines if x.command == "NOTICE"
                        and x.nick == BOT_NICK]

            # the bot owes spam USER_BURST answers and one line saying why (the rest were
            # dropped, not queued): each comes, after ann's (the lighter asker's), or is
            # dropped as too late to send
            owed = USER_BURST + 1
            await until(lambda: len(answered()) + len(notices()) + run.bot.outbox.dropped
                        == owed)
            await sync(spam)  # and nothing more comes
            assert len(answered()) + len(notices()) + run.bot.outbox.dropped == owed
            assert len(answered()) <= USER_BURST
            assert notices() in ([], ["slow down: one command every 2 s"])
            assert run.referee.casemapping == "ascii"  # ngircd's ISUPPORT CASEMAPPING
    asyncio.run(scenario())


def test_a_taken_nick_falls_back_and_is_regained(ngircd: NgircdServer, tmp_path: Path) -> None:
    async def scenario() -> None:
        squatter = await IrcClient.connect(quick(ngircd).port, BOT_NICK, "squat")
        async with bot_on(ngircd, tmp_path, alt_nicks=["Ref_"], nick_regain_seconds=0.3) as run:
            assert run.bot.nick == "Ref_"
            await squatter.quit()
            await until(lambda: run.bot.nick == BOT_NICK)
            assert run.bot.outbox.prefix is not None
            assert run.bot.outbox.prefix.startswith(f"{BOT_NICK}!")
    asyncio.run(scenario())


def test_a_silent_link_is_pinged_then_dropped_and_reconnected(tmp_path: Path) -> None:
    """A server that welcomes the bot and then says nothing more."""

    async def scenario() -> None:
        seen: list[list[str]] = []

        async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            lines: list[str] = []
            seen.append(lines)
            while line := (await reader.readline()).decode().strip():
                lines.append(line)
                if line.startswith("CAP LS"):
                    writer.write(b":fake CAP * LS :\r\n")
                if line.startswith("USER"):
                    writer.write(b":fake 001 Ref :hi\r\n")
                await writer.drain()

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        fake = NgircdServer.__new__(NgircdServer)
        fake.host, fake.port = "127.0.0.1", port
        # the PING is paced like every line: a burst that leaves room for it after the
        # JOIN, or it would wait for a token longer than this 0.3 s timeout
        async with bot_on(fake, tmp_path, joined=False, ping_idle_seconds=0.3,
                          ping_timeout_seconds=0.3, burst=10) as run:
            await until(lambda: len(seen) >= 2, 15)
            assert any(line.startswith("PING") for line in seen[0])
            assert run.bot.sessions >= 2
        server.close()
    asyncio.run(scenario())


def test_simple_contest_and_general_rules_fights_on_irc(
    ngircd: NgircdServer, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with bot_on(quick(ngircd), tmp_path, burst=10) as run:
            al, bo = await player(ngircd, "al"), await player(ngircd, "bo")
            await al.say("#arena", "!create Alain contest 15W sword^3 armour 2")
            await from_bot(al, "created Alain")
            await bo.say("#arena", "!create Bors contest 12 axe^2")
            await from_bot(bo, "created Bors")
            await al.say("#arena", "!challenge Bors")
            await from_bot(bo, "Alain challenges you")
            await bo.say("#arena", "!accept")
            await from_bot(al, "Round 1: Alain (al), !strike")
            run.dice.push(5, 19)
            await al.say("#arena", "!strike")
            await from_bot(bo, "Round 1: Bors (bo), !strike")
            await bo.say("#arena", "!strike")
            await from_bot(al, "Alain wins a major victory: Bors injury")
            await al.say("#arena", "!yield")  # Alain gives up the round-2 strike
            await from_bot(bo, "Bors wins: by yield.")
            fa, tr = await player(ngircd, "fa"), await player(ngircd, "tr")
            await fa.say("#arena", "!create Farthan general health=25 str=13 skill=14 "
                         "weapon=1d10 base=1d8 defense=0 protection=2")
            await from_bot(fa, "created Farthan")
            await tr.say("#arena", "!create Troll general str=16 skill=10 weapon=2d6 "
                         "base=1d8 defense=1 protection=3")
            await from_bot(tr, "created Troll")
            await fa.say("#arena", "!challenge Troll")
            await from_bot(tr, "Farthan challenges you")
            await tr.say("#arena", "!accept")
            await from_bot(fa, "Farthan (fa) to act: !attack 14 | !yield")
            run.dice.push(15)  # 15 vs 14: a miss
            await fa.say("#arena", "!attack")
            await from_bot(tr, "Troll (tr) to act: !attack 10 | !yield")
            assert run.dice.left == 0
    asyncio.run(scenario())
