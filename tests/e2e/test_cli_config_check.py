"""``ancath-bot config check``: the file and the environment checked as ``run`` reads
them, what ``run`` would do said a line a topic, secrets named by where they come from
and never shown, exit 0; what would stop ``run`` one line, exit 2. Nothing is connected
to or written: no database, no key file, no log file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main

ROOT = Path(__file__).resolve().parents[2]
SECRET = "the-bots-sasl-password"
KEY = "k" * 40
BOT_YAML = """\
database: club.sqlite3
moderators: [alice, "bob!bob@staff.example.org"]
irc:
  server: irc.libera.chat
  nick: AnCath
  channels: ["#ancath", "#ancath-practice"]
  verified_idents: true
  sasl_account: AnCath
log: {file: bot.log}
"""


@pytest.fixture
def club(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.yaml").write_text(BOT_YAML)
    monkeypatch.setenv("ANCATH_SASL_PASSWORD", SECRET)
    return tmp_path


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["config", "check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_check_says_what_run_would_do_and_makes_nothing(
        club: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANCATH_IRC__PORT", "6697")
    assert check(capsys, "--config", "bot.yaml") == (0, f"""\
config: bot.yaml, and from the environment $ANCATH_IRC__PORT
database: {club / 'club.sqlite3'} (SQLite; made at the first start)
ledger key: none yet: the first start makes {club / 'club.sqlite3.key'} (mode 0600)
network: default; home network: the first network a bot of the club starts on
irc: irc.libera.chat:6697 over TLS, trusting the system CAs, as AnCath (then AnCath_, AnCath__)
sasl: PLAIN as AnCath, the password from $ANCATH_SASL_PASSWORD
channels: #ancath, #ancath-practice
heartbeat: {club / 'club.sqlite3.heartbeat'} (ancath-bot status reads it; one running bot a file)
moderators: alice (account or password login), bob!bob@staff.example.org (mask)
log: INFO, text, to bot.log
ok: nothing was connected or written
""", "")
    assert sorted(p.name for p in club.iterdir()) == ["bot.yaml"]   # no database, key, log


def test_secrets_are_named_never_shown(club: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANCATH_LEDGER_KEY", KEY)
    monkeypatch.setenv("ANCATH_DATABASE", "postgresql+psycopg://ancath:dbpass@db.invalid/club")
    code, out, err = check(capsys, "--config", "bot.yaml")
    assert code == 0 and err == ""
    assert "database: postgresql+psycopg://ancath:***@db.invalid/club (not contacted here)" in out
    assert "ledger key: from $ANCATH_LEDGER_KEY (1 key; public key ed25519:" in out
    for secret in (SECRET, KEY, "dbpass"):
        assert secret not in out


def test_an_existing_club_and_its_key(club: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fought = subprocess.run([sys.executable, "-m", "bot.cli", "console", "--db", "club.sqlite3"],
                            input="gob !create Gorbag goblin club spear\n", capture_output=True,
                            text=True, timeout=60, cwd=club,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert fought.returncode == 0, fought.stderr
    made = sorted(p.name for p in club.iterdir())
    code, out, _ = check(capsys, "--config", "bot.yaml")
    assert code == 0
    assert f"database: {club / 'club.sqlite3'} (SQLite, schema " in out and ", the newest)" in out
    assert "ledger key: from club.sqlite3.key (1 key; public key ed25519:" in out
    (club / "other.keys").write_text("o" * 40 + "\n")
    (club / "other.keys").chmod(0o600)
    code, out, err = check(capsys, "--config", "bot.yaml", "--key-file", "other.keys")
    assert (code, out) == (2, "")   # run would refuse to sign with another key
    assert err.startswith("ancath-bot: the newest ledger row #1 is signed with key ")
    assert err.count("\n") == 1 and "o" * 40 not in err
    assert sorted(p.name for p in club.iterdir()) == sorted([*made, "other.keys"])


@pytest.mark.parametrize(("setting", "said"), [
    ("moderators: ['bob!*@*.example']", "bot.yaml: moderators: 'bob!*@*.example': a "
     "moderator mask is exact, no * or ? (R8.2)"),
    ("irc: {server: irc.libera.chat, nick: An Cath}", "bot.yaml: irc.nick: 'An Cath' is "
     "not a nick"),
    ("irc: {server: irc.libera.chat, sasl_account: AnCath, sasl_password_env: NO_SUCH_VAR}",
     "irc.sasl_account AnCath: $NO_SUCH_VAR is not set: set it in the environment (a "
     "secret never goes in the file)"),
    ("log: {file: no-such-dir/bot.log}", "log.file: cannot open no-such-dir/bot.log: the "
     "directory no-such-dir does not exist"),
    ("database: no-such-dir/club.sqlite3", "the directory"),
    ("database: mysql://u@h/club", "not a database the bot uses"),
])
def test_what_would_stop_run_is_one_line_exit_2(club: Path, capsys: pytest.CaptureFixture[str],
                                                setting: str, said: str) -> None:
    (club / "bot.yaml").write_text(setting + "\n")
    code, out, err = check(capsys, "--config", "bot.yaml")
    assert (code, out) == (2, "")
    assert err.startswith("ancath-bot: ") and err.count("\n") == 1 and said in err, err
    assert sorted(p.name for p in club.iterdir()) == ["bot.yaml"]


def test_a_misspelt_variable_no_longer_starts_a_second_club(tmp_path: Path) -> None:
    """``ANCATH_DATABSE`` was ignored: the bot started on ./ancath.sqlite3, a new club."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT),
           "ANCATH_DATABSE": str(tmp_path / "club.sqlite3")}
    for args in (["config", "check"], ["console"]):
        result = subprocess.run([sys.executable, "-m", "bot.cli", *args], env=env,
                                input="ann !help\n", capture_output=True, text=True,
                                timeout=60, cwd=tmp_path)
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr == ("ancath-bot: $ANCATH_DATABSE sets nothing: correct it "
                                 "($ANCATH_DATABASE?) or unset it\n")
    assert list(tmp_path.iterdir()) == []


def test_what_run_does_without_its_sasl_password_and_with_other_processes_variables(
        club: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One env_file for the Libera and the OFTC bot: each leaves the other's secret."""
    monkeypatch.delenv("ANCATH_SASL_PASSWORD")
    monkeypatch.setenv("ANCATH_OFTC_SASL", SECRET)
    (club / "bot.yaml").write_text(
        "database: postgresql+psycopg://ancath@db.invalid/club\nnetwork: libera\n"
        "other_processes_env: [ANCATH_OFTC_SASL, ANCATH_OFTC_PASS]\n"
        "irc: {server: irc.libera.chat, sasl_account: AnCath, sasl_required: false}\n")
    monkeypatch.setenv("ANCATH_LEDGER_KEY", KEY)
    code, out, err = check(capsys, "--config", "bot.yaml")
    assert (code, err) == (0, "")
    assert out.splitlines()[5:9] == [
        "sasl: none: $ANCATH_SASL_PASSWORD is not set and irc.sasl_required is false: run "
        "goes on without SASL (a WARNING)",
        "channels: none (it joins no channel)",
        f"heartbeat: {club / 'ancath-bot-libera.heartbeat'} (ancath-bot status reads it; one "
        "running bot a file)",
        "other processes' variables, not read here: $ANCATH_OFTC_SASL, $ANCATH_OFTC_PASS "
        "(not set)"]
    assert SECRET not in out
