"""Keep ``bench/group_commit.py`` working: a tiny run, no timing assertions."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "group_commit.py"
PHASES = ("saturated", "alone", "paced", "paced_alone", "goal")
TWO_PROCESSES = ("two_processes", "paced_two_processes")
"""PostgreSQL only: two child processes on one database."""
FIGURES = ("commands_per_second", "ms_p50", "ms_p99", "commands_per_commit", "x_ceiling",
           "fight_commands_per_second", "x_ceiling_fight_commands")


def test_tiny_run_prints_every_figure_per_backend() -> None:
    pg = bool(os.environ.get("ANCATH_TEST_PG_URL"))
    done = subprocess.run(
        [sys.executable, str(BENCH), "--fights", "3", "--lines", "40", "--ceiling-commands", "20",
         "--sync-ms", "0.5",
         *([] if pg else ["--no-pg"])],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    figures = dict(line.split() for line in done.stdout.splitlines())
    for backend in ["sqlite", "postgresql"] if pg else ["sqlite"]:
        two = TWO_PROCESSES if backend == "postgresql" else ()
        names = ["ceiling", "bare_commits_per_second",
                 *(f"{p}.{f}" for p in (*PHASES, *two) for f in FIGURES),
                 *(f"{p}.x_one_process" for p in two), "paced.offered_per_second",
                 "goal.offered_per_second"]
        for name in names:
            assert float(figures[f"group_commit.{backend}.{name}"]) > 0, name
        assert re.fullmatch(r"\d+\.\d\d", figures[f"group_commit.{backend}.saturated.ms_p99"])
        assert float(figures[f"group_commit.{backend}.alone.commands_per_commit"]) <= 1
    assert not [name for name in figures if name.startswith("group_commit.sqlite.")
                and "two_processes" in name]
