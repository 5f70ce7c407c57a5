"""Keep ``bench/bot_inprocess.py`` working: a tiny run, no timing assertions."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bot_inprocess.py"

NAMES = [
    "bot.commands",
    "bot.commands_per_second",
    "bot.wall_commands_per_second",
    "bot.ms_per_command_p50",
    "bot.ms_per_command_p99",
    "bot.ms_per_command_max",
    "bot.cpu_ms_per_command",
    "bot.engine_commands_per_line",
]
OPEN = [
    "memory_mb_1000_open_fights",
    "commands_per_open_fight",
    "memory_import_floor_mb",
    "restart_first_seconds_1000_open_fights",
    "restart_first_ledger_rows",
    "restart_first_ledger_seconds",
    "restart_seconds_1000_open_fights",
    "restart_cpu_seconds_1000_open_fights",
    "restart_process_seconds_1000_open_fights",
    "restart_memory_mb_1000_open_fights",
    "restart_fights_from_snapshots",
    "restart_commands_replayed",
    "restart_bare_read_seconds_1000_open_fights",
    "restart_replay_seconds_1000_open_fights",
    "restart_floor_seconds_1000_open_fights",
    "restart_floor_cpu_seconds_1000_open_fights",
    "restart_x_floor",
    "restart_full_replay_seconds_1000_open_fights",
    "restart_full_replay_cpu_seconds_1000_open_fights",
    "restart_full_replay_commands",
    "restart_full_replay_x_floor",
]
"""Phases 2 and 3, at ``--open-depth`` (``bot.``) and at ``--open-commands``
(``bot.realistic.``)."""


def test_tiny_run_prints_every_figure() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--fights", "4", "--open", "10", "--open-depth", "3",
         "--open-commands", "12"],
        capture_output=True, text=True, timeout=180,
    )
    assert done.returncode == 0, done.stderr
    figures = dict(line.split() for line in done.stdout.splitlines())
    assert list(figures) == [*NAMES, *(f"bot.{n}" for n in OPEN),
                             *(f"bot.realistic.{n}" for n in OPEN),
                             "bot.realistic.restart_goal_1_5s",
                             "bot.realistic.restart_full_replay_goal_1_5s"]
    assert figures.pop("bot.realistic.restart_goal_1_5s") in ("met", "missed")
    assert figures.pop("bot.realistic.restart_full_replay_goal_1_5s") in ("met", "missed")
    assert int(figures["bot.commands"]) >= 4 * 5  # 2 creates, challenge, accept, a move
    assert all(float(figures[name]) > 0 for name in NAMES)
    assert all(float(value) >= 0 for value in figures.values())  # 10 fights read in 0.00 s
    assert re.fullmatch(r"\d+\.\d\d", figures["bot.ms_per_command_p99"])
    assert float(figures["bot.commands_per_open_fight"]) >= 3
    assert float(figures["bot.realistic.commands_per_open_fight"]) >= 12
    for prefix in ("bot.", "bot.realistic."):   # every fight from its snapshot, else whole
        assert figures[f"{prefix}restart_fights_from_snapshots"] == "10.00"
        assert figures[f"{prefix}restart_commands_replayed"] == "0.00"
        assert float(figures[f"{prefix}restart_full_replay_commands"]) == 10 * float(
            figures[f"{prefix}commands_per_open_fight"])
