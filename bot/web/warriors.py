"""A warrior's page (``/warriors/<name>``): the sheet as ``ancath-bot warrior show``
gives it, the counts of ``!stats``, BP over time as a chart with its table, the skill
purchases, the fights with their results, and the prisoner history.

The sheet (BP, skills, status, owner, armour, ...) is the one the ledger's rows give
(:mod:`bot.web.proving`); a stored column that says otherwise is shown beside, flagged,
and each ledger row shown that does not hold is marked."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from bot.systems.registry import PLUGINS
from bot.web.chart import bp_chart
from bot.web.query import NotFound
from bot.web.redact import hide_hosts, ledger_fields, who
from bot.web.site import render, site_of
from storage.errors import UnknownWarrior
from storage.ledger_view import LedgerFilter
from storage.models import Entry

__all__ = ["warrior"]

PRISONER_ROWS = (Entry.PRISONER_TAKEN.value, Entry.PRISONER_FREED.value)


def _shown(key: str, value: Any) -> str:
    """A sheet field as the page shows it."""
    if key == "owner":
        return who(value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    return hide_hosts("" if value is None else str(value))


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
    return render(
        request, "warrior.html", name=record.sheet.name, sheet=sheet, flags=flags,
        stats=stats, bp=bp, bp_stored=f"{stats.bp / 10:.1f}" if bp != stats.bp else None,
        unproved=found.unproved if found is not None else (),
        fights=fights, chart=bp_chart(rows, rows[0]["at"] if rows else ""),
        label=PLUGINS[record.system].label,
        purchases=[r for r in rows if r["entry"] == Entry.SPEND.value],
        prisoner=[r for r in rows if r["entry"] in PRISONER_ROWS])
