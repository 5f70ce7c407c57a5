"""Load a benchmark script of ``bench/`` as a module, for its smoke test."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load_bench(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """``bench/<name>.py`` loaded as the module ``name``, undone after the test: it is in
    ``sys.modules`` while it loads (its dataclasses look their module up), and the
    folders it prepends to ``sys.path`` go again."""
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(sys, "path", list(sys.path))
    spec.loader.exec_module(module)
    return module
