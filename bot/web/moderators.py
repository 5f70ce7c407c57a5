"""The moderators' actions (``/moderators``): every ruling and change a moderator made,
newest first, with who and why and what it set: the ledger rows with a moderator
(``!mod bp``, ``skill``, ``armour``, ``free``, ``add``, ``remove``, an end's awards and
closing row, an undo's reversals and reopening) and every undo from the fights' command
logs (an undo that took back no ledger row is only there). Filters by moderator (as
the page shows them) and days from and to (UTC, ``since``, ``until``); 100 a page, with
their count, older ones by ``before=<place>``, newer by ``after=<place>`` (the time,
then ``u`` and the undo's or ``r`` and the ledger row's id), and a jump to a day
(``day=2026-03-01``: the page that starts with that day's newest action)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from bot.web.pager import keyed
from bot.web.query import BadRequest, day, log_place, place_text, words
from bot.web.redact import hide_hosts, ledger_fields, who
from bot.web.site import render, site_of
from storage.ledger_view import LedgerFilter
from storage.paging import FIRST_PLACE
from storage.records import LedgerEntry, LogPlace, UndoRecord

__all__ = ["FILTERS", "PAGE", "Action", "moderators", "undone"]

FILTERS = ("moderator", "since", "until")

PAGE = 100
"""Actions a page."""
WHAT = {
    "moderator-bp": "BP changed", "moderator-skill": "skill set", "moderator-armour":
    "armour changed", "prisoner-freed": "prisoner freed", "fight-closed": "fight ended",
    "fight-reopened": "fight reopened", "reversal": "row taken back", "award": "BP awarded",
    "moderator-added": "moderator added", "moderator-removed": "moderator removed",
    "death": "death", "prisoner-taken": "prisoner taken", "setting-changed": "setting changed",
}
"""A moderator's ledger row, by its entry, in words."""


@dataclass(frozen=True, slots=True)
class Action:
    """One line of the page: an undo, or a moderator's ledger row."""

    at: str
    moderator: str
    what: str
    warrior: str | None
    bp: float
    fight: int | None
    reason: str
    row: int | None
    """The ledger row's id (None for an undo)."""
    change: str = ""
    """What it set besides BP: ``spear 35``, ``free``, ``armour mail (was leather)``, or
    whom ``!mod add`` or ``remove`` named."""
    unheld: str | None = None
    """Why its ledger row does not hold (edited), or None."""
    unproved: str | None = None
    """Why its ledger row is not proved here (signed with a key not known here), or
    None."""


def _change(row: LedgerEntry, detail: dict[str, Any]) -> str:
    """What a moderator's ledger row set besides BP (never a ``user@host``)."""
    if "name" in detail:
        return who(str(detail["name"]))
    if "armour" in detail:
        was = f" (was {detail['was']})" if detail.get("was") else ""
        return f"armour {detail['armour']}{was}"
    skill = f"{row['skill']} {row['skill_value']}" if row["skill"] else ""
    return " ".join(part for part in (skill, row["status"] or "") if part) \
        or hide_hosts(row["detail"])   # a setting's new value, in the ledger's words


def undone(keep: int) -> str:
    """What an undo did, in a member's words: its record keeps the fight's first
    ``keep`` commands and takes back the rest (R8.1)."""
    if keep <= 0:
        return "undo: took back the whole fight"
    return f"undo: took the fight back to its command {keep}"


def moderators(request: Request) -> Response:
    params = request.query_params
    before, after = log_place(params, "before"), log_place(params, "after")
    if before is not None and after is not None:
        raise BadRequest("give one of before and after")
    jumped = day(params, "day")
    if jumped is not None and before is None and after is None:   # older than the next day
        before = LogPlace((jumped + timedelta(days=1)).isoformat(), False, 0)
    where = LedgerFilter(moderator=words(params, "moderator"), since=day(params, "since"),
                         until=day(params, "until"))
    site = site_of(request)
    site.proof.advance()
    log = site.store.moderator_window(where, before, after, PAGE)
    checked = site.proof.unheld(entry["id"] for entry in log.items
                                if not isinstance(entry, UndoRecord))
    actions = []
    for entry in log.items:
        if isinstance(entry, UndoRecord):
            actions.append(Action(entry.at, who(entry.moderator), undone(entry.keep), None,
                                  0, entry.fight, hide_hosts(entry.reason), None))
            continue
        row = ledger_fields(entry)
        actions.append(Action(row["at"], row["moderator"] or "",
                              WHAT.get(row["entry"], row["entry"]), row["warrior"], row["bp"],
                              row["fight"], row["reason"], row["id"],
                              _change(entry, log.details.get(entry["id"], {})),
                              checked.unheld.get(row["id"]),
                              checked.unproved.get(row["id"])))
    given = {name: params[name].strip() for name in FILTERS if params.get(name, "").strip()}
    paging = keyed(log, [place_text(place) for place in log.places], "actions",
                   {"after": place_text(FIRST_PLACE)}, jump="day", jump_label="Go to day",
                   jump_date=True)
    return render(request, "moderators.html", actions=actions, paging=paging, given=given)
