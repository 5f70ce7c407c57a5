"""The restart phase of ``bench/bot_inprocess.py``: one start of the bot on a file of open
fights, with what its log says it did (ledger rows proved, fights taken up from their
snapshots, commands replayed), and its floor measured in the same child: the open
fights' rows read through ``sqlite3`` alone (JSON cells parsed) and the pure replay
(the engine alone on the commands already decoded)."""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rules.replay import replay

__all__ = ["bare_reads", "restart_phase", "without_snapshots"]

_SAID = {   # logger, message start -> the figures its arguments are
    ("bot.app", "the ledger checked"): ("ledger_rows", "ledger_seconds"),
    ("storage.fights", "%d open fights"): ("rebuilt", "from_snapshots", "commands_replayed"),
}


class _Said(logging.Handler):
    """Keeps the arguments of the log lines named in ``_SAID``."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.figures: dict[str, float] = {}

    def emit(self, record: logging.LogRecord) -> None:
        for (name, start), keys in _SAID.items():
            if record.name == name and str(record.msg).startswith(start):
                values = record.args if isinstance(record.args, tuple) else ()
                self.figures |= {key: float(value) for key, value in zip(
                    keys, values, strict=False) if isinstance(value, int | float)}


def bare_reads(database: str) -> float:
    """Seconds to read the open fights' rows (fights, sides, commands, events) through
    ``sqlite3`` alone, each JSON cell parsed: what any restart must read."""
    began = time.perf_counter()
    connection = sqlite3.connect(database)
    try:
        opened = "SELECT id FROM fights WHERE active"
        for (setup,) in connection.execute(f"SELECT setup FROM fights WHERE id IN ({opened})"):
            json.loads(setup)
        connection.execute(f"SELECT * FROM fight_sides WHERE fight_id IN ({opened})").fetchall()
        for table, cell in (("fight_commands", "command"), ("fight_events", "event")):
            for (data,) in connection.execute(
                    f"SELECT {cell} FROM {table} WHERE fight_id IN ({opened}) "
                    "ORDER BY fight_id, seq"):
                json.loads(data)
    finally:
        connection.close()
    return time.perf_counter() - began


def restart_phase(build: Callable[[str], Any], database: str, count: int,
                  started: float, peak_rss_mb: Callable[[], float]) -> dict[str, float]:
    """``build`` (the bot's start) on ``database`` timed, what it said, and its floor."""
    said = _Said()
    for name, _ in _SAID:
        logging.getLogger(name).setLevel(logging.INFO)
        logging.getLogger(name).addHandler(said)
    began, cpu = time.perf_counter(), time.process_time()
    referee = build(database)
    ready, cpu = time.perf_counter(), time.process_time() - cpu
    fights = [t.fight for t in referee.tables.values() if t.fight is not None]
    if len(fights) != count:
        raise SystemExit(f"{len(fights)} fights resumed, not {count}")
    floor_cpu = time.process_time()
    reads = bare_reads(database.removeprefix("sqlite:///"))
    replaying = time.perf_counter()
    for fight in fights:   # the pure replay: the engine alone, commands already decoded
        replay(fight.system, fight.kind, fight.sheets, fight.commands)
    replayed = time.perf_counter() - replaying
    return {
        "restart_seconds": ready - began,
        "restart_cpu_seconds": cpu,
        "restart_floor_cpu_seconds": time.process_time() - floor_cpu,
        "restart_process_seconds": ready - started,
        "restart_memory_mb": peak_rss_mb(),
        "restart_bare_read_seconds": reads,
        "restart_replay_seconds": replayed,
        "restart_floor_seconds": reads + replayed,
        **{f"restart_{key}": value for key, value in said.figures.items()},
    }


def without_snapshots(database: Path, copy: Path) -> None:
    """``database`` copied to ``copy`` (its key beside it) with no fight snapshot: the
    same records, every fight replayed whole at the next start."""
    shutil.copy(f"{database}.key", f"{copy}.key")
    source, connection = sqlite3.connect(database), sqlite3.connect(copy)
    try:
        source.backup(connection)   # through its write-ahead log, as a reader sees it
        connection.execute("DELETE FROM fight_snapshots")
        connection.commit()
    finally:
        source.close()
        connection.close()
