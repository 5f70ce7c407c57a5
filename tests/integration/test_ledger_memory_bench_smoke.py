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
    figures = {name: float(value) for name, value in
               (line.split() for line in done.stdout.splitlines())}
    for command in ("ledger_csv", "ledger_json", "audit_verify"):
        for figure in ("peak_rss_kb_small", "peak_rss_kb_large", "ratio"):
            assert figures[f"ledger_memory.{command}.{figure}"] > 0
    assert figures["ledger_memory.fill_rows_per_second"] > 0
