"""Keep ``bench/engine_fights.py`` working: a tiny run, no timing assertions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "engine_fights.py"


def _load() -> ModuleType:
    """Import the script by path (bench/ is not a package)."""
    name = "bench_engine_fights"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def test_engine_fights_runs_and_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    figures = bench.main(["--fights", "20", "--seed", "3"])
    printed = dict(line.split() for line in capsys.readouterr().out.splitlines())
    assert set(printed) == set(figures)
    assert {"engine.fights_per_second", "engine.commands_per_fight",
            "engine.applies_per_second"} <= set(figures)
    assert all(value > 0 for value in figures.values())


def test_engine_fights_is_repeatable_for_a_seed() -> None:
    bench = _load()
    first, second = bench.run(12, 7), bench.run(12, 7)
    assert (first.commands, first.turns, first.longest) == (
        second.commands, second.turns, second.longest)
