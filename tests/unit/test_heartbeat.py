"""The heartbeat the IRC bot writes and ``ancath-bot status`` reads (the container's
HEALTHCHECK): healthy while fresh and connected, one line either way."""

from __future__ import annotations

import asyncio
import errno
import fcntl
import json
import logging
import os
import time
from pathlib import Path

import pytest

from bot.cli import main
from bot.config import ConfigError, IrcConfig, load_config
from bot.heartbeat import Heartbeat, heartbeat_path, keep, status


class Link:
    """What the heartbeat reads of the IRC bot."""

    def __init__(self) -> None:
        self.connected = asyncio.Event()
        self.nick = "AnCath"
        self.config = IrcConfig(server="irc.example.org", port=6697)


class Clock:
    def __init__(self) -> None:
        self.time = 1_000_000.0

    def __call__(self) -> float:
        return self.time


def said(path: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(path.read_text())
    return data


def test_the_bot_writes_its_state_at_once_then_every_interval_then_stopped(
        tmp_path: Path) -> None:
    path, clock, link = tmp_path / "club.heartbeat", Clock(), Link()
    beat = Heartbeat(path, every=30, clock=clock)

    async def until(check: dict[str, object]) -> None:
        deadline = time.monotonic() + 10   # a loaded machine may take a while to write
        while time.monotonic() < deadline:
            await asyncio.sleep(0.002)
            if path.exists() and check.items() <= said(path).items():
                return
        raise AssertionError(f"heartbeat never said {check}: {path.read_text()}")

    async def scenario() -> None:
        beating = asyncio.create_task(keep(link, beat, poll=0.001))
        await until({"state": "connecting", "where": "to irc.example.org:6697",
                     "at": 1_000_000.0, "every": 30})
        clock.time += 5
        link.connected.set()   # registered: said at once, not 30 s later
        await until({"state": "connected", "where": "as AnCath to irc.example.org:6697",
                     "at": 1_000_005.0})
        clock.time += 10
        await asyncio.sleep(0.05)
        assert said(path)["at"] == 1_000_005.0   # unchanged, within the interval
        clock.time += 20
        await until({"state": "connected", "at": 1_000_035.0})
        beating.cancel()
        await asyncio.gather(beating, return_exceptions=True)
        assert said(path) == {"at": 1_000_035.0, "state": "stopped", "where": "",
                              "every": 30}

    asyncio.run(scenario())
    assert [p.name for p in tmp_path.iterdir()] == ["club.heartbeat"]   # no spare left


def test_a_heartbeat_that_cannot_be_written_is_logged_once_and_the_bot_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    beat = Heartbeat(tmp_path / "gone" / "club.heartbeat")
    with caplog.at_level(logging.WARNING, logger="ancath.heartbeat"):
        beat.beat("connected", "as AnCath to irc.example.org:6697")
        beat.beat("connected", "as AnCath to irc.example.org:6697")
    assert [r.getMessage()[:40] for r in caplog.records] == [
        f"cannot write the heartbeat {tmp_path}/gone/club.heartbeat"[:40]]


def test_nothing_is_written_after_stopped(tmp_path: Path) -> None:
    path = tmp_path / "club.heartbeat"
    beat = Heartbeat(path)
    beat.beat("stopped", "")
    beat.beat("connecting", "to irc.example.org:6697")   # a write the stop cut short
    assert said(path)["state"] == "stopped"


@pytest.mark.parametrize(("ago", "state", "healthy", "line"), [
    (12, "connected", True,
     "healthy: connected as AnCath to irc.example.org:6697 (heartbeat 12 s ago)"),
    (89, "connected", True,
     "healthy: connected as AnCath to irc.example.org:6697 (heartbeat 89 s ago)"),
    (400, "connected", False,
     "unhealthy: the last heartbeat is 400 s old (stale after 90 s): the bot is stuck or "
     "not running"),
    (5, "connecting", False, "unhealthy: connecting to irc.example.org:6697 (heartbeat "
     "5 s ago)"),
    (5, "stopped", False, "unhealthy: stopped (heartbeat 5 s ago)"),
])
def test_status_is_healthy_only_while_fresh_and_connected(
        tmp_path: Path, ago: float, state: str, healthy: bool, line: str) -> None:
    path, clock = tmp_path / "club.heartbeat", Clock()
    where = {"connected": "as AnCath to irc.example.org:6697",
             "connecting": "to irc.example.org:6697", "stopped": ""}[state]
    Heartbeat(path, clock=clock).beat(state, where)
    assert status(path, now=clock.time + ago) == (healthy, line)


def test_status_of_no_heartbeat_or_a_broken_one(tmp_path: Path) -> None:
    path = tmp_path / "club.heartbeat"
    assert status(path) == (False, f"unhealthy: no heartbeat at {path}: `ancath-bot run` "
                            "writes it while on IRC (same config, same working directory)")
    path.write_text('{"at": "yesterday"}')
    assert status(path) == (False, f"unhealthy: {path} is not a heartbeat (delete it; the "
                            "bot rewrites it)")


def test_the_heartbeat_lies_beside_a_sqlite_file_else_where_configured(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "bot.yaml"
    config.write_text(f"database: sqlite:///{tmp_path}/club.sqlite3\n")
    assert heartbeat_path(load_config(config)) == tmp_path / "club.sqlite3.heartbeat"
    config.write_text(f"database: {tmp_path}/club.sqlite3\nheartbeat_file: {tmp_path}/hb\n")
    assert heartbeat_path(load_config(config)) == tmp_path / "hb"
    config.write_text("database: postgresql+psycopg://ancath@db.example.org/club\n"
                      "network: libera\n")
    # in the working directory (the image's /data), not /tmp: several hosts' processes
    # are not one file, and a service's private /tmp is not hidden from `status`
    assert heartbeat_path(load_config(config)) == tmp_path / "ancath-bot-libera.heartbeat"


def test_one_running_bot_a_heartbeat_file(tmp_path: Path) -> None:
    """Two bots writing one heartbeat: a dead one would be said healthy by the other's."""
    path = tmp_path / "club.heartbeat"
    first = Heartbeat(path)
    first.claim()
    first.beat("connected", "as AnCath to irc.example.org:6697")
    with pytest.raises(ConfigError) as error:
        Heartbeat(path).claim()
    assert str(error.value) == (
        f"heartbeat_file: {path} is kept by another running bot (pid {os.getpid()}): give "
        "each bot its own heartbeat_file:, or stop that one")
    assert status(path)[1].startswith("healthy: connected as AnCath")   # read while held
    first.release()
    again = Heartbeat(path)
    again.claim()   # free once its bot is gone
    again.release()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["club.heartbeat",
                                                          "club.heartbeat.lock"]


def test_a_heartbeat_file_the_bot_cannot_keep_stops_the_start(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as error:
        Heartbeat(tmp_path / "gone" / "club.heartbeat").claim()
    assert str(error.value) == (
        f"heartbeat_file: cannot keep {tmp_path}/gone/club.heartbeat.lock: No such file or "
        "directory: set heartbeat_file: to a file in a directory the bot can write")


@pytest.mark.parametrize(("ago", "code", "start"), [
    (3, 0, "healthy: connected as AnCath"),
    (1000, 1, "unhealthy: the last heartbeat is 1000 s old"),
])
def test_ancath_bot_status_exits_0_on_a_fresh_heartbeat_and_1_on_a_stale_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], ago: float, code: int,
        start: str) -> None:
    config = tmp_path / "bot.yaml"
    config.write_text(f"database: sqlite:///{tmp_path}/club.sqlite3\n")
    Heartbeat(tmp_path / "club.sqlite3.heartbeat", clock=lambda: time.time() - ago).beat(
        "connected", "as AnCath to irc.example.org:6697")
    assert main(["status", "--config", str(config)]) == code
    out = capsys.readouterr().out
    assert out.startswith(start) and out.count("\n") == 1, out


def test_a_heartbeat_file_where_nothing_can_be_locked_stops_the_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    with pytest.raises(ConfigError) as error:
        Heartbeat(tmp_path / "club.heartbeat").claim()
    assert str(error.value) == (f"heartbeat_file: cannot lock {tmp_path}/club.heartbeat.lock: "
                                "No locks available: set heartbeat_file: to a file on a local "
                                "disk")
