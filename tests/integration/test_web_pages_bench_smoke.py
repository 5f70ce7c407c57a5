"""Keep ``bench/web_pages.py`` working: a tiny run, no timing assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "web_pages.py"


def test_tiny_run_prints_each_page_the_new_head_the_walk_the_streams_and_the_weights(
        tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--rows", "400", "--warriors", "3", "--requests", "2",
         "--fights", "2", "--watchers", "4", "--live-seconds", "0.3", "--dir", str(tmp_path)],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    figures = dict(line.split() for line in done.stdout.splitlines())
    for page in ("newest", "oldest", "newer", "jump", "warrior", "warrior_page", "standings"):
        assert 0 < float(figures[f"web_pages.{page}.ms_p50"]) <= float(
            figures[f"web_pages.{page}.ms_p90"])
        assert int(figures[f"web_pages.{page}.bytes"]) > 0
    for weighed in ("ledger", "fight", "style_css", "replay_js", "live_js"):
        assert int(figures[f"web_pages.{weighed}.bytes"]) > 0
    assert figures["web_pages.standings_new_head.fresh"] in {"0", "1", "2", "3"}
    assert float(figures["web_pages.standings_new_head.drawn_ms"]) > 0
    assert float(figures["web_pages.ranking_walk.cpu_seconds_max"]) >= 0
    assert "web_pages.live.cpu_per_second_watched" in figures
    assert figures["web_pages.goal_pages_under_1s"] in {"met", "missed"}
