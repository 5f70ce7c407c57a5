"""A warrior's page (``/warriors/<name>``): the sheet as ``ancath-bot warrior show``
gives it, the counts of ``!stats``, BP over time as a chart with its table, the skill
purchases, the fights with their results, and the prisoner history. Each list is
paged on its own, ``LIST_PAGE`` a page, newest page first, by a parameter of its own
(``steps=2``, ``fights=3``, ``bought``, ``prisoner``; the others' kept), and the chart's
steps and the fights can be jumped to by row (``steps_at=<row id>``) or fight number
(``fights_at=<number>``): the page holding it.

The sheet (BP, skills, status, owner, armour, ...) is the one the ledger's rows give
(:mod:`bot.web.proving`); a stored column that says otherwise is shown beside, flagged,
and each ledger row shown that does not hold is marked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response

from bot.systems.registry import PLUGINS
from bot.web.chart import bp_chart
from bot.web.pager import Pager, sliced
from bot.web.query import NotFound, number
from bot.web.redact import hide_hosts, ledger_fields, who
from bot.web.site import render, site_of
from storage.errors import UnknownWarrior
from storage.ledger_view import LedgerFilter
from storage.models import Entry

__all__ = ["LISTS", "LIST_PAGE", "warrior"]

_T = TypeVar("_T")
LIST_PAGE = 50
"""Items of each list a page."""
LISTS = ("steps", "fights", "bought", "prisoner")
"""The lists' page parameters."""

PRISONER_ROWS = (Entry.PRISONER_TAKEN.value, Entry.PRISONER_FREED.value)


def _shown(key: str, value: Any) -> str:
    """A sheet field as the page shows it."""
    if key == "owner":
        return who(value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    return hide_hosts("" if value is None else str(value))


def _paged(items: Sequence[_T], params: QueryParams, name: str, noun: str,
           oldest_first: bool, key: Callable[[_T], int] | None = None,
           jump_label: str = "") -> tuple[list[_T], Pager]:
    """One page of the list ``name``: the one its parameter names, or that holds the
    item its jump names (``<name>_at``)."""
    page = number(params, name)
    jump = f"{name}_at" if key is not None else None
    wanted = number(params, jump) if jump else None
    if key is not None and wanted is not None:
        found = next((i for i, item in enumerate(items) if key(item) == wanted), None)
        if found is None:
            raise NotFound(f"{jump}: no {wanted} in this list")
        page = ((len(items) - 1 - found) if oldest_first else found) // LIST_PAGE + 1
    return sliced(items, page, LIST_PAGE, name, noun, oldest_first=oldest_first, jump=jump,
                  jump_label=jump_label)


def warrior(request: Request) -> Response:
    name = request.path_params["name"]
    site = site_of(request)
    store = site.store
    try:
        with site.proof.reading() as seen:
            record = store.warrior(name)
            stats = store.warrior_stats(name)
            fights = store.fight_history(name)
            rows = [ledger_fields(r) for r in store.ledger_rows(
                where=LedgerFilter(warrior=name))]
            found = next(iter(seen.warriors([name]).values()), None)
    except UnknownWarrior:
        raise NotFound(f"no warrior named {name[:60]}") from None
    site.proof.check_rows(rows)
    show = PLUGINS[record.system].fighters.show
    stored = {k: _shown(k, v) for k, v in show(record).items()}
    proved = found.proved if found is not None and found.proved is not None else record
    sheet = {k: _shown(k, v) for k, v in show(proved).items()}
    flags = {k: v for k, v in stored.items() if sheet.get(k) != v}
    bp = found.columns["bp"] if found is not None else stats.bp
    chart = bp_chart(rows, rows[0]["at"] if rows else "")
    params = request.query_params
    steps = _paged(chart.marks, params, "steps", "steps", True, lambda m: int(m.row["id"]),
                   "Go to row")
    fought = _paged(fights, params, "fights", "fights", False, lambda f: f.id,
                    "Go to fight #")
    bought = _paged([r for r in rows if r["entry"] == Entry.SPEND.value], params, "bought",
                    "purchases", True)
    prisoner = _paged([r for r in rows if r["entry"] in PRISONER_ROWS], params, "prisoner",
                      "rows", True)
    return render(
        request, "warrior.html", name=record.sheet.name, sheet=sheet, flags=flags,
        stats=stats, bp=bp, bp_stored=f"{stats.bp / 10:.1f}" if bp != stats.bp else None,
        unproved=found.unproved if found is not None else (), chart=chart,
        label=PLUGINS[record.system].label, steps=steps, fights=fought, purchases=bought,
        prisoner=prisoner, given={n: params[n] for n in LISTS if params.get(n, "").strip()},
        path=request.url.path)
