"""The standings page (``/``): every warrior as ``!top`` ranks them (BP, ties by wins),
sortable by any column on the server (``?sort=bp&order=desc``), An Cath warriors
filtered by culture (``?culture=goblin``); a dead warrior is marked beside its name;
below, the ranking history (:mod:`bot.web.ranking`).

BP, status, culture and player are the ledger's (:mod:`bot.web.proving`): the ranking
is by the BP its rows give, and a stored column that says otherwise is shown beside,
flagged."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from bot.systems.registry import PLUGINS
from bot.web.query import one_of
from bot.web.ranking_history import ranking_history
from bot.web.redact import who
from bot.web.site import render, site_of
from rules.ancath.tables import Culture
from storage.proved import ProvedWarrior
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


SHOWN = {"bp": "bp", "status": "status", "culture": "culture", "owner": "owner"}
"""The standings' fields the ledger gives, by the name the rows give them."""


def proved(standing: Standing, warrior: ProvedWarrior | None) -> tuple[Standing,
                                                                          dict[str, str]]:
    """``standing`` with the ledger's fields, and each stored one that differs, as the
    page shows it, by field (``unproved``: the warrior's ledger rows that do not
    hold)."""
    if warrior is None:
        return standing, {}
    columns = warrior.columns
    shown = dataclasses.replace(
        standing, bp=columns["bp"], status=columns["status"], owner=columns["owner"],
        culture=columns["culture"])   # None for a system without cultures, as in its standing
    flags = {}
    if warrior.unproved:
        flags["unproved"] = ", ".join(f"#{row}" for row in warrior.unproved)
    for field, column in SHOWN.items():
        if column in warrior.differs:
            was = warrior.differs[column][0]
            flags[field] = f"{was / 10:.1f}" if field == "bp" else who(was) \
                if field == "owner" else str(was)
    return shown, flags


def standings(request: Request) -> Response:
    params = request.query_params
    sort = one_of(params, "sort", COLUMNS) or "rank"
    order = one_of(params, "order", ("asc", "desc")) or COLUMNS[sort][2]
    culture = one_of(params, "culture", CULTURES)
    site = site_of(request)
    with site.proof.reading() as seen:
        listed = site.store.standings(culture)
        warriors = seen.warriors()
        failed = frozenset(seen.proof.failed) if seen.proof is not None else frozenset()
    head = site.proof.status().head
    drawn, redraw = ranking_history(request, site.store).chart(head, failed) if head else \
        (None, 0.0)
    rows = [proved(standing, warriors.get(standing.name)) for standing in listed]
    rows.sort(key=lambda row: (-row[0].bp, -row[0].wins, row[0].name.casefold()))
    ranked = [(rank, standing, flags) for rank, (standing, flags) in enumerate(rows, 1)]
    key = COLUMNS[sort][1]   # a stable sort: ties stay in rank order, either way
    ranked.sort(key=lambda row: key(row[1]), reverse=order == "desc")
    labels = {name: plugin.label for name, plugin in PLUGINS.items()}
    return render(request, "standings.html", ranked=ranked, sort=sort, order=order,
                  culture=culture, cultures=CULTURES, columns=COLUMNS, labels=labels,
                  drawn=drawn, head=head, redraw=math.ceil(redraw))
