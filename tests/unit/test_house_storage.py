"""Storage as a room of the house (issue 33): no import circle among its modules (a
lazy import inside a function counts), no module over 400 lines, no performance
figure in a docstring (figures age there: they live in ``bench/README.md``), and no
module named as one of the rooms above it (``warriors.py``, ``replay.py``,
``engine.py`` were three rooms' each)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIGURE = re.compile(r"\b\d[\d,.]*\s?(?:ms|µs|us|s|x|%)(?!\w)|\b\d+ times\b|rows/s"
                    r"|per second|\b(?:a|one) (?:third|quarter|fifth|tenth) of\b")


def _files() -> list[Path]:
    return sorted(p for p in (ROOT / "storage").glob("*.py"))


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in it (a function's body too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of ``graph``, or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_no_storage_import_runs_in_a_circle() -> None:
    modules = {_module(p): p for p in _files()}
    graph = {name: _imports(path) & modules.keys() - {name} for name, path in modules.items()}
    assert _circle(graph) is None


def test_every_storage_module_is_at_most_400_lines() -> None:
    long = {p.name: n for p in _files()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert long == {}


def test_no_storage_docstring_holds_a_performance_figure() -> None:
    """A module's, class's or function's docstring, or an attribute's (the string
    after it)."""
    figures = [f"{path.name}: {m.group()}"
               for path in _files()
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
               and isinstance(node.value.value, str)
               for m in FIGURE.finditer(node.value.value)]
    assert figures == []


def test_no_storage_module_shares_a_confusing_name() -> None:
    assert {p.name for p in _files()} & {"warriors.py", "replay.py", "engine.py"} == set()
