"""Keep the InspIRCd-defaults benchmark working: a few seconds, no timing asserted."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "irc_inspircd_defaults.py"
FIGURES = [
    "inspircd_defaults.disconnects",
    "inspircd_defaults.commands",
    "inspircd_defaults.lines_queued",
    "inspircd_defaults.lines_delivered",
    "inspircd_defaults.last_line_late_seconds",
]


def test_inspircd_defaults_bench_runs(inspircd_binary: str, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANCATH_TEST_INSPIRCD", inspircd_binary)  # the one the fixture found
    spec = importlib.util.spec_from_file_location("irc_inspircd_defaults", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclass looks itself up
    monkeypatch.setattr(sys, "path", list(sys.path))  # it prepends the bench's folders
    spec.loader.exec_module(module)
    assert module.main(["--seconds", "3", "--channels", "2", "--interval", "1.5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == FIGURES
    figures = {name: float(value) for name, value in (line.split() for line in lines)}
    assert figures["inspircd_defaults.disconnects"] == 0
    assert figures["inspircd_defaults.commands"] >= 4
    assert figures["inspircd_defaults.lines_queued"] == figures["inspircd_defaults.lines_delivered"]
    assert figures["inspircd_defaults.lines_delivered"] >= figures["inspircd_defaults.commands"]
    assert figures["inspircd_defaults.last_line_late_seconds"] > 0
