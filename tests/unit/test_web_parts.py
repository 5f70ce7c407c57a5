"""The leadership pages' small parts, without a server: how people and free text are
shown, the CSV formula guard, strict query parameters, and the BP chart's geometry."""

from __future__ import annotations

import threading
from datetime import date
from types import SimpleNamespace
from typing import Any

import pytest

from bot.ledger_csv import spreadsheet_safe
from bot.web.chart import HEIGHT, WIDTH, bp_chart
from bot.web.integrity_check import Checked, IntegrityCheck
from bot.web.query import BadRequest, NotNow, day, log_place, number, one_of, place_text, words
from bot.web.redact import hide_hosts, who
from storage.audit import Report


def test_an_identity_is_its_account_or_unregistered() -> None:
    assert [who(i) for i in ("olaf", "bot", "bran@host.example", None, "")] == [
        "olaf", "bot", "unregistered", "", ""]
    assert hide_hosts("freed for bran!bran@host.example, (x@y.z); mail@ me") == \
        "freed for unregistered, (unregistered); mail@ me"


@pytest.mark.parametrize("cell", ["=1+1", "+1", "-2+3", "@SUM(A1)", "\tx", "\r=x"])
def test_a_cell_a_spreadsheet_would_run_stays_text(cell: str) -> None:
    assert spreadsheet_safe(cell) == "'" + cell
    assert spreadsheet_safe(-0.1) == -0.1 and spreadsheet_safe("misclick") == "misclick"


def test_query_parameters_are_read_strictly() -> None:
    given = {"n": "42", "big": "1" * 14, "neg": "-1", "day": "2026-03-01", "bad": "2026-02-30",
             "max": "9999-12-31", "w": "x" * 201, "at": "2026-03-01T20:15:00.5+00:00~u12",
             "blank": "  ", "arabic": "\u0663", "wide": "\uff11"}
    assert (number(given, "n"), number(given, "blank"), number(given, "absent")) == (42, None,
                                                                                     None)
    assert day(given, "day") == date(2026, 3, 1)
    place = log_place(given, "at")
    assert place is not None and (place.undo, place.id) == (True, 12)
    assert place_text(place) == given["at"]
    assert one_of(given, "n", ("42",)) == "42"
    for bad in (lambda: number(given, "big"), lambda: number(given, "neg"),
                lambda: number(given, "arabic"), lambda: number(given, "wide"),
                lambda: number(given, "n", high=41), lambda: day(given, "bad"),
                lambda: day(given, "max"), lambda: words(given, "w"),
                lambda: log_place(given, "day"), lambda: one_of(given, "n", ("1", "2"))):
        with pytest.raises(BadRequest):
            bad()


def _row(i: int, bp: float, moderator: str | None = None) -> dict[str, Any]:
    return {"id": i, "bp": bp, "moderator": moderator, "at": f"2026-01-0{i}T00:00:00+00:00"}


def test_the_bp_chart_steps_once_per_row_that_changed_bp() -> None:
    chart = bp_chart([_row(1, 0.0), _row(2, 0.2), _row(3, 1.0, "mod"), _row(4, -0.2, "mod")])
    assert [(m.row["id"], m.total, m.moderated) for m in chart.marks] == [
        (2, 2, False), (3, 12, True), (4, 10, True)]
    assert chart.moderated == 2 and chart.first.startswith("2026-01-02")
    xs = [m.x for m in chart.marks]
    assert xs == sorted(xs) and xs[-1] == chart.right
    assert all(chart.top <= m.y <= chart.bottom for m in chart.marks)
    assert [label for _, label in chart.ticks] == ["0", "5", "10"]
    assert chart.path.startswith(f"M {chart.left} {chart.bottom}")
    assert (chart.width, chart.height) == (WIDTH, HEIGHT)
    empty = bp_chart([], created="2026-01-01T00:00:00+00:00")
    assert empty.marks == () and empty.first.startswith("2026-01-01")


class _SlowAudit:
    """A store whose audit waits until the test lets it finish."""

    def __init__(self) -> None:
        self.started, self.finish = threading.Event(), threading.Event()
        self.audits = 0
        self.keyring = SimpleNamespace(ids=())

    def audit(self, anchors: object = (), trusted: object = ()) -> Report:
        self.audits += 1
        self.started.set()
        assert self.finish.wait(5)
        return Report()

    def ledger_head(self) -> None:
        return None


def test_a_request_never_waits_for_an_integrity_check_under_way() -> None:
    """Requests that waited for the check filled the thread pool every page shares (on a
    big ledger, a few dozen /integrity requests stalled the standings for the check's
    20 s): one makes the check, the others get the previous one, or 503 before the first."""
    store = _SlowAudit()
    check = IntegrityCheck(store, seconds=0.0)   # type: ignore[arg-type]
    made: list[Checked] = []

    def checking() -> threading.Thread:
        store.started.clear()
        store.finish.clear()
        thread = threading.Thread(target=lambda: made.append(check.result()))
        thread.start()
        assert store.started.wait(5)
        return thread

    first = checking()
    with pytest.raises(NotNow):
        check.result()
    store.finish.set()
    first.join(5)
    second = checking()   # seconds=0: every request finds the check too old
    assert check.result() is made[0]
    store.finish.set()
    second.join(5)
    assert store.audits == 2 and len(made) == 2


def test_the_bp_chart_is_bounded_whatever_the_rows_say() -> None:
    """A row edited by SQL may say anything: the chart draws a few grid lines at a round
    step, totals past ``LIMIT`` at the edge (the table keeps what they are), and a BP
    that is no number moves nothing."""
    from bot.web.chart import LIMIT, TICKS

    for rows in ([_row(1, 1e11)], [_row(1, -1e11)], [_row(1, 9.2e17), _row(2, -9.2e17)],
                 [_row(1, 12.3), _row(2, -40.0)], [_row(1, 0.5)]):
        chart = bp_chart(rows)
        assert 2 <= len(chart.ticks) <= TICKS + 2, rows
        assert all(chart.top <= y <= chart.bottom for y, _ in chart.ticks), rows
        assert all(chart.top <= m.y <= chart.bottom for m in chart.marks), rows
    huge = bp_chart([_row(1, 1e11)])
    assert huge.marks[0].total == 10**12 and huge.marks[0].y == huge.top
    assert huge.ticks[-1][1] == f"{LIMIT / 10:.0f}"
    odd = bp_chart([_row(1, float("inf")), _row(2, float("nan")), {**_row(3, 0), "bp": "x"},
                    {**_row(4, 0), "bp": None}, _row(5, 0.2)])
    assert [(m.row["id"], m.total) for m in odd.marks] == [(5, 2)]
    assert [label for _, label in bp_chart([_row(1, 12.3), _row(2, -40.0)]).ticks] == [
        "-30", "-20", "-10", "0", "10", "20"]


def test_a_long_bp_chart_marks_the_pages_steps_and_the_moderators_and_merges_its_line() -> None:
    """5,000 steps: marked are only the steps the page's table shows and the moderators'
    (evenly picked beyond ``MARKS`` in all); the line has a stroke per unit of width,
    still reaching each step's height."""
    from bot.web.chart import MARKS

    few = bp_chart([_row(1, 0.5), _row(2, 0.5, "mod")])
    assert few.drawn(few.marks[1:]) == few.marks   # a short chart marks every step
    for every in (10, 2):   # 500 moderators' steps, then 2,500
        rows = [_row(1, 0.1 if i % 7 else -0.3, "mod" if i % every == 0 else None)
                for i in range(5000)]
        chart = bp_chart([{**row, "id": i} for i, row in enumerate(rows)])
        shown = chart.marks[-50:]
        drawn = chart.drawn(shown)
        assert len(drawn) == MARKS and set(map(id, shown)) <= set(map(id, drawn))
        assert [m.row["id"] for m in drawn] == sorted(m.row["id"] for m in drawn)
        assert sum(m.moderated for m in drawn) >= MARKS - 50 + sum(m.moderated for m in shown)
        heights = [float(h) for h in chart.path.split(" V ")[1:] for h in h.split()[:1]]
        assert chart.path.count("H") <= chart.right - chart.left + 2
        assert min(heights) == min(m.y for m in chart.marks)
        assert max(heights) == max(m.y for m in chart.marks)
        assert heights[-1] == chart.marks[-1].y
