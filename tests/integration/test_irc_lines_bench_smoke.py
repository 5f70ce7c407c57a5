"""Keep the lines-and-capacity benchmark working (no figure is asserted but its sign)."""

import importlib.util
import sys
from pathlib import Path

import pytest
from ircserver import NgircdServer

BENCH = Path(__file__).resolve().parents[2] / "bench" / "irc_lines.py"


def test_irc_lines_bench_runs(ngircd: NgircdServer, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("irc_lines", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclass looks itself up
    monkeypatch.setattr(sys, "path", list(sys.path))  # it prepends the bench folder
    spec.loader.exec_module(module)
    assert module.main(["--fights", "1", "--capacity", "2", "--seconds", "2"]) == 0
    figures = dict(line.split() for line in capsys.readouterr().out.splitlines())
    assert set(figures) == {
        "irc.lines_per_input_auto", "irc.lines_per_turn_auto", "irc.lines_per_input_manual",
        "irc.capacity.2.wait_p50_s", "irc.capacity.2.wait_p90_s", "irc.capacity.2.send_busy",
        "irc.capacity_fights"}
    assert float(figures["irc.lines_per_turn_auto"]) >= 1  # at least the turn's own line
