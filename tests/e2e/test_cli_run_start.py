"""``ancath-bot run`` at its start, as ``config check`` says it: a SASL or server
password whose variable is not set (refused, or without SASL when ``sasl_required`` is
false), and a heartbeat file another running bot keeps. The server is one that refuses
every connection: the bot keeps trying, as it would while a network is down."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
IRC = "irc: {server: 127.0.0.1, port: 1, tls: false, nick: Ref"


def env(**secrets: str) -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if not k.upper().startswith("ANCATH_")}
    return {**kept, "PYTHONPATH": str(ROOT), **secrets}


def club(tmp_path: Path, irc: str) -> Path:
    config = tmp_path / "bot.yaml"
    config.write_text(f"database: {tmp_path / 'club.sqlite3'}\n{IRC}, {irc}}}\n")
    return config


def ancath(*args: str, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], env=environ,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=30)


@contextmanager
def running(config: Path, environ: dict[str, str], until: str) -> Iterator[list[str]]:
    """``run``, until its log says ``until``; its log lines so far; SIGTERM after."""
    bot = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--config", str(config)],
                           env=environ, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    try:
        assert bot.stderr is not None
        deadline = time.monotonic() + 20
        while not any(until in line for line in lines) and time.monotonic() < deadline:
            line = bot.stderr.readline()
            assert line, (bot.wait(), lines)   # it ended
            lines.append(line)
        assert any(until in line for line in lines), lines
        yield lines
        bot.send_signal(signal.SIGTERM)
        assert bot.wait(timeout=30) == 0
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()


@pytest.mark.parametrize(("irc", "said"), [
    ("sasl_account: AnCath",
     "ancath-bot: irc.sasl_account AnCath: $ANCATH_SASL_PASSWORD is not set: set it in the "
     "environment (a secret never goes in the file), or irc.sasl_required: false to go on "
     "without SASL\n"),
    ("server_password_env: ANCATH_LIBERA_PASS",
     "ancath-bot: irc.server_password_env: $ANCATH_LIBERA_PASS is not set: set it in the "
     "environment (a secret never goes in the file)\n"),
])
def test_run_refuses_a_password_that_is_not_set_as_config_check_does(
        tmp_path: Path, irc: str, said: str) -> None:
    """``run`` sent ``AUTHENTICATE *`` and went on without its account, even with
    ``sasl_required: true``, while ``config check`` said exit 2."""
    config = club(tmp_path, irc)
    for args in (["config", "check"], ["run"]):
        result = ancath(*args, "--config", str(config), environ=env())
        assert (result.returncode, result.stdout, result.stderr) == (2, "", said), args
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bot.yaml"]   # nothing made


def test_sasl_not_required_goes_on_without_it_with_a_warning(tmp_path: Path) -> None:
    config = club(tmp_path, "sasl_account: AnCath, sasl_required: false")
    checked = ancath("config", "check", "--config", str(config), environ=env())
    assert checked.returncode == 0, checked.stderr
    assert "sasl: none: $ANCATH_SASL_PASSWORD is not set and irc.sasl_required is false: " \
        "run goes on without SASL (a WARNING)\n" in checked.stdout
    warned = "WARNING ancath.irc: $ANCATH_SASL_PASSWORD is not set and irc.sasl_required " \
        "is false: going on without SASL, not logged in as AnCath"
    with running(config, env(), "connecting to 127.0.0.1:1") as said:
        assert sum(warned in line for line in said) == 1, said


def test_a_second_bot_on_the_same_heartbeat_file_is_refused(tmp_path: Path) -> None:
    """One heartbeat written by two bots says a dead one is healthy; ``status`` still
    reads it while the running bot keeps it."""
    config = club(tmp_path, "sasl_account: AnCath")
    secret = env(ANCATH_SASL_PASSWORD="the-bots-sasl-password")
    beat = tmp_path / "club.sqlite3.heartbeat"
    with running(config, secret, "connecting to 127.0.0.1:1"):
        second = ancath("run", "--config", str(config), environ=secret)
        assert (second.returncode, second.stdout) == (2, "")
        assert second.stderr.startswith(f"ancath-bot: heartbeat_file: {beat} is kept by "
                                        "another running bot (pid ")
        assert second.stderr.endswith("): give each bot its own heartbeat_file:, or stop "
                                      "that one\n")
        for _ in range(200):
            status = ancath("status", "--config", str(config), environ=secret)
            if "connecting" in status.stdout:
                break
            time.sleep(0.05)
        assert (status.returncode, status.stdout.split(" (heartbeat")[0]) == (
            1, "unhealthy: connecting to 127.0.0.1:1")
