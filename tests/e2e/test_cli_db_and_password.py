"""An operator at the command line: a moderator's password piped in (``docker exec``
without ``-it``), a database URL the bot cannot use, a file that is no club's."""

from __future__ import annotations

import io
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli_ops import one_line_error

from bot.chat.moderators import password_key, verify_password
from bot.cli import main
from bot.systems.registry import SYSTEMS
from storage.db import open_read_only
from storage.keys import KEY_ENV, load_keyring
from storage.store import Store

PG = "postgresql+psycopg://bot@127.0.0.1:1/club"


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The command as an operator runs it, its standard input a pipe (no terminal)."""
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def _club(tmp_path: Path) -> tuple[Path, Path]:
    db, config = tmp_path / "club.sqlite3", tmp_path / "bot.yaml"
    config.write_text(f"database: {db}\nmoderators: [boss]\n", encoding="utf-8")
    return db, config


def test_echo_pw_into_moderator_password_sets_it_without_a_terminal(tmp_path: Path) -> None:
    db, config = _club(tmp_path)
    done = cli("moderator", "password", "boss", "--config", str(config),
               stdin="hunter2hunter2\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "password set: boss logs in with /msg <bot> !mod login <password>\n"

    store = Store(open_read_only(str(db)), systems=SYSTEMS.rules,
                  keyring=load_keyring(str(db), create=False))
    key = password_key("boss")
    stored, newest = store.setting(key), store.newest_seal(key)
    assert verify_password(stored, "hunter2hunter2", "boss", store.keyring, newest=newest)
    assert not verify_password(stored, "hunter2hunter2\n", "boss", store.keyring,
                               newest=newest)   # the newline is not part of it


@pytest.mark.parametrize("piped", ["", "\n", "\r\n"])
def test_an_empty_piped_password_is_one_line_and_nothing_is_made(
        tmp_path: Path, piped: str) -> None:
    db, config = _club(tmp_path)
    one_line_error(cli("moderator", "password", "boss", "--config", str(config), stdin=piped),
                   "no password on standard input",
                   "echo 'the password' | ancath-bot moderator password boss")
    assert not db.exists() and not Path(f"{db}.key").exists()


def test_a_piped_password_of_bytes_that_are_no_utf8_is_one_line(tmp_path: Path) -> None:
    _, config = _club(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "bot.cli", "moderator", "password", "boss", "--config",
         str(config)], input=b"\xff\xfehunter2hunter2\n", capture_output=True, timeout=60)
    assert result.returncode == 2 and b"Traceback" not in result.stderr
    assert result.stderr == b"ancath-bot: the password is not UTF-8 text; nothing was changed\n"


def test_moderator_password_help_says_a_pipe_is_read() -> None:
    listed = " ".join(cli("moderator", "--help").stdout.split())
    assert "asked twice at a terminal; without one (a pipe, docker exec without -it) the " \
        "first line of standard input" in listed
    shown = " ".join(cli("moderator", "password", "--help").stdout.split())
    assert "(without one it always is: echo 'the password' | ancath-bot moderator password " \
        "NAME)" in shown


def _said(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """``main`` run in this process: exit 2 and one line on stderr, which it returns."""
    assert main(list(argv)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("ancath-bot: ") and err.count("\n") == 1
    return err


def test_a_postgresql_url_without_its_driver_says_install_the_extra_before_any_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """psycopg is installed here: its import is made to fail, as without the extra."""
    monkeypatch.setitem(sys.modules, "psycopg", None)
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO("hunter2hunter2\n"))
    config = tmp_path / "pg.yaml"
    config.write_text(f"database: {PG}\nmoderators: [boss]\n"
                      "irc: {server: 127.0.0.1, port: 1}\n", encoding="utf-8")
    for argv in (["run"], ["console"], ["key", "ids"], ["key", "public"], ["ledger"],
                 ["db", "current"], ["db", "upgrade"], ["moderator", "password", "boss"],
                 ["audit", "verify"], ["audit", "export", "--out", str(tmp_path / "x")],
                 ["web"], ["warrior", "show", "Olaf"]):
        line = _said(capsys, *argv, "--config", str(config))
        assert line == (f"ancath-bot: {PG}: its driver psycopg is not installed: pip install "
                        "'ancath-bot[postgres]' (or '.[postgres]' in the source)\n"), argv


@pytest.mark.parametrize(("url", "named"), [
    ("mysql://bot:secret@db/club", "mysql"),
    ("postgresql+psycopg2://bot@db/club", "postgresql+psycopg2"),
    ("oracle://bot@db/club", "oracle"),
    ("nosuchdb://bot@db/club", "nosuchdb"),
])
def test_a_url_of_another_database_or_driver_names_what_the_bot_uses(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], url: str, named: str) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    for argv in (["db", "current"], ["key", "ids"], ["console"]):
        line = _said(capsys, *argv, "--db", url)
        assert f": {named} is not a database the bot uses: give a SQLite file (a path, or " \
            "sqlite:///path) or PostgreSQL through psycopg (postgresql+psycopg://user@host/" \
            "db, or postgresql://), whose driver comes with pip install " \
            "'ancath-bot[postgres]'" in line, argv
        assert "secret" not in line and "not installed" not in line


@pytest.mark.parametrize("other", ["empty", "another program's"])
def test_db_current_and_downgrade_refuse_a_file_that_is_not_a_club_database(
        tmp_path: Path, other: str) -> None:
    db = tmp_path / "notes.sqlite3"
    db.touch()
    if other != "empty":
        with sqlite3.connect(db) as raw:
            raw.execute("CREATE TABLE notes (body TEXT)")
    before = db.read_bytes()
    for argv in (["db", "current"], ["db", "downgrade", "0004"]):
        said = one_line_error(cli(*argv, "--db", str(db)))
        assert said == (f"ancath-bot: {db}: not a club database (no ancath-bot schema in it): "
                        "name the club's database, or make a new club there with ancath-bot "
                        "db upgrade\n")
    assert db.read_bytes() == before and not Path(f"{db}.key").exists()


@pytest.mark.parametrize("query", ["?password=leak2", "?sslmode=require&sslpassword=leak2",
                                   "?PassWord=leak2&password=leak3"])
def test_a_password_in_the_urls_query_string_is_never_shown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], query: str) -> None:
    """``render_as_string()`` hid only the password after ``user:``; libpq takes one in
    the query string as well (``?password=``, ``?sslpassword=``)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(KEY_ENV, "k" * 40)
    url = f"postgresql+psycopg://ancath:leak1@db.invalid/club{query}"
    monkeypatch.setenv("ANCATH_DATABASE", url)
    assert main(["config", "check"]) == 0
    checked = capsys.readouterr().out
    assert "database: postgresql+psycopg://ancath:***@db.invalid/club?" in checked
    said = [checked,
            _said(capsys, "backup", str(tmp_path / "copy.sqlite3")),
            _said(capsys, "db", "current", "--db", url.replace("postgresql+psycopg", "mysql"))]
    assert "only a SQLite file is copied this way" in said[1]
    assert "mysql is not a database the bot uses" in said[2]
    for line in said:
        assert "leak" not in line and "=***" in line, line


@pytest.mark.parametrize("url", ["postgresql+psycopg://ancath:leak1@db:notaport/club",
                                 "postgres ql://ancath:leak1@db/club?password=leak2"])
def test_a_url_that_does_not_parse_is_one_line_its_secrets_hidden(
        capsys: pytest.CaptureFixture[str], url: str) -> None:
    """A port that is no number raised ``ValueError`` from SQLAlchemy: a traceback."""
    line = _said(capsys, "db", "current", "--db", url)
    assert "not a database URL the bot can use" in line and "leak" not in line, line


def closed_stdin(*args: str) -> subprocess.CompletedProcess[str]:
    """The command with its standard input closed (``<&-``: ``sys.stdin`` is None)."""
    return subprocess.run(["/bin/sh", "-c", 'exec "$@" <&-', "sh", sys.executable, "-m",
                           "bot.cli", *args], capture_output=True, text=True, timeout=60)


def test_moderator_password_with_standard_input_closed_is_one_line(tmp_path: Path) -> None:
    db, config = _club(tmp_path)
    said = one_line_error(closed_stdin("moderator", "password", "boss", "--config",
                                       str(config)))
    assert said == ("ancath-bot: no standard input to read the password from (it is "
                    "closed): echo 'the password' | ancath-bot moderator password boss\n")
    assert not db.exists() and not Path(f"{db}.key").exists()


def test_console_and_run_with_standard_input_closed_are_one_line(tmp_path: Path) -> None:
    db, config = _club(tmp_path)
    said = one_line_error(closed_stdin("console", "--db", str(db)))
    assert said == ("ancath-bot: no standard input for the console channel (it is closed): "
                    "give it the channel's lines (ancath-bot console < lines.txt), or run it "
                    "in a terminal\n")
    one_line_error(closed_stdin("run", "--config", str(config)),
                   "no irc: section in the configuration and no terminal for the console")
    assert not db.exists() and not Path(f"{db}.key").exists()
