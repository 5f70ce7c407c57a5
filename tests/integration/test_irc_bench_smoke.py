"""Keep the IRC benchmark and its echo baseline working (no timing is asserted)."""

import importlib.util
import sys
from pathlib import Path

import pytest
from ircserver import NgircdServer

BENCH = Path(__file__).resolve().parents[2] / "bench" / "irc_latency.py"
FIGURES = [
    "irc.reply_latency_ms_p50",
    "irc.reply_latency_ms_p99",
    "irc.echo_latency_ms_p50",
    "irc.echo_latency_ms_p99",
    "irc.overhead_ratio_p50",
    "irc.reconnect_seconds",
]


def test_irc_latency_bench_runs(ngircd: NgircdServer, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("irc_latency", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclass looks itself up
    monkeypatch.setattr(sys, "path", list(sys.path))  # it prepends the bench folder
    spec.loader.exec_module(module)
    assert module.main(["--samples", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == FIGURES
    figures = {name: float(value) for name, value in (line.split() for line in lines)}
    assert all(value > 0 for value in figures.values())
