"""Keep ``bench/web_ledger.py`` working: a tiny run, no timing or memory assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "web_ledger.py"


def test_tiny_run_prints_page_times_and_each_downloads_time_and_memory(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--rows", "40", "--warriors", "3", "--requests", "2",
         "--downloads", "1", "--dir", str(tmp_path)],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    figures = {name: float(value) for name, value in
               (line.split() for line in done.stdout.splitlines())}
    for page in ("newest", "oldest", "warrior", "reason"):
        assert 0 < figures[f"web_ledger.page_{page}.ms_p50"] <= figures[
            f"web_ledger.page_{page}.ms_p90"]
    for download in ("csv", "json"):
        for figure in ("seconds_small", "seconds_large", "peak_rss_kb_small",
                       "peak_rss_kb_large", "ratio"):
            assert figures[f"web_ledger.{download}.{figure}"] > 0
        assert f"web_ledger.{download}.growth_kb_large" in figures
    assert figures["web_ledger.fill_rows_per_second"] > 0
