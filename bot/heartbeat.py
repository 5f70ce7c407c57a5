"""The heartbeat: a small file the IRC bot rewrites while it runs, so that a process
that cannot see it (the container's HEALTHCHECK, a service manager) asks
``ancath-bot status`` whether it is alive and on the network.

The file is one JSON object, replaced whole (a reader never sees half of it): when it
was written (Unix time), the state (``connected``, ``connecting`` or ``stopped``),
a few words on where, and how often it is written. The bot writes it at once when the
state changes and every ``EVERY`` seconds else; it is stale after ``STALE`` of those.

One running bot a heartbeat file: the bot holds an exclusive lock on ``<file>.lock`` for
its life (:meth:`Heartbeat.claim`), so a second bot given the same file is refused at
start rather than writing over the first's (a dead bot said healthy by the other's
heartbeat). ``status`` reads the file itself, never the lock.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from bot.config import BotConfig, ConfigError, IrcConfig
from storage.keys import default_key_path

__all__ = ["EVERY", "STALE", "Heartbeat", "heartbeat_path", "keep", "status"]

log = logging.getLogger("ancath.heartbeat")

EVERY = 30.0
"""Seconds between two heartbeats of an unchanged state."""
STALE = 3
"""A heartbeat older than this many of its intervals is stale: the bot is stuck or gone."""


class Link(Protocol):
    """What the heartbeat reads of the IRC bot (bot/irc/supervisor.py)."""

    @property
    def connected(self) -> asyncio.Event: ...
    @property
    def nick(self) -> str: ...
    @property
    def config(self) -> IrcConfig: ...


def heartbeat_path(config: BotConfig) -> Path:
    """``heartbeat_file`` when configured; else beside a SQLite file database, as its
    key (``<db file>.heartbeat``); else ``ancath-bot-<network>.heartbeat`` in the
    working directory (not the temporary directory: a service's private ``/tmp`` hides
    it from ``status``, and is shared by every process of the host without one)."""
    if config.heartbeat_file:
        return Path(config.heartbeat_file).expanduser().absolute()
    key = default_key_path(config.database)
    if key is not None:
        return key.with_suffix(".heartbeat").absolute()
    return Path.cwd() / f"ancath-bot-{config.network}.heartbeat"


def state_of(link: Link) -> tuple[str, str]:
    """The link's state and where, as the heartbeat says them."""
    where = f"{link.config.server}:{link.config.port}"
    if link.connected.is_set():
        return "connected", f"as {link.nick} to {where}"
    return "connecting", f"to {where}"


class Heartbeat:
    """Writes the heartbeat file, one write at a time and none after ``stopped`` (a
    write cut short by the stop may still be under way in its thread); a write that
    fails is logged (once until one succeeds again), never raised: the bot referees on
    without it."""

    def __init__(self, path: Path, *, every: float = EVERY,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.every = every
        self.clock = clock
        self._lock = threading.Lock()
        self._stopped = False
        self._failing = False
        self._held: int | None = None
        """The lock file's descriptor while :meth:`claim` holds it."""

    def claim(self) -> None:
        """Hold ``<path>.lock`` (``flock``, not waited for) until :meth:`release` or the
        process ends; ``ConfigError`` in one line when another bot holds it, or when it
        cannot be made. Its text is the holder's pid, for that line."""
        lock = self.path.with_name(f"{self.path.name}.lock")
        try:
            held = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as error:
            raise ConfigError(f"heartbeat_file: cannot keep {lock}: {error.strerror}: set "
                              "heartbeat_file: to a file in a directory the bot can "
                              "write") from None
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = os.read(held, 16).decode(errors="replace").strip() or "?"
            os.close(held)
            raise ConfigError(f"heartbeat_file: {self.path} is kept by another running bot "
                              f"(pid {pid}): give each bot its own heartbeat_file:, or stop "
                              "that one") from None
        except OSError as error:   # a file system without locks
            os.close(held)
            raise ConfigError(f"heartbeat_file: cannot lock {lock}: {error.strerror}: set "
                              "heartbeat_file: to a file on a local disk") from None
        os.ftruncate(held, 0)
        os.write(held, f"{os.getpid()}\n".encode())
        self._held = held

    def release(self) -> None:
        """Let go of the lock :meth:`claim` took (the file stays: removing it would race
        a bot that opened it to claim it)."""
        if self._held is not None:
            os.close(self._held)
            self._held = None

    def beat(self, state: str, where: str) -> None:
        with self._lock:
            if self._stopped:
                return
            self._stopped = state == "stopped"
            text = json.dumps({"at": round(self.clock(), 3), "state": state, "where": where,
                               "every": self.every})
            spare = self.path.with_name(f".{self.path.name}.{os.getpid()}")
            try:
                spare.write_text(text + "\n", encoding="utf-8")
                os.replace(spare, self.path)
            except OSError as error:
                if not self._failing:
                    log.warning("cannot write the heartbeat %s: %s (ancath-bot status will "
                                "say unhealthy)", self.path, error.strerror or error)
                self._failing = True
                return
            if self._failing:
                log.info("the heartbeat %s is written again", self.path)
            self._failing = False


async def keep(link: Link, heartbeat: Heartbeat, *, poll: float = 1.0) -> None:
    """Write ``link``'s state until cancelled, then ``stopped``; every write in a
    thread, off the event loop. The state is looked at every ``poll`` seconds."""
    last: tuple[str, str] | None = None
    due = 0.0
    try:
        while True:
            now = state_of(link)
            at = heartbeat.clock()
            if now != last or at >= due:   # the next beat is due from this one's time
                await asyncio.to_thread(heartbeat.beat, *now)
                last, due = now, at + heartbeat.every
            await asyncio.sleep(poll)
    finally:
        await asyncio.to_thread(heartbeat.beat, "stopped", "")


def status(path: Path, now: float | None = None) -> tuple[bool, str]:
    """Whether the heartbeat at ``path`` is fresh (at ``now``, by default the time) and
    says connected, and one line saying so."""
    now = time.time() if now is None else now
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        at, state, where, every = (float(data["at"]), str(data["state"]),
                                   str(data["where"]), float(data["every"]))
    except FileNotFoundError:
        return False, (f"unhealthy: no heartbeat at {path}: `ancath-bot run` writes it "
                       "while on IRC (same config, same working directory)")
    except OSError as error:
        return False, f"unhealthy: cannot read the heartbeat {path}: {error.strerror}"
    except (ValueError, TypeError, KeyError):
        return False, f"unhealthy: {path} is not a heartbeat (delete it; the bot rewrites it)"
    age = max(0.0, now - at)
    if age > STALE * every:
        return False, (f"unhealthy: the last heartbeat is {age:.0f} s old (stale after "
                       f"{STALE * every:.0f} s): the bot is stuck or not running")
    said = f"{state} {where}".strip()
    if state != "connected":
        return False, f"unhealthy: {said} (heartbeat {age:.0f} s ago)"
    return True, f"healthy: {said} (heartbeat {age:.0f} s ago)"
