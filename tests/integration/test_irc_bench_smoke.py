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
    "irc.answered_on_loop",
    "irc.reply_cpu_ms_p50",
    "irc.echo_cpu_ms_p50",
    "irc.cpu_ratio_p50",
    "irc.goal_ratio_1.5",
    "irc.sopel_roll_ratio",
    "irc.reconnect_seconds",
]


def test_irc_latency_bench_runs(ngircd: NgircdServer, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    module = load_bench("irc_latency", monkeypatch)
    assert module.main(["--samples", "5"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in out if line.startswith("#")] == [
        "echo:", "referee:"]   # what each bot does, said first
    lines = [line for line in out if not line.startswith("#")]
    assert [line.split()[0] for line in lines] == FIGURES
    figures = dict(line.split(" ", 1) for line in lines)
    assert figures.pop("irc.goal_ratio_1.5") in ("met", "missed")
    assert figures.pop("irc.sopel_roll_ratio").startswith("not-measured (")
    assert 0 <= float(figures.pop("irc.answered_on_loop")) <= 1
    assert all(float(value) > 0 for value in figures.values())
