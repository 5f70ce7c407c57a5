"""Keep ``bench/storage_commits.py`` working: a tiny run, no timing assertions."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "storage_commits.py"


def test_tiny_run_prints_a_rate_per_backend(tmp_path: Path) -> None:
    pg = bool(os.environ.get("ANCATH_TEST_PG_URL"))
    done = subprocess.run(
        [sys.executable, str(BENCH), "--commands", "25", "--sqlite",
         str(tmp_path / "bench.sqlite3"), *([] if pg else ["--no-pg"])],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    figures = dict(line.split() for line in done.stdout.splitlines())
    backends = ["sqlite", "postgresql"] if pg else ["sqlite"]
    for backend in backends:
        assert float(figures[f"storage.{backend}.commands_per_second"]) > 0
        for name in ("bare_commits_per_second", "bare_commits_per_second_before",
                     "bare_commits_per_second_after", "x_bare_commits"):
            assert float(figures[f"storage.{backend}.{name}"]) > 0, name
        assert re.fullmatch(r"\d+\.\d\d", figures[f"storage.{backend}.ms_per_command_p99"])
