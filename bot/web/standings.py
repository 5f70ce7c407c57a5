"""The standings page (``/``): every warrior as ``!top`` ranks them (BP, ties by wins),
sortable by any column on the server (``?sort=bp&order=desc``), An Cath warriors
filtered by culture (``?culture=goblin``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from bot.systems.registry import PLUGINS
from bot.web.query import one_of
from bot.web.redact import who
from bot.web.site import render, site_of
from rules.ancath.tables import Culture
from storage.records import Standing

__all__ = ["COLUMNS", "standings"]

COLUMNS: dict[str, tuple[str, Callable[[Standing], Any], str]] = {
    "rank": ("#", lambda s: 0, "asc"),
    "name": ("Warrior", lambda s: s.name.casefold(), "asc"),
    "culture": ("Culture", lambda s: s.culture or "", "asc"),
    "status": ("Status", lambda s: s.status, "asc"),
    "bp": ("BP", lambda s: s.bp, "desc"),
    "wins": ("Wins", lambda s: s.wins, "desc"),
    "losses": ("Losses", lambda s: s.losses, "desc"),
    "draws": ("Draws", lambda s: s.draws, "desc"),
    "player": ("Player", lambda s: who(s.owner).casefold(), "asc"),
}
"""Each sortable column: its heading, its sort key, and its first order."""
CULTURES = tuple(c.value for c in Culture)


def standings(request: Request) -> Response:
    params = request.query_params
    sort = one_of(params, "sort", COLUMNS) or "rank"
    order = one_of(params, "order", ("asc", "desc")) or COLUMNS[sort][2]
    culture = one_of(params, "culture", CULTURES)
    ranked = list(enumerate(site_of(request).store.standings(culture), 1))
    key = COLUMNS[sort][1]   # a stable sort: ties stay in rank order, either way
    ranked.sort(key=lambda pair: key(pair[1]), reverse=order == "desc")
    labels = {name: plugin.label for name, plugin in PLUGINS.items()}
    return render(request, "standings.html", ranked=ranked, sort=sort, order=order,
                  culture=culture, cultures=CULTURES, columns=COLUMNS, labels=labels)
