"""A warrior's BP over time as a step chart drawn on the server (inline SVG, no
script): one step per ledger row that changed the warrior's BP, from 0 at creation,
each step a mark whose tooltip names the row; a moderator's change (``!mod bp``, an
undo's reversal, a ruling's award) is a mark of its own shape and colour. The page
shows the same rows as a table, the chart's text alternative.

What it draws is bounded whatever the rows say (a row edited by SQL may say anything):
at most ``TICKS`` + 2 grid lines, at a round step; a total beyond ``LIMIT`` is drawn at
the edge (the table says what it is); a BP that is no number moves nothing."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["LIMIT", "TICKS", "Chart", "Mark", "bp_chart"]

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 12, 28
"""The plot's margins, for the axis labels."""
TICKS = 5
"""Grid lines the y axis aims at (at most two more: the step is a round one)."""
LIMIT = 10**7
"""The highest total (and lowest, below 0) the chart draws, in tenths: a million BP."""


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


def _tenths(bp: Any) -> int:
    """A row's BP in tenths; 0 for one that is no finite number."""
    try:
        value = float(bp) * 10
    except (TypeError, ValueError, OverflowError):
        return 0
    return round(value) if math.isfinite(value) else 0


def _steps(rows: Iterable[dict[str, Any]]) -> list[tuple[dict[str, Any], int]]:
    """The rows that changed BP, each with the total after it (tenths)."""
    total, out = 0, []
    for row in rows:
        tenths = _tenths(row["bp"])
        if tenths:
            total += tenths
            out.append((row, total))
    return out


def _step(span: int) -> int:
    """A round step between grid lines, 5 BP at least, so ``span`` takes about
    ``TICKS`` of them: 1, 2 or 5 times a power of ten."""
    rough = max(50, -(-span // TICKS))
    power: int = 10 ** (len(str(rough)) - 1)
    return next(power * m for m in (1, 2, 5, 10) if power * m >= rough)


def bp_chart(rows: Iterable[dict[str, Any]], created: str = "") -> Chart:
    """The chart of a warrior's ledger ``rows`` (oldest first, as shown)."""
    steps = _steps(rows)
    drawn = [max(-LIMIT, min(LIMIT, total)) for _, total in steps]
    high, low = max([100, *drawn]), min([0, *drawn])
    step = _step(high - low)
    top, low = -(-high // step) * step, low // step * step   # whole steps around
    span = top - low
    x_step = (WIDTH - RIGHT - LEFT) / max(len(steps), 1)

    def y(tenths: int) -> float:
        return round(TOP + (top - tenths) * (HEIGHT - BOTTOM - TOP) / span, 1)

    path = [f"M {LEFT} {y(0)}"]
    marks = []
    for place, ((row, total), at) in enumerate(zip(steps, drawn, strict=True), 1):
        x = round(LEFT + place * x_step, 1) if len(steps) > 1 else WIDTH - RIGHT
        path.append(f"H {x} V {y(at)}")
        marks.append(Mark(x, y(at), row, total, row["moderator"] is not None))
    path.append(f"H {WIDTH - RIGHT}")
    ticks = tuple((y(t), f"{t / 10:.0f}") for t in range(low, top + 1, step))
    return Chart(" ".join(path), tuple(marks), ticks,
                 steps[0][0]["at"] if steps else created, steps[-1][0]["at"] if steps else "")
