"""The administrator's commands: --version, backup and restore, db current and
downgrade, a missing PostgreSQL driver, and ``run`` with neither IRC nor a terminal."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

DUEL = """\
gob !create Gorbag goblin club spear
olaf !create Olaf free-clans broadsword shield
olaf !challenge Gorbag
gob !accept
olaf !first
olaf !attack
gob !dodge
"""
DUEL_DICE = "50,40,20,80,5"   # Olaf first, hits, Gorbag's dodge fails, damage 5 kills


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], input=stdin,
                          stdin=None if stdin is not None else subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)


def one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """The one line a refusal is (exit 2, no traceback), holding ``words``."""
    assert result.returncode == 2, result
    assert result.stderr.startswith("ancath-bot: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr
    return result.stderr


def test_version() -> None:
    result = cli("--version")
    assert result.returncode == 0 and result.stdout.startswith("ancath-bot ")


def test_backup_verify_and_restore(tmp_path: Path) -> None:
    db, copy = tmp_path / "club.sqlite3", tmp_path / "backup.sqlite3"
    fought = cli("console", "--db", str(db), "--dice", DUEL_DICE, stdin=DUEL)
    assert fought.returncode == 0 and "Olaf wins by a kill" in fought.stdout

    made = cli("backup", str(copy), "--db", str(db))
    assert made.returncode == 0, made.stderr
    assert "the ledger key is not in it" in made.stdout and f"{db}.key" in made.stdout
    one_line_error(cli("backup", str(copy), "--db", str(db)), "already exists")

    assert cli("audit", "verify", "--db", str(copy)).returncode == 2   # no key beside it
    verified = cli("audit", "verify", "--db", str(copy), "--key-file", f"{db}.key")
    assert verified.returncode == 0 and "ledger intact" in verified.stdout

    for lost in tmp_path.glob("club.sqlite3*"):   # the records are lost; the key is kept
        if lost.suffix != ".key":
            lost.unlink()
    shutil.copyfile(copy, db)
    assert cli("audit", "verify", "--db", str(db)).returncode == 0
    shown = cli("warrior", "show", "Olaf", "--db", str(db), "--json")
    assert json.loads(shown.stdout)["bp"] > 0
    again = cli("console", "--db", str(db), stdin="olaf !sheet Olaf\n")
    assert again.returncode == 0 and "Olaf" in again.stdout


def test_backup_of_postgresql_says_pg_dump_and_hides_the_password() -> None:
    said = cli("backup", "x.sqlite3", "--db", "postgresql+psycopg://u:s3cret@127.0.0.1:1/x")
    one_line_error(said, "pg_dump")
    assert "s3cret" not in said.stderr + said.stdout


def test_db_current_and_downgrade(tmp_path: Path) -> None:
    db = str(tmp_path / "club.sqlite3")
    one_line_error(cli("db", "current", "--db", db), "no such database file")
    assert cli("db", "upgrade", "--db", db).returncode == 0
    head = cli("db", "current", "--db", db).stdout.split()[0]
    assert head == "0010"
    down = cli("db", "downgrade", "0004", "--db", db)
    assert down.returncode == 0 and "at 0004 (was 0010)" in down.stdout
    assert cli("db", "current", "--db", db).stdout == "0004 (the newest is 0010)\n"
    one_line_error(cli("db", "downgrade", "nonsense", "--db", db), "nonsense")
    assert cli("db", "upgrade", "--db", db).returncode == 0
    assert cli("db", "current", "--db", db).stdout == "0010 (the newest)\n"


def test_db_home_network_shows_and_sets_the_clubs_home(tmp_path: Path) -> None:
    db = str(tmp_path / "club.sqlite3")
    one_line_error(cli("db", "home-network", "--db", db), "no such database file")
    assert cli("db", "upgrade", "--db", db).returncode == 0
    assert cli("db", "home-network", "--db", db).stdout == (
        "home network: none yet (the first IRC bot to start names it)\n")
    one_line_error(cli("db", "home-network", "Libera Chat", "--db", db), "short name")
    made = cli("db", "home-network", "libera", "--db", db)
    assert made.returncode == 0 and made.stdout.startswith("home network: libera (was none)")
    assert cli("db", "home-network", "--db", db).stdout == "home network: libera\n"
    assert cli("db", "downgrade", "0007", "--db", db).returncode == 0   # for an older bot
    assert cli("db", "home-network", "--db", db).stdout == "home network: libera\n"
    one_line_error(cli("db", "home-network", "oftc", "--db", db), "ancath-bot db upgrade")
    assert cli("db", "current", "--db", db).stdout.startswith("0007 ")   # never migrated


def test_refused_downgrade_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "club.sqlite3"
    cli("console", "--db", str(db), stdin="gob !create Gorbag goblin club spear\n")
    one_line_error(cli("db", "downgrade", "0003", "--db", str(db)), "keyed")
    assert cli("db", "current", "--db", str(db)).stdout.startswith("0010 ")


def test_a_missing_postgresql_driver_is_one_line() -> None:
    code = ("import sys; sys.modules['psycopg'] = None; from bot.cli import main; "
            "raise SystemExit(main(['ledger', '--db', 'postgresql+psycopg://u@127.0.0.1:1/x']))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    one_line_error(result, "psycopg is not installed", "[postgres]")


def test_run_without_irc_or_terminal_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "bot.yaml"
    config.write_text(f"database: {tmp_path / 'club.sqlite3'}\n")
    one_line_error(cli("run", "--config", str(config)), "no irc: section", "terminal")
    assert not (tmp_path / "club.sqlite3").exists()   # refused before anything was made
    piped = cli("console", "--db", str(tmp_path / "c.sqlite3"), stdin="ann !help\n")
    assert piped.returncode == 0 and piped.stdout   # the console still reads a pipe


def test_run_logs_as_configured_with_the_environment_over_the_file(tmp_path: Path) -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()   # nothing listens there: every connection is refused
    log = tmp_path / "bot.log"
    config = tmp_path / "bot.yaml"
    config.write_text(f"database: {tmp_path / 'club.sqlite3'}\nlog: {{format: text}}\n"
                      "irc: {server: irc.invalid, port: 1, tls: false}\n")
    env = {**os.environ, "ANCATH_IRC__SERVER": "127.0.0.1", "ANCATH_IRC__PORT": str(port),
           "ANCATH_LOG__FORMAT": "json", "ANCATH_LOG__FILE": str(log)}
    bot = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--config", str(config)],
                           env=env, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while "reconnecting in" not in (log.read_text() if log.exists() else ""):
            assert bot.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)   # polling the log file, not waiting a fixed time
    finally:
        bot.send_signal(signal.SIGINT)
        _, stderr = bot.communicate(timeout=60)
    assert bot.returncode == 0 and stderr == ""   # everything went to the file
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    messages = [(e["level"], e["logger"], e["message"]) for e in entries]
    assert ("INFO", "ancath.irc", f"connecting to 127.0.0.1:{port}") in messages
    assert any(m[0] == "WARNING" and m[2].startswith(f"connection to 127.0.0.1:{port} failed")
               for m in messages)
    assert any(m[2].startswith("reconnecting in") and "connection failed" in m[2]
               for m in messages)
    assert any("made a new ledger key" in m[2] for m in messages)   # logged before IRC


# -- damaged files and rows: one line naming the fix, exit 2, never a traceback ------------


def duel(tmp_path: Path) -> Path:
    """A club with one finished duel (five ledger rows), its key beside it."""
    db = tmp_path / "club.sqlite3"
    fought = cli("console", "--db", str(db), "--dice", DUEL_DICE, stdin=DUEL)
    assert fought.returncode == 0 and "Olaf wins by a kill" in fought.stdout
    return db


def sql(db: Path, statement: str) -> None:
    with sqlite3.connect(db) as connection:
        connection.execute(statement)
    connection.close()


def test_a_key_file_of_random_bytes_is_one_line(tmp_path: Path) -> None:
    db = duel(tmp_path)
    key = tmp_path / "random.key"
    key.write_bytes(bytes(range(0x80, 0x100)) * 2)   # no UTF-8 (today: a traceback)
    for command in (["console"], ["audit", "verify"], ["key", "public"]):
        one_line_error(cli(*command, "--db", str(db), "--key-file", str(key)), str(key),
                       "not a ledger key file", "key new")


def garbage_pages(db: Path, *tables: str) -> None:
    """Garbage over the first page of each of ``tables`` (the schema still reads)."""
    with sqlite3.connect(db) as connection:
        size = connection.execute("PRAGMA page_size").fetchone()[0]
        roots = [connection.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                                    (table,)).fetchone()[0] for table in tables]
    connection.close()
    with db.open("r+b") as damaged:
        for root in roots:
            damaged.seek((root - 1) * size)
            damaged.write(bytes(range(256)) * (size // 256))


def test_audit_verify_of_a_file_with_garbage_pages_is_one_line(tmp_path: Path) -> None:
    db = duel(tmp_path)
    garbage_pages(db, "ledger", "fights")   # today: a traceback, and exit status 1
    one_line_error(cli("audit", "verify", "--db", str(db)), str(db), "damaged",
                   "from a backup")


def test_backup_of_a_damaged_file_is_refused_not_backed_up(tmp_path: Path) -> None:
    db, copy = duel(tmp_path), tmp_path / "backup.sqlite3"
    garbage_pages(db, "ledger", "fights")
    # today: "backed up ... to backup.sqlite3", exit 0, and a copy as damaged as the file
    one_line_error(cli("backup", str(copy), "--db", str(db)), "is damaged",
                   "fails SQLite's check", "nothing was written", "newest good one")
    assert not copy.exists() and not list(tmp_path.glob(".backup.sqlite3*"))


def test_a_schema_from_a_newer_version_is_one_line(tmp_path: Path) -> None:
    db = duel(tmp_path)
    sql(db, "UPDATE alembic_version SET version_num = '9999'")
    for command in (["console"], ["db", "upgrade"], ["warrior", "show", "Olaf"]):
        one_line_error(cli(*command, "--db", str(db)), str(db), "9999", "newer version")


def test_a_deleted_ledger_head_row_stops_the_start_in_one_line(tmp_path: Path) -> None:
    db = duel(tmp_path)
    sql(db, "DELETE FROM ledger_head")
    one_line_error(cli("console", "--db", str(db)), "ledger_head", "is missing",
                   "restore the database from a backup")
    verified = cli("audit", "verify", "--db", str(db))   # the check still reads it
    assert verified.returncode == 1 and "Traceback" not in verified.stderr
