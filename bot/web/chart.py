"""A warrior's BP over time as a step chart drawn on the server (inline SVG, no
script): one step per ledger row that changed the warrior's BP, from 0 at creation,
each step a mark whose tooltip names the row; a moderator's change (``!mod bp``, an
undo's reversal, a ruling's award) is a mark of its own shape and colour. The page
shows the same rows as a table, the chart's text alternative.

What it draws is bounded whatever the rows say (a row edited by SQL may say anything):
at most ``TICKS`` + 2 grid lines, at a round step; a total beyond ``LIMIT`` is drawn at
the edge (the table says what it is); a BP that is no number moves nothing. Beyond
``MARKS`` steps only some are marked (:meth:`Chart.drawn`), and where steps are closer
than a unit (more than the plot is wide) the line merges each unit's into one stroke
over what they reach: the page stays light whatever the warrior's history."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["LIMIT", "MARKS", "TICKS", "Chart", "Mark", "bp_chart"]

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 12, 28
"""The plot's margins, for the axis labels."""
TICKS = 5
"""Grid lines the y axis aims at (at most two more: the step is a round one)."""
LIMIT = 10**7
"""The highest total (and lowest, below 0) the chart draws, in tenths: a million BP."""
MARKS = 200
"""The most steps marked each; beyond, only the page's table's and the moderators'."""


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

    def drawn(self, shown: Sequence[Mark]) -> tuple[Mark, ...]:
        """The marks drawn, in order: every step's, up to ``MARKS`` steps; beyond, the
        steps ``shown`` (the page's table) and the moderators' (evenly picked, when
        more than ``MARKS`` in all)."""
        if len(self.marks) <= MARKS:
            return self.marks
        picked = {id(mark) for mark in shown}
        moderated = [mark for mark in self.marks if mark.moderated and id(mark) not in picked]
        room = max(MARKS - len(picked), 0)
        if len(moderated) > room:
            moderated = [moderated[i * len(moderated) // room] for i in range(room)]
        picked.update(id(mark) for mark in moderated)
        return tuple(mark for mark in self.marks if id(mark) in picked)


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


def _stroke(x: float, ys: list[float]) -> str:
    """The line to column ``x`` and through the heights of its steps: ``H x V y`` for
    one step; for several, to their lowest, highest and last."""
    heights = [ys[0]] if len(ys) == 1 else [min(ys), max(ys), ys[-1]]
    kept = [h for place, h in enumerate(heights) if not place or h != heights[place - 1]]
    return f"H {x} " + " ".join(f"V {h}" for h in kept)


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

    merged = x_step < 1   # a unit's steps drawn as one stroke: H x V low V high V last
    path = [f"M {LEFT} {y(0)}"]
    marks: list[Mark] = []
    column: list[float] = []
    for place, ((row, total), at) in enumerate(zip(steps, drawn, strict=True), 1):
        x = (round(LEFT + place * x_step) if merged else round(LEFT + place * x_step, 1)) \
            if len(steps) > 1 else WIDTH - RIGHT
        if marks and marks[-1].x == x:
            column.append(y(at))
        else:
            if marks:
                path.append(_stroke(marks[-1].x, column))
            column = [y(at)]
        marks.append(Mark(x, y(at), row, total, row["moderator"] is not None))
    if marks:
        path.append(_stroke(marks[-1].x, column))
    path.append(f"H {WIDTH - RIGHT}")
    ticks = tuple((y(t), f"{t / 10:.0f}") for t in range(low, top + 1, step))
    return Chart(" ".join(path), tuple(marks), ticks,
                 steps[0][0]["at"] if steps else created, steps[-1][0]["at"] if steps else "")
