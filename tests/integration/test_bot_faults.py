"""Faults that lose nothing: a database file deleted or replaced under a running bot is
noticed before anything is acknowledged, and every database or configuration problem at
start is one line naming the file and the fix (exit status 2), never a traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from club import Club

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
