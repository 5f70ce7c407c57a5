"""Identity by IRCv3 services account on a real server: Debian's InspIRCd 3 with a fake
services server linked to it (tests/integration/inspircd.py), which logs users in with
METADATA accountname and answers SASL PLAIN. Every wait is on an event, never a sleep.

InspIRCd sends a client's 001 about a second after NICK and USER, so the clients of a
test connect together (``asyncio.gather``).

The ``inspircd`` fixture lifts InspIRCd's flood limits (threshold, commandrate, recvq):
these tests are about identity, not pacing. test_irc_flood.py runs InspIRCd at its
default connect class.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from inspircd import FakeServices, InspircdServer
from ircbot import BOT_NICK, bot_on, from_bot, player, until
from ircserver import IrcClient

SASL_ENV = "ANCATH_TEST_SASL_PASSWORD"


def services_of(server: InspircdServer) -> FakeServices:
    assert server.services is not None, "the fixture links the fake services"
    return server.services


async def login(server: InspircdServer, nick: str, account: str) -> None:
    """Services log ``nick`` in; returns once the ircd has applied it."""
    await asyncio.to_thread(services_of(server).login, nick, account)


async def logout(server: InspircdServer, nick: str) -> None:
    await asyncio.to_thread(services_of(server).logout, nick)


async def whois_account(client: IrcClient, nick: str) -> str | None:
    """The account WHOIS shows for ``nick`` (numeric 330), or None."""
    await client.send_raw(f"WHOIS {nick}")
    account: str | None = None
    while True:
        line = await client.expect(lambda x: x.command in {"330", "318"})
        if line.command == "318":
            return account
        account = line.params[2]


def test_a_moderator_is_known_by_services_account_not_by_nick(
    inspircd: InspircdServer, tmp_path: Path
) -> None:
    async def scenario() -> None:
        boss, other, fake, olaf = await asyncio.gather(
            player(inspircd, "boss"), player(inspircd, "other"),
            player(inspircd, "BossAcct"), player(inspircd, "olaf"))
        # Logged in before the bot comes: it learns who is who from its WHOX on join.
        await login(inspircd, "boss", "BossAcct")
        await login(inspircd, "other", "OtherAcct")
        async with bot_on(inspircd, tmp_path, moderators=("BossAcct",), burst=10) as run:
            accounts = run.bot.accounts
            await until(lambda: accounts.get("boss") == "BossAcct"
                        and accounts.get("other") == "OtherAcct")
            assert accounts.get("BossAcct") is None and accounts.get("olaf") is None
            people = run.referee.identity.people  # the same WHOX: names by account, else user@host
            assert people.identity("boss") == "BossAcct"
            assert people.identity("olaf") == olaf.user_host
            await olaf.say("#arena", "!create Olaf free-clans broadsword shield")
            await from_bot(olaf, "created Olaf")

            await fake.say("#arena", "!mod bp Olaf +5.0 bribe")  # the nick is not the account
            await from_bot(fake, "BossAcct: only moderators use !mod")
            await other.say("#arena", "!mod bp Olaf +5.0 bribe")  # another account
            await from_bot(other, "other: only moderators use !mod")

            # The bot forgets what it learnt: only the account tag on the line can say
            # who boss is now.
            accounts.clear()
            await boss.say("#arena", "!mod bp Olaf +1.0 prize")
            await from_bot(boss, "Olaf: +1.0 BP recorded")
            assert run.referee.store.warrior("Olaf").sheet.bp == 10  # tenths

            # account-notify: a logout reaches the bot, and the tag is gone too
            await logout(inspircd, "boss")
            await boss.say("#arena", "!mod bp Olaf +1.0 again")
            await from_bot(boss, "boss: only moderators use !mod")
            assert run.referee.store.warrior("Olaf").sheet.bp == 10

            # leaving the only channel shared with the bot: it forgets the account too
            await other.part("#arena")
            await until(lambda: accounts.get("other") is None
                        and people.identity("other") is None)
    asyncio.run(scenario())


def test_a_players_account_owns_the_warrior_across_nicks_and_connections(
    inspircd: InspircdServer, tmp_path: Path
) -> None:
    async def scenario() -> None:
        joining = asyncio.gather(  # while the bot connects (each 001 takes ~1 s)
            player(inspircd, "gob"), player(inspircd, "alt", user="elsewhere"),
            player(inspircd, "eve", user="gob"))  # eve shares gob's user@host
        async with bot_on(inspircd, tmp_path, burst=10) as run:
            gob, alt, eve = await joining
            await login(inspircd, "gob", "GobAcct")
            await until(lambda: run.bot.accounts.get("gob") == "GobAcct")  # account-notify
            assert run.referee.identity.people.identity("gob") == "GobAcct"
            await gob.say("#arena", "!create Gorbag goblin club spear")
            await from_bot(gob, "created Gorbag (goblin, leather, gob)")  # named by nick

            await gob.nick("gobbo")
            await gob.say("#arena", "!warriors")
            await from_bot(gob, "gobbo: Gorbag")
            await gob.say("#arena", "!buy Gorbag axe")
            line = await from_bot(gob, "gobbo: ")  # owner: it is the BP that is missing
            assert line.text == "gobbo: Gorbag has 0 BP to spend; axe costs 3", line.text

            # another connection, another user@host, the same account: still the owner
            await login(inspircd, "alt", "GobAcct")
            await alt.say("#arena", "!buy Gorbag axe")
            line = await from_bot(alt, "alt: ")
            assert line.text == "alt: Gorbag has 0 BP to spend; axe costs 3", line.text
            # the same user@host without the account is someone else
            await eve.say("#arena", "!buy Gorbag axe")
            await from_bot(eve, "eve: Gorbag is not yours")
    asyncio.run(scenario())


def test_the_bot_logs_in_with_sasl_plain(
    inspircd: InspircdServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    services = services_of(inspircd)
    services.passwords["RefAcct"] = "s3cret pass"
    monkeypatch.setenv(SASL_ENV, "s3cret pass")
    caplog.set_level(logging.INFO, logger="ancath.irc")

    async def scenario() -> None:
        ann_joining = asyncio.create_task(player(inspircd, "ann"))
        async with bot_on(inspircd, tmp_path, sasl_account="RefAcct",
                          sasl_password_env=SASL_ENV) as run:
            assert [(a.account, a.ok) for a in services.sasl_attempts] == [("RefAcct", True)]
            assert run.bot.nick == BOT_NICK and run.bot.connected.is_set()
            ann = await ann_joining
            assert await whois_account(ann, BOT_NICK) == "RefAcct"
    asyncio.run(scenario())
    assert "SASL: logged in as RefAcct" in caplog.text


@pytest.mark.parametrize(("password", "logged"), [
    ("wrong", f"SASL login as RefAcct failed (saslfail): check the account and ${SASL_ENV}"),
    (None, f"SASL: the environment variable {SASL_ENV} is empty"),
], ids=["wrong-password", "no-password"])
def test_a_failed_sasl_login_is_logged_and_the_bot_still_registers(
    inspircd: InspircdServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture, password: str | None, logged: str,
) -> None:
    services = services_of(inspircd)
    services.passwords["RefAcct"] = "s3cret"
    if password is None:
        monkeypatch.delenv(SASL_ENV, raising=False)
    else:
        monkeypatch.setenv(SASL_ENV, password)
    caplog.set_level(logging.INFO, logger="ancath.irc")

    async def scenario() -> None:
        ann_joining = asyncio.create_task(player(inspircd, "ann"))
        async with bot_on(inspircd, tmp_path, sasl_account="RefAcct",
                          sasl_password_env=SASL_ENV) as run:
            # registered (InspIRCd holds the 001 until CAP END) and joined
            assert run.bot.connected.is_set() and run.bot.nick == BOT_NICK
            ann = await ann_joining
            assert await whois_account(ann, BOT_NICK) is None
            run.dice.push(1)
            await ann.say("#arena", "!roll 1d1")
            await from_bot(ann, "ann rolls 1d1 = [1] = 1")
    asyncio.run(scenario())
    # a wrong password reached services and failed; no password never got that far
    attempts = [(a.account, a.ok) for a in services.sasl_attempts]
    assert attempts == ([("RefAcct", False)] if password else [])
    assert logged in caplog.text
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors, "a failed login is an error in the log"


@pytest.mark.parametrize("required", [True, False], ids=["required", "not-required"])
def test_plain_where_the_server_offers_only_external_requests_sasl_then_quits(
    inspircd: InspircdServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture, required: bool,
) -> None:
    """Issue 32, item 11: ``sasl_account`` set, ``sasl=EXTERNAL`` on offer. The bot
    requests ``sasl`` as Sopel and Limnoria do, names the mechanisms on offer in the
    log, and quits before it registers (``sasl_required``, the default), or goes on
    without its account with a WARNING."""
    services = services_of(inspircd)
    services.offer_mechanisms("EXTERNAL")
    monkeypatch.setenv(SASL_ENV, "s3cret")
    caplog.set_level(logging.INFO, logger="ancath.irc")

    async def scenario() -> None:
        async with bot_on(inspircd, tmp_path, joined=not required, sasl_account="RefAcct",
                          sasl_password_env=SASL_ENV, sasl_required=required) as run:
            await until(lambda: "sasl" in run.bot._caps)  # requested and acknowledged
            if required:
                await until(lambda: run.bot.sessions >= 2)  # quit, and tried again
            assert run.bot.connected.is_set() is not required
    asyncio.run(scenario())
    assert services.sasl_attempts == []  # no AUTHENTICATE PLAIN where PLAIN is not
    said = [(r.levelno, r.getMessage()) for r in caplog.records
            if r.getMessage().startswith("SASL")]
    offered = "SASL PLAIN is configured but 127.0.0.1 offers only EXTERNAL: "
    assert said[0] == ((logging.ERROR, offered + "quitting, to try again later (set "
                        "irc.sasl_mechanism to one it offers, or irc.sasl_required: false "
                        "to go on without SASL)") if required else
                       (logging.WARNING, offered + "going on without SASL "
                        "(irc.sasl_required: false)"))


def test_the_same_account_on_another_network_is_another_player(
    inspircd: InspircdServer, inspircd_binary: str, tmp_path: Path
) -> None:
    """Two networks, one club: ``AliceAcct`` on each is whoever registered it there. The
    first bot to start makes its network the club's home; the other names its players
    ``south:<account>``, so the second Alice owns none of the first's warriors and is
    no moderator by the first's name."""
    south = InspircdServer(binary=inspircd_binary)
    south.start()
    database = str(tmp_path / "club.sqlite3")

    async def scenario() -> None:
        joining = asyncio.gather(player(inspircd, "alice"), player(south, "alice"))
        async with bot_on(inspircd, tmp_path, network="north", database=database,
                          moderators=("AliceAcct",), burst=10) as north, \
                bot_on(south, tmp_path, network="south", database=database,
                       moderators=("AliceAcct",), burst=10) as other:
            home_alice, south_alice = await joining
            await asyncio.gather(login(inspircd, "alice", "AliceAcct"),
                                 login(south, "alice", "AliceAcct"))
            await until(lambda: north.bot.accounts.get("alice") == "AliceAcct"
                        and other.bot.accounts.get("alice") == "AliceAcct")
            assert north.referee.identity.people.identity("alice") == "AliceAcct"
            assert other.referee.identity.people.identity("alice") == "south:AliceAcct"
            await home_alice.say("#arena", "!create Astrid free-clans axe shield")
            await from_bot(home_alice, "created Astrid")
            await south_alice.say("#arena", "!warriors")
            await from_bot(south_alice, "alice has no warriors")
            await south_alice.say("#arena", "!mod bp Astrid +1.0 bribe")
            await from_bot(south_alice, "alice: only moderators use !mod")
            await home_alice.say("#arena", "!mod bp Astrid +1.0 prize")
            await from_bot(home_alice, "Astrid: +1.0 BP recorded")
            assert north.referee.store.warrior("Astrid").owner == "AliceAcct"
    try:
        asyncio.run(scenario())
    finally:
        south.close()
