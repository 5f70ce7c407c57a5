"""Keep ``bench/ledger_memory.py`` working: a tiny run, no memory or timing assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "ledger_memory.py"


def test_tiny_run_prints_peak_memory_per_command(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--rows", "40", "--warriors", "3", "--dir", str(tmp_path)],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    said = dict(line.split() for line in done.stdout.splitlines())
    for command in ("ledger_csv", "ledger_json", "audit_verify"):
        at = f"ledger_memory.{command}"
        for figure in ("peak_rss_kb_small", "peak_rss_kb_large", "ratio", "import_floor_kb",
                       "seconds_small", "seconds_large", "bare_seconds_small",
                       "bare_seconds_large", "x_bare_loop"):
            assert float(said[f"{at}.{figure}"]) > 0, figure
        assert said[f"{at}.goal_2x_bare_loop"] in ("met", "missed")
        # the child's own peak, under its import floor's by no more than a little
        assert float(said[f"{at}.peak_rss_kb_large"]) > 0.9 * float(said[f"{at}.import_floor_kb"])
    assert float(said["ledger_memory.fill_rows_per_second"]) > 0
