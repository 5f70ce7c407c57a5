"""Rooms of the house (issue 33): no import circle among a room's modules (a lazy or
``TYPE_CHECKING`` import counts), no module over 400 lines, no performance figure in a
docstring (figures age there: they live in ``bench/README.md``), and no storage module
named as one of the rooms above it (``warriors.py``, ``replay.py``, ``engine.py`` were
three rooms' each)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROOMS = {
    "the odds chain": ["bot/odds/chain.py", "bot/odds/linear.py", "bot/odds/regular.py",
                       "bot/odds/nodes.py", "bot/odds/hits.py"],
    "the leadership pages": ["bot/web/*.py"],
    "the command line": ["bot/commandline/*.py", "bot/cli.py"],
    "storage": ["storage/**/*.py"],
    "the rules": ["rules/**/*.py"],
    "the bot": ["bot/**/*.py"],
}
FIGURE = re.compile(r"\b\d[\d,.]*\s?(?:ms|µs|us|s|x|%)(?!\w)"
                    r"|times (?:faster|slower|fewer|more|longer)"
                    r"|rows/s|per second|\b(?:a|one) (?:third|quarter|fifth|tenth) of\b"
                    r"|\bgrows about \d|\b20\d\d-\d\d-\d\d\b.*\b(?:run|took|measured)")


SETTINGS = {("moderators.py", "45 s"), ("config.py", "per second"), ("budget.py", "per second"),
            ("pacing.py", "2 s"), ("supervisor.py", "2 s"), ("joins.py", "10 s"),
            ("budget.py", "a third of"), ("sheet.py", "2 x"), ("tables.py", "30%")}
"""What the figure pattern also finds and is not a measurement: a wait's wording, a rate
setting, a timeout, a rule's formula."""


def _files(room: str) -> list[Path]:
    return sorted(p for pattern in ROOMS[room] for p in ROOT.glob(pattern) if p.is_file())


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


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_no_import_runs_in_a_circle(room: str) -> None:
    modules = {_module(p): p for p in _files(room)}
    graph = {name: _imports(path) & modules.keys() - {name} for name, path in modules.items()}
    assert _circle(graph) is None


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_every_module_is_at_most_400_lines(room: str) -> None:
    long = {str(p.relative_to(ROOT)): n for p in _files(room)
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert long == {}


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_no_docstring_holds_a_performance_figure(room: str) -> None:
    """A module's, class's or function's docstring, or an attribute's (the string
    after it)."""
    figures = [f"{path.name}: {m.group()}"
               for path in _files(room)
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
               and isinstance(node.value.value, str)
               for m in FIGURE.finditer(node.value.value)
               if (path.name, m.group()) not in SETTINGS]
    assert figures == []


def test_no_storage_module_shares_a_confusing_name() -> None:
    names = {p.name for p in _files("storage")}
    assert names & {"warriors.py", "replay.py", "engine.py"} == set()
