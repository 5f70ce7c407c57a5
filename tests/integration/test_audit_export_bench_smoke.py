"""Keep ``bench/audit_export_verify.py`` working: a tiny run, no timing assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "audit_export_verify.py"


def test_tiny_run_prints_every_figure_for_both_sizes(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--rows", "60", "--warriors", "3", "--dir", str(tmp_path)],
        capture_output=True, text=True, timeout=180,
    )
    assert done.returncode == 0, done.stderr
    figures = {name: float(value) for name, value in
               (line.split() for line in done.stdout.splitlines())}
    assert figures["audit_export.small.rows"] == 6 and figures["audit_export.large.rows"] == 60
    for size in ("small", "large"):
        for figure in ("verify_seconds", "bare_seconds", "ratio", "verify_rows_per_second",
                       "verify_peak_rss_kb", "export_seconds"):
            assert figures[f"audit_export.{size}.{figure}"] > 0
