"""Moderators on a network without services (R8.2): a mask counts only where the
operator says the network verifies idents, and a moderator logs in by private message
with a password kept as a slow hash sealed with the ledger key, the newest only; the
login needs a channel shared with the bot, belongs to that nick and host and ends when
the nick is gone; wrong passwords are limited by host and by the club; a password said
in a channel is dead at once (issue 31, items 1 to 4 and 9)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from club import Club, lines
from ircbot import BOT_NICK, bot_on, from_bot, player
from ircserver import IrcClient, NgircdServer

from bot.chat.moderators import hash_password, password_key, verify_password
from bot.commands.registry import WritesAfterAll
from bot.config import BotConfig, ConfigError, IrcConfig, load_config
from bot.messages import Incoming, Sender
from storage.club import seal_digest
from storage.keys import Keyring
from storage.store import Store

BOSS = Sender(nick="boss", mask="boss!~boss@10.0.0.9", host="~boss@10.0.0.9")
EVE = Sender(nick="boss", mask="boss!~boss@10.0.0.66", host="~boss@10.0.0.66")


def said(club: Club, sender: Sender, text: str, channel: str | None = None) -> list[str]:
    return lines(club.referee.handle(Incoming(sender=sender, text=text, channel=channel)))


def boss_club(tmp_path: Path) -> Club:
    club = Club(tmp_path, moderators=("boss",))
    club.referee.store.set_setting(
        password_key("boss"), hash_password("hunter2hunter2", "boss", club.referee.store.keyring),
        "test")
    club.say("gob !create Gorbag goblin club spear")
    return club


def test_a_mask_with_an_unverified_ident_is_refused_at_start(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text('moderators: ["boss!~boss@127.0.0.1"]\n')
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert f"{path}: moderators: boss!~boss@127.0.0.1: a '~' before the user" in str(error.value)
    BotConfig(moderators=["boss!boss@staff.example.org", "alice"],  # verified, or accounts
              irc=IrcConfig(server="irc.example.org", verified_idents=True))


def test_a_moderator_logs_in_by_private_message(tmp_path: Path) -> None:
    club = boss_club(tmp_path)
    assert said(club, BOSS, "!mod bp Gorbag +1.0 prize", "#arena") == [
        "#arena boss: only moderators use !mod (by services account or host mask; without "
        "services: /msg <bot> !mod login <password>)"]
    assert said(club, BOSS, "!mod login wrong-password") == [
        "boss that password is not a moderator's"]
    assert said(club, BOSS, "!mod login hunter2hunter2") == [
        "boss logged in as moderator boss until boss quits, changes nick, leaves my "
        "channels or speaks from another host"]
    assert said(club, BOSS, "!mod bp Gorbag +1.0 prize", "#arena") == [
        "#arena boss: Gorbag: +1.0 BP recorded"]
    row = club.referee.store.ledger("Gorbag")[-1]   # by the name logged in, not user@host
    assert (row["entry"], row["actor"], row["moderator"]) == ("moderator-bp", "boss", "boss")


def test_R8_2_a_refused_mod_names_the_password_login_the_refused_moderator_needs(
        tmp_path: Path) -> None:
    """On a network without services the refusal is the only hint of the way in."""
    club = boss_club(tmp_path)
    for text, channel in (("!mod end draw tired", "#arena"), ("!mod list", None)):
        (refused,) = said(club, BOSS, text, channel)
        assert refused.endswith("without services: /msg <bot> !mod login <password>)")
    said(club, BOSS, "!mod login hunter2hunter2")   # what it names, done
    assert said(club, BOSS, "!mod fairy open", "#arena") == [
        "#arena boss: Fairy Folk creation is open"]


def test_a_login_is_the_nick_and_host_it_came_from(tmp_path: Path) -> None:
    club = boss_club(tmp_path)
    said(club, BOSS, "!mod login hunter2hunter2")
    # the same nick from another host is someone else, and ends the login
    assert "only moderators" in said(club, EVE, "!mod bp Gorbag +4.0 x", "#arena")[0]
    assert "only moderators" in said(club, BOSS, "!mod bp Gorbag +4.0 x", "#arena")[0]
    said(club, BOSS, "!mod login hunter2hunter2")
    club.referee.identity.renamed("boss", "bossman")  # a nick change ends the login: log in again
    moved = Sender(nick="bossman", mask="bossman!~boss@10.0.0.9", host="~boss@10.0.0.9")
    assert "only moderators" in said(club, moved, "!mod fairy open", "#arena")[0]
    said(club, moved, "!mod login hunter2hunter2")
    assert said(club, moved, "!mod fairy open", "#arena")[0].endswith("creation is open")
    club.referee.identity.gone("bossman")  # quit, or parted the last shared channel
    assert "only moderators" in said(club, moved, "!mod fairy close", "#arena")[0]
    assert club.referee.store.ledger("Gorbag")[-1]["entry"] == "created"


def test_a_login_in_a_channel_is_refused_and_tries_are_limited(tmp_path: Path) -> None:
    club = boss_club(tmp_path)
    assert said(club, BOSS, "!mod login hunter2hunter2", "#arena") == [
        "#arena boss: never log in in a channel: that was boss's password, so it is dead "
        "now; set a new one (ancath-bot moderator password boss), then /msg me"]
    club.referee.store.set_setting(   # as the command line sets a new one
        password_key("boss"),
        hash_password("hunter2hunter2", "boss", club.referee.store.keyring), "cli")
    for _ in range(5):
        said(club, EVE, "!mod login guess")
    assert said(club, EVE, "!mod login hunter2hunter2") == [
        "boss too many wrong passwords from your host: try again in 1 min"]
    club.clock.advance(601)
    assert said(club, EVE, "!mod login hunter2hunter2")[0].startswith("boss logged in")


def test_a_password_planted_by_a_database_writer_without_the_key_is_refused(
    tmp_path: Path,
) -> None:
    club = boss_club(tmp_path)
    store = club.referee.store
    sealed = hash_password("mallory-knows-this", "boss", store.keyring)
    # a writer without the key: an unsealed hash, one sealed with another key, or the
    # real seal moved to another moderator's name
    forged = [{k: v for k, v in sealed.items() if k not in ("kid", "mac")},
              hash_password("mallory-knows-this", "boss", Keyring.of("not the club's key"))]
    for planted in forged:
        with sqlite3.connect(club.db) as db:
            db.execute("update settings set value = ? where key = ?",
                       (json.dumps(planted), password_key("boss")))
        assert said(club, BOSS, "!mod login mallory-knows-this") == [
            "boss that password is not a moderator's"]
    club.config.moderators.append("chief")
    with sqlite3.connect(club.db) as db:
        db.execute("insert into settings values (?, ?, 'mallory', '')",
                   (password_key("chief"), json.dumps(sealed)))
    assert said(club, BOSS, "!mod login mallory-knows-this") == [
        "boss that password is not a moderator's"]


def test_the_command_line_sets_a_password(tmp_path: Path) -> None:
    config = tmp_path / "bot.yaml"
    db = tmp_path / "club.sqlite3"
    config.write_text(f"database: {db}\nmoderators: [boss]\n")

    def cli(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "bot.cli", "moderator", "password",
                               *args, "--config", str(config), "--password-stdin"],
                              input=stdin, capture_output=True, text=True, timeout=60)

    assert cli("nobody", stdin="long enough\n").returncode == 2
    short = cli("boss", stdin="short\n")
    assert short.returncode == 2 and "at least 8" in short.stderr
    done = cli("boss", stdin="hunter2hunter2\n")
    assert done.returncode == 0, done.stderr
    club = Club(tmp_path)
    club.referee.store.engine.dispose()
    club.config = load_config(config)
    club.restart()
    assert said(club, BOSS, "!mod login hunter2hunter2")[0].startswith("boss logged in")


def test_a_login_is_folded_again_when_the_network_names_its_casemapping(
        tmp_path: Path) -> None:
    club = boss_club(tmp_path)
    host = "~boss@10.0.0.9"
    said(club, Sender(nick="Boss[1]", mask=f"Boss[1]!{host}", host=host),
         "!mod login hunter2hunter2")
    braced = Sender(nick="boss{1}", mask=f"boss{{1}}!{host}", host=host)
    assert said(club, braced, "!mod fairy open", "#arena")[0].endswith("creation is open")
    club.referee.casemapping = "ascii"  # ISUPPORT: boss{1} is no longer Boss[1]
    assert "only moderators" in said(club, braced, "!mod fairy close", "#arena")[0]
    squared = Sender(nick="BOSS[1]", mask=f"BOSS[1]!{host}", host=host)
    assert said(club, squared, "!mod fairy close", "#arena")[0].endswith("creation is closed")


# -- issue 31.1: wrong passwords, by host whatever the ident, and by the club -------------


def guesser(n: int, host: str = "10.0.0.66", ident: str | None = None) -> Sender:
    user = ident or f"~g{n}"
    return Sender(nick=f"g{n}", mask=f"g{n}!{user}@{host}", host=f"{user}@{host}")


def test_new_idents_from_one_host_do_not_get_new_guesses(tmp_path: Path) -> None:
    club = boss_club(tmp_path)
    for n in range(5):   # a new connection, a new ident, each time
        assert said(club, guesser(n), "!mod login guess") == [
            f"g{n} that password is not a moderator's"]
    fresh = guesser(9, ident="g9")   # no '~' either: the host is what counts
    assert said(club, fresh, "!mod login hunter2hunter2") == [
        "g9 too many wrong passwords from your host: try again in 1 min"]
    club.clock.advance(61)
    assert said(club, fresh, "!mod login guess-again") == [
        "g9 that password is not a moderator's"]
    assert said(club, fresh, "!mod login hunter2hunter2") == [   # each more doubles it
        "g9 too many wrong passwords from your host: try again in 2 min"]
    assert said(club, BOSS, "!mod login hunter2hunter2")[0].startswith(
        "boss logged in")   # another host is not held up by this one


def test_guessing_from_many_hosts_makes_every_password_login_wait(tmp_path: Path) -> None:
    """Every try guesses every password moderator at once: past 10 wrong ones from
    anywhere, password logins wait; a moderator by services account is not held up,
    and the real moderator gets in by waiting (docs/bot-behaviour.md)."""
    club = Club(tmp_path, moderators=("boss", "alice"))
    store = club.referee.store
    store.set_setting(password_key("boss"),
                      hash_password("hunter2hunter2", "boss", store.keyring), "cli")
    for n in range(10):
        said(club, guesser(n, host=f"10.0.1.{n}"), "!mod login guess")
    assert said(club, BOSS, "!mod login hunter2hunter2") == [
        "boss too many wrong moderator passwords lately: password logins wait 1 min "
        "(moderators by services account are not held up)"]
    assert club.say("alice !mod fairy open")[0].endswith("Fairy Folk creation is open")
    club.clock.advance(60)
    assert said(club, BOSS, "!mod login hunter2hunter2")[0].startswith("boss logged in")


# -- issue 31.2: a login needs a shared channel, and ends when the nick is out of sight --


def test_a_login_needs_a_shared_channel_and_ends_when_the_nick_leaves_or_changes(
    ngircd: NgircdServer, tmp_path: Path,
) -> None:
    """The bot sees the quits and nick changes only of nicks it shares a channel with: a
    login from anywhere else could outlive its nick, for anyone who connects with the
    same nick and ident from that host."""
    ngircd.max_penalty_time = 0   # behaviour, not the server's pacing
    ngircd.stop()
    ngircd.start()

    async def scenario() -> None:
        async with bot_on(ngircd, tmp_path, moderators=("boss",)) as run:
            store = run.referee.store
            store.set_setting(password_key("boss"),
                              hash_password("hunter2hunter2", "boss", store.keyring), "test")
            gob = await player(ngircd, "gob")
            boss = await IrcClient.connect(ngircd.port, "boss", "boss")   # in no channel
            await boss.say(BOT_NICK, "!mod login hunter2hunter2")
            await from_bot(boss, "join a channel the bot is in first, then /msg me")
            await boss.join("#arena")
            await boss.say(BOT_NICK, "!mod login hunter2hunter2")
            await from_bot(boss, "logged in as moderator boss until boss quits")
            await boss.part("#arena")   # the last channel it shared with the bot
            await boss.say(BOT_NICK, "!mod fairy open")
            await from_bot(boss, "only moderators use !mod")
            await boss.join("#arena")
            await boss.say(BOT_NICK, "!mod login hunter2hunter2")
            await from_bot(boss, "logged in as moderator boss")
            await boss.nick("bossman")   # seen: the login ends with the nick
            await boss.say("#arena", "!mod fairy open")
            await from_bot(boss, "bossman: only moderators use !mod")
            assert not run.referee.settings.fairy_open()
            # said in the channel, through the bot's lanes: dead at once (issue 31.3)
            await gob.say("#arena", "!mod login hunter2hunter2")
            await from_bot(gob, "gob: never log in in a channel: that was boss's password")
            assert store.setting(password_key("boss")) is None
            await boss.quit()
            await gob.quit()
    asyncio.run(scenario())


# -- issue 31.3: a password said in a channel is dead at once ------------------------------


def test_a_password_said_in_a_channel_is_removed_at_once(tmp_path: Path) -> None:
    club = boss_club(tmp_path)
    store = club.referee.store
    assert said(club, BOSS, "!mod login hunter2hunter2", "#arena") == [
        "#arena boss: never log in in a channel: that was boss's password, so it is dead "
        "now; set a new one (ancath-bot moderator password boss), then /msg me"]
    row = store.ledger()[-1]
    assert (row["entry"], row["actor"], row["reason"], row["detail"]) == (
        "setting-changed", "bot", "seen in a channel",
        "moderator-password:boss set (a secret, not recorded)")
    with sqlite3.connect(club.db) as db:
        (detail,) = db.execute("SELECT detail FROM ledger ORDER BY id DESC LIMIT 1").fetchone()
    assert json.loads(detail) == {"key": "moderator-password:boss"}   # the key only
    assert store.setting(password_key("boss")) is None
    spectator = Sender(nick="eve", mask="eve!~eve@10.0.0.66", host="~eve@10.0.0.66")
    assert said(club, spectator, "!mod login hunter2hunter2") == [
        "eve that password is not a moderator's"]
    assert said(club, BOSS, "!mod login hunter2hunter2") == [
        "boss that password is not a moderator's"]
    assert said(club, BOSS, "!mod login not-a-password", "#arena") == [   # counted, kept
        "#arena boss: log in by private message (/msg the bot), never in a channel"]
    assert store.verify() == []


def test_a_password_seen_in_a_channel_is_refused_before_its_removal_is_written(
    tmp_path: Path,
) -> None:
    """A channel's ``!mod login`` is checked where ``/msg`` logins are (the talk lane),
    in the order they came: a spectator's ``/msg`` right after it is refused even while
    the records lane has not yet removed the password."""
    club = boss_club(tmp_path)
    referee = club.referee
    seen = Incoming(sender=BOSS, text="!mod login hunter2hunter2", channel="#arena")
    with pytest.raises(WritesAfterAll):
        referee.handle(seen, False)   # the talk lane: it writes after all
    spectator = Sender(nick="eve", mask="eve!~eve@10.0.0.66", host="~eve@10.0.0.66")
    quick = Incoming(sender=spectator, text="!mod login hunter2hunter2")
    assert lines(referee.handle(quick, False)) == ["eve that password is not a moderator's"]
    assert referee.store.setting(password_key("boss")) is not None   # not removed yet
    assert lines(referee.handle(seen, True))[0].startswith(
        "#arena boss: never log in in a channel: that was boss's password")
    assert referee.store.setting(password_key("boss")) is None


# -- issue 31.4: masks count only where the operator says idents are verified -------------


def test_a_mask_moderator_without_verified_idents_stops_the_start_in_one_line(
    tmp_path: Path,
) -> None:
    config = tmp_path / "bot.yaml"
    config.write_text(f"database: {tmp_path / 'club.sqlite3'}\n"
                      'moderators: ["mboss!mboss@127.0.0.1"]\n'   # no '~': proves nothing
                      "irc: {server: 127.0.0.1, port: 6667, tls: false}\n")
    run = subprocess.run([sys.executable, "-m", "bot.cli", "run", "--config", str(config)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "mboss!mboss@127.0.0.1" in run.stderr and "irc.verified_idents: true" in \
        run.stderr and "services account" in run.stderr and "!mod login" in run.stderr


def test_mod_add_of_a_mask_is_refused_without_verified_idents(tmp_path: Path) -> None:
    club = Club(tmp_path)
    assert club.say("mod !mod add mboss!mboss@127.0.0.1 night shift") == [
        "#arena mod: mboss!mboss@127.0.0.1: a mask counts only where the network verifies "
        "idents (irc.verified_idents in the config); add a services account, or a "
        "password moderator in the config"]
    assert club.referee.settings.chat_moderators == []
    assert club.say("mod !mod add carol night shift")[0].endswith("carol is a moderator now "
                                                                 "(!mod remove carol <reason> "
                                                                 "takes it back)")


def test_a_mask_added_in_chat_counts_only_while_idents_are_verified(tmp_path: Path) -> None:
    club = Club(tmp_path, verified_idents=True)
    mask = "mboss!mboss@127.0.0.1"
    assert club.say(f"mod !mod add {mask} night shift")[0].endswith("is a moderator now "
                                                                   f"(!mod remove {mask} "
                                                                   "<reason> takes it back)")
    assert club.say("mboss !mod fairy open", account="", mask=mask)[0].endswith(
        "Fairy Folk creation is open")
    club.config = club.config.model_copy(update={"irc": None})   # the switch is off again
    club.restart()
    assert club.say("mboss !mod fairy close", account="", mask=mask) == [
        "#arena mboss: only moderators use !mod (by services account or host mask; without "
        "services: /msg <bot> !mod login <password>)"]
    assert club.referee.settings.fairy_open()


# -- issue 31.9: only the newest sealed password counts ------------------------------------


def test_an_old_sealed_password_put_back_in_the_settings_is_dead(tmp_path: Path) -> None:
    """A database writer without the key keeps a copy of the settings row, and puts it
    back after the moderator's password was changed: its seal still holds, but the
    newest password row names another seal."""
    club = boss_club(tmp_path)   # hunter2hunter2, set as the command line sets it
    store, key = club.referee.store, password_key("boss")
    with sqlite3.connect(club.db) as db:
        (old,) = db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    store.set_setting(key, hash_password("correct-horse-2", "boss", store.keyring), "cli",
                      "password for boss")
    with sqlite3.connect(club.db) as db:
        (new,) = db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        db.execute("UPDATE settings SET value = ? WHERE key = ?", (old, key))
    assert said(club, BOSS, "!mod login hunter2hunter2") == [
        "boss that password is not a moderator's"]
    with sqlite3.connect(club.db) as db:   # and the old password's row copied to the end
        db.row_factory = sqlite3.Row
        first = dict(db.execute("SELECT * FROM ledger WHERE entry = 'setting-changed' AND "
                                "json_extract(detail, '$.key') = ? ORDER BY id", (key,)
                                ).fetchone())
        last = db.execute("SELECT id, hash FROM ledger ORDER BY id DESC LIMIT 1").fetchone()
        first.update(id=last["id"] + 1, prev_hash=last["hash"])
        db.execute(f"INSERT INTO ledger ({', '.join(first)}) VALUES "
                   f"({', '.join('?' * len(first))})", list(first.values()))
    assert said(club, BOSS, "!mod login hunter2hunter2") == [
        "boss that password is not a moderator's"]   # its signature does not hold there
    with sqlite3.connect(club.db) as db:
        db.execute("UPDATE settings SET value = ? WHERE key = ?", (new, key))
    assert said(club, BOSS, "!mod login correct-horse-2")[0].startswith("boss logged in")


def test_only_the_newest_password_row_names_the_seal_on_every_backend(store: Store) -> None:
    key = password_key("boss")
    assert store.newest_seal(key) is None
    first = hash_password("hunter2hunter2", "boss", store.keyring)
    store.set_setting(key, first, "cli", "password for boss")
    store.set_setting("rolls:default:#arena", "manual", "mod")   # another key between
    assert store.newest_seal(key) == seal_digest(first)
    second = hash_password("correct-horse-2", "boss", store.keyring)
    store.set_setting(key, second, "cli", "password for boss")
    assert store.newest_seal(key) == seal_digest(second) != seal_digest(first)
    assert verify_password(second, "correct-horse-2", "boss", store.keyring,
                           newest=store.newest_seal(key))
    assert not verify_password(first, "hunter2hunter2", "boss", store.keyring,
                               newest=store.newest_seal(key))
    store.set_setting(key, None, "bot", "seen in a channel")   # removed: no seal counts
    assert store.newest_seal(key) is None
