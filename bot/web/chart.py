"""A warrior's BP over time as a step chart drawn on the server (inline SVG, no
script): one step per ledger row that changed the warrior's BP, from 0 at creation,
each step a mark whose tooltip names the row; a moderator's change (``!mod bp``, an
undo's reversal, a ruling's award) is a mark of its own shape and colour. The page
shows the same rows as a table, the chart's text alternative."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["Chart", "Mark", "bp_chart"]

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 12, 28
"""The plot's margins, for the axis labels."""


@dataclass(frozen=True, slots=True)
class Mark:
    """One ledger row's step: where it is drawn and what it was."""

    x: float
    y: float
    row: dict[str, Any]
    """The ledger row as the pages show it (``redact.ledger_fields``)."""
    total: int
    """The warrior's BP after it, in tenths."""
    moderated: bool


@dataclass(frozen=True, slots=True)
class Chart:
    """The chart's geometry, in SVG user units."""

    path: str
    """The step line: ``M`` to the start, then ``H``/``V`` per step."""
    marks: tuple[Mark, ...]
    ticks: tuple[tuple[float, str], ...]
    """The y axis: height and BP label of each grid line."""
    first: str
    """When the first step was (or the warrior was created)."""
    last: str
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM

    @property
    def moderated(self) -> int:
        """How many steps a moderator made."""
        return sum(1 for mark in self.marks if mark.moderated)


def _steps(rows: Iterable[dict[str, Any]]) -> list[tuple[dict[str, Any], int]]:
    """The rows that changed BP, each with the total after it (tenths)."""
    total, out = 0, []
    for row in rows:
        tenths = round(row["bp"] * 10)
        if tenths:
            total += tenths
            out.append((row, total))
    return out


def bp_chart(rows: Iterable[dict[str, Any]], created: str = "") -> Chart:
    """The chart of a warrior's ledger ``rows`` (oldest first, as shown)."""
    steps = _steps(rows)
    top = max([100, *(total for _, total in steps)])
    top = -(-top // 50) * 50                       # a whole 5 BP above the highest
    low = min([0, *(total for _, total in steps)])
    span = (top - low) or 1
    x_step = (WIDTH - RIGHT - LEFT) / max(len(steps), 1)

    def y(tenths: int) -> float:
        return round(TOP + (top - tenths) * (HEIGHT - BOTTOM - TOP) / span, 1)

    path = [f"M {LEFT} {y(0)}"]
    marks = []
    for place, (row, total) in enumerate(steps, 1):
        x = round(LEFT + place * x_step, 1) if len(steps) > 1 else WIDTH - RIGHT
        path.append(f"H {x} V {y(total)}")
        marks.append(Mark(x, y(total), row, total, row["moderator"] is not None))
    path.append(f"H {WIDTH - RIGHT}")
    ticks = tuple((y(t), f"{t / 10:.0f}") for t in range(low - low % 50, top + 1, 50)
                  if t >= low)
    return Chart(" ".join(path), tuple(marks), ticks,
                 steps[0][0]["at"] if steps else created, steps[-1][0]["at"] if steps else "")
