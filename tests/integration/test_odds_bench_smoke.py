"""Keep the ``!odds`` stall benchmark working (no timing is asserted)."""

import pytest
from benches import load_bench
from ircserver import NgircdServer

FIGURES = [
    "odds_stall.reply_latency_ms_p50",
    "odds_stall.reply_latency_ms_p99",
    "odds_stall.reply_latency_ms_max",
    "odds_stall.round_trips",
    "odds_stall.quiet_latency_ms_p50",
    "odds_stall.quiet_latency_ms_p99",
    "odds_stall.answer_seconds_p50",
    "odds_stall.worked_out",
    "odds_stall.goal_p99_50ms",
]


def test_odds_stall_bench_runs(ngircd: NgircdServer, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    module = load_bench("odds_stall", monkeypatch)
    assert module.main(["--bursts", "1", "--warmup", "0", "--quiet", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == FIGURES
    figures = dict(line.split() for line in lines)
    assert figures.pop("odds_stall.goal_p99_50ms") in ("met", "missed")
    assert all(float(value) > 0 for value in figures.values())
