"""The ranking history on the standings page: the club's first ``TOP`` warriors'
places over time (1 at the top), ranked as ``!top`` and the standings rank them (BP,
ties by wins, then by name), drawn on the server as SVG (no script), with a table.

It is the ledger's rows only (``Store.ranking_rows``): a warrior enters at its
creation row, its BP is the sum of its rows', its wins the fights whose newest
``fight-closed`` row names it the winner (the row's ``sides`` and ``winner``; a
``fight-reopened`` row takes the win back); a row that does not hold counts for
nothing. A place is taken after each row that changes a BP (the chart's steps). The
rows, read once, are kept compact, summed for who is first now, and walked once more
for those warriors' places, the ranking kept as a sorted list: a row that moves a
warrior from one index to another changes the places of those between only, so only
they are looked at.

What it draws is bounded by the drawing's resolution: a place below ``DEEPEST`` is
drawn at the bottom edge, and the steps within ``X_UNITS`` of x share one point per
line, drawn as a vertical stroke over the places they reached (ending at the last)."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from storage.models import Entry

__all__ = ["DEEPEST", "TOP", "X_UNITS", "Line", "RankChart", "rank_chart", "ranking"]

TOP = 10
"""Warriors drawn: the first ten now."""
DEEPEST = 20
"""The lowest place drawn; one below it is drawn at the bottom edge."""
X_UNITS = 3
"""The chart's resolution: one point per line per this many SVG units of x."""
WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP_EDGE, BOTTOM = 36, 12, 12, 28

_NAMING = (Entry.CREATED.value, Entry.ATTESTED.value, Entry.RENAMED.value)
_CLOSED, _REOPENED = Entry.FIGHT_CLOSED.value, Entry.FIGHT_REOPENED.value
_Row = tuple[int | None, str, int, int | None, Any, str]
"""``warrior_id``, ``entry``, ``bp`` (tenths), ``fight_id``, what it says (a name, or
a closed fight's winner), ``created_at``."""
_Key = tuple[int, int, str, int]


@dataclass(frozen=True, slots=True)
class Line:
    """One warrior's places over the steps."""

    name: str
    places: tuple[tuple[int, int], ...]
    """(step, place) from its first step on, one where its place changed."""
    now: int
    best: int
    lowest: int
    path: str = ""
    """The SVG path (set by :func:`rank_chart`)."""


@dataclass(frozen=True, slots=True)
class RankChart:
    """The chart's lines and geometry, in SVG user units."""

    lines: tuple[Line, ...]
    steps: int
    """Rows that changed a BP."""
    first: str
    last: str
    """When the first and the last step were."""
    ticks: tuple[tuple[float, str], ...] = ()
    """The y axis: height and label of each place marked."""
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP_EDGE
    bottom: int = HEIGHT - BOTTOM


def _compact(rows: Iterable[Any], failed: frozenset[int]) -> Iterator[_Row]:
    """The rows that hold, each with only what the ranking reads."""
    for row in rows:
        if row.id in failed or not isinstance(row.bp, int):
            continue
        detail = row.detail if isinstance(row.detail, dict) else {}
        said: Any = None
        if row.entry in _NAMING and isinstance(detail.get("name"), str):
            said = detail["name"]
        elif row.entry == _CLOSED:
            sides, winner = detail.get("sides"), detail.get("winner")
            if isinstance(sides, list) and type(winner) is int and 0 <= winner < len(sides):
                said = sides[winner] if type(sides[winner]) is int else None
        fight = row.fight_id if isinstance(row.fight_id, int) else None
        yield row.warrior_id, row.entry, row.bp, fight, said, str(row.created_at or "")


class _Ranking:
    """The club's ranking as the rows go by; with ``drawn``, kept sorted, and the
    places of the ``drawn`` warriors kept (``moved``: those whose place may have
    changed since it was last cleared)."""

    def __init__(self, drawn: Iterable[int] | None = None) -> None:
        self.bp: dict[int, int] = {}
        self.wins: dict[int, int] = {}
        self.names: dict[int, str] = {}
        self.won: dict[int, int] = {}
        """Fight id -> the warrior its closing row names the winner."""
        self.order: list[_Key] | None = None if drawn is None else []
        self.drawn = frozenset(drawn or ())
        self.place: dict[int, int] = {}
        self.moved: set[int] = set()

    def key(self, warrior: int) -> _Key:
        return (-self.bp[warrior], -self.wins[warrior], self.names[warrior].casefold(),
                warrior)

    def _change(self, warrior: int, bp: int = 0, wins: int = 0,
                name: str | None = None) -> None:
        known = warrior in self.bp
        order = self.order
        if known and order is not None:
            was = bisect.bisect_left(order, self.key(warrior))
            del order[was]
        self.bp[warrior] = self.bp.get(warrior, 0) + bp
        self.wins[warrior] = self.wins.get(warrior, 0) + wins
        if name is not None or not known:
            self.names[warrior] = name or self.names.get(warrior, f"#{warrior}")
        if order is not None:
            key = self.key(warrior)
            at = bisect.bisect_left(order, key)
            order.insert(at, key)
            low, high = (min(was, at), max(was, at) + 1) if known else (at, len(order))
            for index in range(low, high):   # only these places changed
                if (moved := order[index][3]) in self.drawn:
                    self.place[moved] = index + 1
                    self.moved.add(moved)

    def add(self, row: _Row) -> None:
        warrior, entry, bp, fight, said, _ = row
        if isinstance(warrior, int) and (bp or entry in _NAMING):
            self._change(warrior, bp, name=said if isinstance(said, str) else None)
        elif fight is not None and entry in (_CLOSED, _REOPENED):
            if (gone := self.won.pop(fight, None)) is not None:
                self._change(gone, wins=-1)
            if entry == _CLOSED and isinstance(said, int) and said in self.bp:
                self.won[fight] = said
                self._change(said, wins=1)


def ranking(rows: Iterable[Any], failed: Iterable[int] = (),
            top: int = TOP) -> tuple[list[Line], int, str, str]:
    """The first ``top`` warriors now, each with its places after each BP-changing row
    of ``rows`` (``Store.ranking_rows``', oldest first; ``failed``: the ids of rows that
    do not hold); how many steps; when the first and the last were."""
    kept = list(_compact(rows, frozenset(failed)))
    now = _Ranking()
    for row in kept:
        now.add(row)
    first = sorted(now.bp, key=now.key)[:top]
    walk, places = _Ranking(first), {w: list[tuple[int, int]]() for w in first}
    steps, start, end = 0, "", ""
    for row in kept:
        walk.add(row)
        if row[2] and isinstance(row[0], int):
            steps += 1
            start, end = start or row[5], row[5]
            for warrior in walk.moved:
                place = walk.place[warrior]
                if not places[warrior] or places[warrior][-1][1] != place:
                    places[warrior].append((steps, place))
            walk.moved.clear()
    lines = []
    for rank, warrior in enumerate(first, 1):
        seen = [p for _, p in places[warrior]] or [rank]
        lines.append(Line(now.names[warrior], tuple(places[warrior]), rank, min(seen),
                          max(seen)))
    return lines, steps, start, end


def _path(places: tuple[tuple[int, int], ...], xs: list[int],
          y: Callable[[int], float]) -> str:
    """One line's path: per ``X_UNITS`` of x (``xs``: each step's), a vertical stroke
    over the heights its steps there reached, ending at the last of them."""
    found: list[tuple[int, int, int, int]] = []   # x, highest, lowest, last place
    for step, place in places:
        x = xs[step]
        if found and found[-1][0] == x:
            _, high, low, _ = found[-1]
            found[-1] = (x, min(high, place), max(low, place), place)
        else:
            found.append((x, place, place, place))
    buckets = [(x, y(top), y(end), y(last)) for x, top, end, last in found]
    path: list[str] = []
    now, was = -1.0, 0
    for x, up, down, to in buckets:
        marks = [v for v in dict.fromkeys((up, down)) if v not in (to, now)] + [to]
        if not path:
            path.append(f"M{x} {marks.pop(0):g}")
        elif marks != [now]:
            path.append(f"h{x - was}")
        else:
            continue
        path.extend(f"V{v:g}" for v in marks)
        now, was = to, x
    return "".join([*path, f"H{WIDTH - RIGHT}"] if path else [])


def rank_chart(lines: list[Line], steps: int, first: str = "", last: str = "") -> RankChart:
    """The chart of ``lines`` over ``steps`` steps."""
    deepest = min(DEEPEST, max([len(lines), *(line.lowest for line in lines)]))
    x_step = (WIDTH - RIGHT - LEFT) / max(steps, 1)
    height = HEIGHT - BOTTOM - TOP_EDGE
    ys = {p: float(round(TOP_EDGE + (p - 1) * height / max(deepest - 1, 1)))
          for p in range(1, deepest + 1)}

    def y(place: int) -> float:
        return ys[min(place, deepest)]

    xs = [LEFT + round(step * x_step / X_UNITS) * X_UNITS if steps > 1 else WIDTH - RIGHT
          for step in range(steps + 1)]
    drawn = [replace(line, path=_path(line.places, xs, y)) for line in lines]
    marks = sorted({1, deepest, *range(5, deepest, 5)})
    ticks = tuple((y(p), f"{p}+" if p == deepest and p == DEEPEST else str(p))
                  for p in marks)
    return RankChart(tuple(drawn), steps, first, last, ticks)
