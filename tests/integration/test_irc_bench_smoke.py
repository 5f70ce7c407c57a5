"""Keep the IRC benchmark and its echo baseline working (no timing is asserted)."""

import pytest
from benches import load_bench
from ircserver import NgircdServer

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
    module = load_bench("irc_latency", monkeypatch)
    assert module.main(["--samples", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == FIGURES
    figures = {name: float(value) for name, value in (line.split() for line in lines)}
    assert all(value > 0 for value in figures.values())
