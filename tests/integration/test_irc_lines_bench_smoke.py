"""Keep the lines-and-capacity benchmark working (no figure is asserted but its sign)."""

import pytest
from benches import load_bench
from ircserver import NgircdServer


def test_irc_lines_bench_runs(ngircd: NgircdServer, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    module = load_bench("irc_lines", monkeypatch)
    assert module.main(["--fights", "1", "--capacity", "2", "--seconds", "2"]) == 0
    figures = dict(line.split() for line in capsys.readouterr().out.splitlines())
    assert set(figures) == {
        "irc.lines_per_input_auto", "irc.lines_per_turn_auto", "irc.lines_per_input_manual",
        "irc.capacity.2.wait_p50_s", "irc.capacity.2.wait_p90_s", "irc.capacity.2.send_busy",
        "irc.capacity_fights"}
    assert float(figures["irc.lines_per_turn_auto"]) >= 1  # at least the turn's own line
