"""Moderators on a network without services (R8.2): a mask with an unverified ident is
refused, and a moderator logs in by private message with a password kept as a slow
hash sealed with the ledger key; the login belongs to that nick and host and ends when
the nick is gone."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from club import Club, lines

from bot.chat.messages import Incoming, Sender
from bot.chat.moderators import hash_password, password_key
from bot.config import BotConfig, ConfigError, load_config
from storage.keys import Keyring

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
    BotConfig(moderators=["boss!boss@staff.example.org", "alice"])  # verified, or accounts


def test_a_moderator_logs_in_by_private_message(tmp_path: Path) -> None:
    club = boss_club(tmp_path)
    assert said(club, BOSS, "!mod bp Gorbag +1.0 prize", "#arena") == [
        "#arena boss: only moderators use !mod (by services account or host mask)"]
    assert said(club, BOSS, "!mod login wrong-password") == [
        "boss that password is not a moderator's"]
    assert said(club, BOSS, "!mod login hunter2hunter2") == [
        "boss logged in as moderator boss until boss quits, leaves or speaks from another "
        "host"]
    assert said(club, BOSS, "!mod bp Gorbag +1.0 prize", "#arena") == [
        "#arena boss: Gorbag: +1.0 BP recorded"]
    row = club.referee.store.ledger("Gorbag")[-1]   # by the name logged in, not user@host
    assert (row["entry"], row["actor"], row["moderator"]) == ("moderator-bp", "boss", "boss")


def test_a_login_is_the_nick_and_host_it_came_from(tmp_path: Path) -> None:
    club = boss_club(tmp_path)
    said(club, BOSS, "!mod login hunter2hunter2")
    # the same nick from another host is someone else, and ends the login
    assert "only moderators" in said(club, EVE, "!mod bp Gorbag +4.0 x", "#arena")[0]
    assert "only moderators" in said(club, BOSS, "!mod bp Gorbag +4.0 x", "#arena")[0]
    said(club, BOSS, "!mod login hunter2hunter2")
    club.referee.renamed("boss", "bossman")  # a nick change keeps the connection's login
    moved = Sender(nick="bossman", mask="bossman!~boss@10.0.0.9", host="~boss@10.0.0.9")
    assert said(club, moved, "!mod fairy open", "#arena")[0].endswith("creation is open")
    club.referee.gone("bossman")  # quit, or parted the last shared channel
    assert "only moderators" in said(club, moved, "!mod fairy close", "#arena")[0]
    assert club.referee.store.ledger("Gorbag")[-1]["entry"] == "created"


def test_a_login_in_a_channel_is_refused_and_tries_are_limited(tmp_path: Path) -> None:
    club = boss_club(tmp_path)
    assert said(club, BOSS, "!mod login hunter2hunter2", "#arena") == [
        "#arena boss: log in by private message (/msg the bot), never in a channel; that "
        "password is seen now: set a new one"]
    for _ in range(5):
        said(club, EVE, "!mod login guess")
    assert said(club, EVE, "!mod login hunter2hunter2") == [
        "boss too many wrong passwords; try again in 10 minutes"]
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
