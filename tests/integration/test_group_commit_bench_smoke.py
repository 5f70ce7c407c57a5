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
"""PostgreSQL only, at ``--fights``: two child processes on one database."""
FIGURES = ("lines_per_second", "fight_commands_per_second", "ms_p50", "ms_p99",
           "lines_per_commit", "x_bare_commits_in_lines", "x_bare_commits_in_fight_commands",
           "x_store_record_in_fight_commands")
REFERENCES = ("bare_commits_per_second", "bare_commits_per_second_before",
              "bare_commits_per_second_after", "store_record_per_second",
              "paced.offered_lines_per_second", "goal.offered_lines_per_second")


def test_tiny_run_prints_every_figure_per_backend_and_fights_count() -> None:
    pg = bool(os.environ.get("ANCATH_TEST_PG_URL"))
    done = subprocess.run(
        [sys.executable, str(BENCH), "--fights", "3", "--goal-fights", "2", "--lines", "40",
         "--ceiling-commands", "20", "--sync-ms", "0.5", *([] if pg else ["--no-pg"])],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    figures = dict(line.split() for line in done.stdout.splitlines())
    for backend in ["sqlite", "postgresql"] if pg else ["sqlite"]:
        assert figures[f"group_commit.{backend}.goal_2x_bare_in_lines_at_2_fights"] in (
            "met", "missed")
        for fights in (2, 3):
            two = TWO_PROCESSES if backend == "postgresql" and fights == 3 else ()
            names = [*REFERENCES, *(f"{p}.{f}" for p in (*PHASES, *two) for f in FIGURES),
                     *(f"{p}.x_one_process" for p in two)]
            at = f"group_commit.{backend}.{fights}_fights"
            for name in names:
                assert float(figures[f"{at}.{name}"]) > 0, name
            assert re.fullmatch(r"\d+\.\d\d", figures[f"{at}.saturated.ms_p99"])
            assert float(figures[f"{at}.alone.lines_per_commit"]) <= 1
    assert not [name for name in figures if "two_processes" in name
                and (name.startswith("group_commit.sqlite.") or "2_fights" in name)]
