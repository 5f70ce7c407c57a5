"""Keep the IRC latency benchmark working (no timing is asserted)."""

import importlib.util
from pathlib import Path

import pytest
from ircserver import NgircdServer

BENCH = Path(__file__).resolve().parents[2] / "bench" / "irc_latency.py"


def test_irc_latency_bench_runs(ngircd: NgircdServer, capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("irc_latency", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--samples", "5"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert names == ["irc.reply_latency_ms_p50", "irc.reply_latency_ms_p99",
                     "irc.reconnect_seconds"]
