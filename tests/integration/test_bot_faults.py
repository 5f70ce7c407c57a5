"""Faults that lose nothing: a database file deleted or replaced under a running bot is
noticed before anything is acknowledged, and every database or configuration problem at
start is one line naming the file and the fix (exit status 2), never a traceback."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from club import Club
from ircbot import bot_on, from_bot, player
from ircserver import NgircdServer
from pgcluster import PgCluster, find_pg_bin

LOST = ("The club's records are gone from disk: I take no more commands until a moderator "
        "restores them and restarts me; nothing since was kept.")


def test_a_deleted_database_file_stops_the_bot_before_it_acknowledges(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    club = Club(tmp_path)
    assert club.say("gob !create Gorbag goblin club spear")[0].startswith("#arena gob: created")
    club.say("#pit olaf !help")  # the bot has heard from #pit too
    club.say("#pit olaf !create Olaf free-clans broadsword shield")
    os.remove(club.db)
    # today's SQLite would write this to the unlinked file and say "created"
    assert sorted(club.say("ann !create Ulf invaders spear")) == [
        f"#arena {LOST}", f"#pit {LOST}"]
    assert "deleted or replaced" in caplog.text and "CRITICAL" in caplog.text
    assert club.say("ann !create Finn invaders spear") == []  # no more commands
    assert club.say("ann !roll 1d6") == []
    assert club.wait(10) == []


def test_the_next_start_after_a_deleted_database_refuses_to_make_an_empty_club(
    tmp_path: Path,
) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.referee.store.engine.dispose()
    os.remove(club.db)
    # today: a new, empty club, quietly; the key file beside it says there was one
    one_line(cli("console", "--db", club.db), club.db, "missing", "ledger key",
             "Restore club.sqlite3 from a backup")
    assert not os.path.exists(club.db)
    os.rename(f"{club.db}.key", tmp_path / "old.key")   # a new club there, on purpose
    new = cli("warrior", "show", "Gorbag", "--json", "--db", club.db)
    assert (new.returncode, new.stderr) == (2, "ancath-bot: no warrior named Gorbag\n")


def test_a_replaced_database_file_is_noticed_too(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    shutil.copy(club.db, tmp_path / "copy.sqlite3")
    os.replace(tmp_path / "copy.sqlite3", club.db)  # same path, another inode
    assert club.say("ann !sheet Gorbag") == [f"#arena {LOST}"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


def one_line(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("ancath-bot: ") and all(w in line for w in words), line


@pytest.mark.parametrize("command", [["console"], ["warrior", "show", "Olaf", "--json"],
                                     ["ledger"], ["audit", "verify"], ["db", "upgrade"]])
def test_a_missing_directory_is_one_line(tmp_path: Path, command: list[str]) -> None:
    db = tmp_path / "nowhere" / "club.sqlite3"
    one_line(cli(*command, "--db", str(db)), str(db.parent), "does not exist")


def test_a_damaged_or_truncated_database_is_one_line(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.referee.store.engine.dispose()
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(b"this is not a database at all " * 200)
    one_line(cli("console", "--db", str(damaged)), str(damaged), "damaged")
    truncated = tmp_path / "truncated.sqlite3"
    truncated.write_bytes(Path(club.db).read_bytes()[:1500])
    one_line(cli("warrior", "show", "Gorbag", "--db", str(truncated)), str(truncated))


def test_a_read_only_database_is_one_line(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.referee.store.engine.dispose()
    url = f"sqlite:///file:{club.db}?mode=ro&uri=true"  # read-only whoever runs the test
    one_line(cli("console", "--db", url), club.db, "read-only")


@pytest.mark.parametrize("url", ["mysql+nodriver://x@y/z", "notadb://x", "postgresql://"])
def test_a_bad_url_is_one_line(tmp_path: Path, url: str) -> None:
    result = cli("ledger", "--db", url)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_a_config_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "bot.yaml"
    config.write_bytes("moderators: [bj\xf6rn]\n".encode("latin-1"))
    one_line(cli("console", "--config", str(config)), str(config), "not UTF-8")
    one_line(cli("audit", "verify", "--config", str(config)), str(config), "UTF-8")


# -- damaged rows: skipped or refused, and said; never a traceback, never a failed start ---


def damage(club: Club, *statements: str) -> None:
    """``statements`` run on the club's file beside the bot, as a hand or a fault would."""
    with sqlite3.connect(club.db) as db:
        for statement in statements:
            db.execute(statement)
    db.close()


def warriors(club: Club) -> None:
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")


def test_damaged_settings_are_skipped_and_logged_not_a_failed_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    club = Club(tmp_path, timeout_minutes=10)
    warriors(club)
    damage(club, *(f"INSERT INTO settings VALUES ('{key}', '{value}', 'sql', 'now')"
                   for key, value in [("timelimit:default:#arena", '{"value": "soon"}'),
                                      ("ignored", "not JSON at all"),
                                      ("fairy_folk_open", '{"value": [3]}'),
                                      ("rolls:default:#arena", "7")]))
    assert club.restart() == []   # today: a JSONDecodeError, and no bot
    for key in ("timelimit:default:#arena", "ignored", "fairy_folk_open", "rolls:default"):
        assert f"setting {key}" in caplog.text
    assert "Traceback" not in caplog.text
    # each as if never set: the config's time limit, nobody ignored, no Fairy Folk, the
    # bot's rolls
    assert club.referee.settings.turn_seconds("#arena") == 600
    assert club.say("ann !create Fae fairy spear") == [
        "#arena ann: Fairy Folk cannot be created yet: leadership has not opened them"]
    club.say("olaf !challenge Gorbag")
    club.dice.push(50, 40)
    assert "Olaf rolls 50 for initiative" in club.say("gob !accept")[0]


def test_a_ledger_row_whose_detail_is_not_json_fails_the_check_not_the_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    club = Club(tmp_path)
    warriors(club)
    damage(club, "UPDATE ledger SET detail = '{not json' WHERE id = 2")
    assert club.restart() == []   # today: a JSONDecodeError, and no bot
    assert club.referee.settings.ledger_check.state == "failed"
    assert "ledger row 2" in caplog.text and "Traceback" not in caplog.text
    assert club.say("olaf !sheet Olaf")[0].startswith("#arena olaf: Olaf (free-clans")
    listed = cli("ledger", "--db", club.db)
    assert listed.returncode == 0 and "detail damaged: not JSON ('{not json')" in listed.stdout
    verified = cli("audit", "verify", "--db", club.db)
    assert verified.returncode == 1 and "ledger row 2" in verified.stdout
    assert "Traceback" not in verified.stderr


@pytest.mark.parametrize(("column", "value", "said"), [
    ("profile", "'{not json'", "its profile is not JSON ('{not json')"),
    ("profile", "'[1]'", "its profile is not a mapping"),
    ("profile", """'{"culture": "goblin"}'""", "its profile cannot be read"),
    ("bp", "'abc'", "its BP 'abc' (spent 0) is not a count of tenths"),
    ("system", "'xyz'", "its rules system 'xyz' is none the bot knows"),
    ("status", "'zombie'", "its status 'zombie' is not free, prisoner or dead"),
])
def test_a_damaged_warrior_is_refused_in_one_line_and_left_out_of_the_standings(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, column: str, value: str, said: str,
) -> None:
    club = Club(tmp_path)
    warriors(club)
    damage(club, f"UPDATE warriors SET {column} = {value} WHERE name = 'Olaf'")
    damaged = f"Olaf's stored record is damaged ({said}"
    for nick, line in [("olaf", "olaf !sheet Olaf"), ("olaf", "olaf !challenge Gorbag"),
                       ("gob", "gob !challenge Olaf")]:
        (reply,) = club.say(line)   # today: "that went wrong on my side", a traceback
        assert reply.startswith(f"#arena {nick}: {damaged}") and "from a backup" in reply
    (top,) = club.say("ann !top")   # today: a traceback for BP that are no number
    assert top.startswith("#arena ann: Standings: 1. Gorbag 0.0 BP (0-0-0)")
    if "cannot be read" not in said:   # the columns are whole: it stands, without a sheet
        assert top == "#arena ann: Standings: 1. Gorbag 0.0 BP (0-0-0)"
    assert said in caplog.text and "Traceback" not in caplog.text
    one_line(cli("warrior", "show", "Olaf", "--db", club.db), damaged)
    verified = cli("audit", "verify", "--db", club.db)   # names what differs from the ledger
    assert verified.returncode == 1 and "warrior Olaf" in verified.stdout
    assert "Traceback" not in verified.stderr


# -- files made unwritable: at the start, one line; under the running bot, a plain stop ----


def unwritable(path: Path) -> Callable[[], object] | None:
    """Make ``path`` unwritable as ``chattr +i`` does (where the tests may not, by its
    mode, unless they run as root, whom no mode stops); the undo, or None when neither
    can be done here."""
    try:
        made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, timeout=30)
    except FileNotFoundError:   # no e2fsprogs
        made = None
    if made is not None and made.returncode == 0:
        return lambda: subprocess.run(["chattr", "-i", str(path)], check=True, timeout=30)
    if os.getuid() == 0:
        return None
    mode = path.stat().st_mode
    path.chmod(mode & ~0o222)
    return lambda: path.chmod(mode)


@pytest.mark.parametrize("suffix", ["-shm", "-wal", ""])
def test_files_made_immutable_under_the_running_bot_stop_it_plainly_not_by_sigbus(
    tmp_path: Path, suffix: str,
) -> None:
    db = tmp_path / "club.sqlite3"
    bot = subprocess.Popen([sys.executable, "-m", "bot.cli", "console", "--db", str(db)],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    assert bot.stdin is not None and bot.stdout is not None
    try:
        bot.stdin.write("gob !create Gorbag goblin club spear\n")
        bot.stdin.flush()
        assert "created Gorbag" in bot.stdout.readline()   # -wal and -shm are there now
        undo = unwritable(Path(f"{db}{suffix}"))
        if undo is None:
            pytest.skip("chattr +i is not permitted here, and root writes whatever the mode")
        try:   # today: SQLite dies of SIGBUS on its mapped -shm, without a word
            out, err = bot.communicate("olaf !create Olaf free-clans broadsword shield\n"
                                       "olaf !sheet Gorbag\n", timeout=60)
        finally:
            undo()
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    assert bot.returncode == 2, (bot.returncode, err)
    assert out.splitlines() == [
        "#console The club's records cannot be written any more: I take no more commands "
        "until they are made writable and I am restarted; nothing since was kept."]
    assert f"{db}{suffix} cannot be written any more" in err and "chattr -i" in err
    assert "left as it is, not closed" in err and "Traceback" not in err
    # nothing after it was kept, and the file is whole: the next start goes on from it
    shown = cli("warrior", "show", "Gorbag", "--json", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    assert cli("warrior", "show", "Olaf", "--db", str(db)).returncode == 2


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "directory"])
def test_a_database_that_cannot_be_written_is_refused_at_start(
    tmp_path: Path, suffix: str,
) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.referee.store.engine.dispose()
    for left in ("-wal", "-shm"):   # as a crash leaves them
        Path(f"{club.db}{left}").touch()
    blocked = tmp_path if suffix == "directory" else Path(f"{club.db}{suffix}")
    undo = unwritable(blocked)
    if undo is None:
        pytest.skip("chattr +i is not permitted here, and root writes whatever the mode")
    try:
        one_line(cli("console", "--db", club.db), f"{blocked}: cannot be written",
                 "chattr -i")
    finally:
        undo()


# -- a PostgreSQL outage: one WARNING, one line when it is back, and a plain line in chat ---


def test_a_postgresql_outage_is_one_warning_and_one_line_when_it_is_back(
    tmp_path: Path, ngircd: NgircdServer, caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if find_pg_bin() is None:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    monkeypatch.setenv("ANCATH_LEDGER_KEY", "a-key-for-the-outage-test-0123456789abcdef")
    caplog.set_level(logging.INFO)
    out_of_reach = ("gob: the club's records are out of reach (the database is down): "
                    "nothing was read or changed; try again in a while")

    async def scenario() -> None:
        with PgCluster() as pg:
            async with bot_on(ngircd, tmp_path, database=pg.url, burst=20,
                              per_second=20) as run:
                gob = await player(ngircd, "gob")
                await gob.say("#arena", "!create Gorbag goblin club spear")
                await from_bot(gob, "created Gorbag")
                pg.stop()
                for text in ("!sheet Gorbag", "!create Ulf invaders spear"):
                    await gob.say("#arena", text)   # a reader, a writer (5 in all: no pace)
                    assert (await from_bot(gob, "gob: ", timeout=30)).text == out_of_reach
                run.dice.push(4)
                await gob.say("#arena", "!roll 1d6")   # needs no records: answered
                await from_bot(gob, "= 4")
                pg.start()
                await gob.say("#arena", "!create Ulf invaders spear")
                await from_bot(gob, "created Ulf", timeout=30)

    asyncio.run(scenario())
    said = [r.getMessage() for r in caplog.records if r.name.startswith("ancath")]
    # today: 16 tracebacks and "that went wrong on my side" for each command
    assert len([m for m in said if "is out of reach" in m]) == 1
    assert len([m for m in said if m.endswith("is back: commands are taken again")]) == 1
    assert not [r for r in caplog.records if r.exc_info] and "Traceback" not in caplog.text
