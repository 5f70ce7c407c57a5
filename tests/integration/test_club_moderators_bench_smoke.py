"""Keep ``bench/club_moderators.py`` working: a tiny run, no timing assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "club_moderators.py"


def test_tiny_run_prints_every_figure() -> None:
    done = subprocess.run([sys.executable, str(BENCH), "--rows", "200", "--reads", "2"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    figures = dict(line.split() for line in done.stdout.splitlines())
    assert sorted(figures) == ["moderators.ms_p50_indexed", "moderators.ms_p50_unindexed",
                               "moderators.x_faster"]
    assert all(float(value) > 0 for value in figures.values())
