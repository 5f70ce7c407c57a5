"""The fights: the list (``/fights``, newest first, 50 a page, ``before=<number>``) and
a fight's page (``/fights/<number>``): the fight in brief and its replay, the whole list
of steps, and one step at a time (``?step=N``, with links to the steps around it)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from bot.systems.registry import PLUGINS
from bot.web.query import NotFound, number
from bot.web.replay import replay
from bot.web.site import render, site_of
from storage.ledger_view import LedgerFilter
from storage.records import FightSummary

__all__ = ["FIGHTS_PAGE", "fight", "fights", "result"]

FIGHTS_PAGE = 50


def result(summary: FightSummary) -> str:
    """``Olaf won (kill)``, ``a draw (draw)``, or ``going on``."""
    if summary.active:
        return "going on"
    ending = f" ({summary.ending})" if summary.ending else ""
    if summary.winner is None:
        return f"a draw{ending}"
    return f"{summary.names[summary.winner]} won{ending}"


def fights(request: Request) -> Response:
    before = number(request.query_params, "before")
    listed = site_of(request).store.fights(before, FIGHTS_PAGE)
    older = listed[-1].id if len(listed) == FIGHTS_PAGE and listed[-1].id > 1 else None
    return render(request, "fights.html", fights=listed, older=older, before=before,
                  result=result)


def fight(request: Request) -> Response:
    text = request.path_params["number"]
    fight_id = int(text) if text.isascii() and text.isdecimal() and len(text) <= 12 else None
    store = site_of(request).store
    summary = store.fight_summary(fight_id) if fight_id else None
    if summary is None:
        raise NotFound(f"no fight number {text[:60]}")
    replayed = replay(summary, store.command_log(summary.id),
                      list(store.ledger_rows(where=LedgerFilter(fight=summary.id))))
    step = number(request.query_params, "step", low=0)
    if step is not None and step >= len(replayed.steps):
        raise NotFound(f"fight {summary.id} has steps 0 to {len(replayed.steps) - 1}")
    return render(request, "fight.html", fight=summary, replay=replayed, step=step,
                  result=result(summary), label=PLUGINS[summary.system].label)
