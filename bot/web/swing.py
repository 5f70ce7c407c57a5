"""How a fight swung: the challenger's win chance after each step of its replay
(:mod:`bot.web.chances`), drawn on the server as an SVG line (no script), one mark per
step whose tooltip gives both sides' chances; the page lists the same figures in a
table, the chart's text alternative. A percentage is written as ``!odds`` writes it."""

from __future__ import annotations

from dataclasses import dataclass

from bot.web.chances import Figures

__all__ = ["Point", "Swing", "pct", "swing_chart"]

WIDTH, HEIGHT = 640, 200
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 12, 24
"""The plot's margins, for the axis labels."""


def pct(chance: float) -> str:
    """A chance as ``!odds`` says it: a percentage to one decimal place."""
    return f"{100 * chance:.1f}%"


@dataclass(frozen=True, slots=True)
class Point:
    """One step's mark: where it is drawn and its figures."""

    step: int
    x: float
    y: float
    chances: tuple[str, str]
    """Each side's chance, as ``!odds`` says it."""


@dataclass(frozen=True, slots=True)
class Swing:
    """The chart's geometry, in SVG user units."""

    path: str
    points: tuple[Point, ...]
    ticks: tuple[tuple[float, str], ...]
    """The y axis: height and label of each grid line (none to certain, by quarters)."""
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    bottom: int = HEIGHT - BOTTOM


def _y(chance: float) -> float:
    clamped = min(1.0, max(0.0, chance))   # a sum of parts may stray by a rounding
    return round(TOP + (1 - clamped) * (HEIGHT - BOTTOM - TOP), 1)


def swing_chart(figures: Figures) -> Swing:
    """The chart of ``figures`` (each step's chances, challenger first)."""
    gap = (WIDTH - RIGHT - LEFT) / max(len(figures) - 1, 1)
    points = tuple(Point(step, round(LEFT + step * gap, 1), _y(first),
                         (pct(first), pct(second)))
                   for step, (first, second) in enumerate(figures))
    path = " ".join(f"{'M' if p.step == 0 else 'L'} {p.x} {p.y}" for p in points)
    ticks = tuple((_y(share / 4), f"{25 * share}%") for share in range(5))
    return Swing(path, points, ticks)
