"""Keep the exact-odds benchmark working (no timing is asserted)."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "odds_exact.py"


def test_odds_exact_bench_runs(capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("odds_exact", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    monkeypatch.setattr(sys, "path", list(sys.path))  # it prepends its folders
    spec.loader.exec_module(module)
    assert module.main(["--positions", "2", "--kind", "duel", "--agree", "40",
                        "--jobs", "1"]) == 0
    figures = dict(line.split() for line in capsys.readouterr().out.splitlines())
    assert figures["odds_exact.margin_points_max"] == "0"
    assert figures["odds_exact.agree_within_99"].endswith("/2")
    assert float(figures["odds_exact.in_fight_warm_s_max"]) >= 0
