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
    "bot.memory_mb_1000_open_fights",
    "bot.commands_per_open_fight",
    "bot.restart_seconds_1000_open_fights",
    "bot.restart_process_seconds_1000_open_fights",
    "bot.restart_memory_mb_1000_open_fights",
]


def test_tiny_run_prints_every_figure() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--fights", "4", "--open", "10", "--open-depth", "3"],
        capture_output=True, text=True, timeout=180,
    )
    assert done.returncode == 0, done.stderr
    figures = dict(line.split() for line in done.stdout.splitlines())
    assert list(figures) == NAMES
    assert int(figures["bot.commands"]) >= 4 * 5  # 2 creates, challenge, accept, a move
    assert all(float(value) > 0 for value in figures.values())
    assert re.fullmatch(r"\d+\.\d\d", figures["bot.ms_per_command_p99"])
    assert float(figures["bot.commands_per_open_fight"]) >= 3
