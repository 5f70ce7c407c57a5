"""Keep the ``!odds`` stall benchmark working (no timing is asserted)."""

import importlib.util
import sys
from pathlib import Path

import pytest
from ircserver import NgircdServer

BENCH = Path(__file__).resolve().parents[2] / "bench" / "odds_stall.py"
FIGURES = [
    "odds_stall.reply_latency_ms_p50",
    "odds_stall.reply_latency_ms_p99",
    "odds_stall.reply_latency_ms_max",
    "odds_stall.round_trips",
    "odds_stall.quiet_latency_ms_p50",
    "odds_stall.quiet_latency_ms_p99",
    "odds_stall.answer_seconds_p50",
]


def test_odds_stall_bench_runs(ngircd: NgircdServer, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("odds_stall", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    monkeypatch.setattr(sys, "path", list(sys.path))  # it prepends its folders
    spec.loader.exec_module(module)
    assert module.main(["--bursts", "1", "--warmup", "0", "--quiet", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == FIGURES
    figures = {name: float(value) for name, value in (line.split() for line in lines)}
    assert all(value > 0 for value in figures.values())
