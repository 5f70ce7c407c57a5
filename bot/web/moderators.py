"""The moderators' actions (``/moderators``): every ruling and change a moderator made,
newest first, with who and why: the ledger rows with a moderator (``!mod bp``, ``skill``,
``armour``, ``free``, ``add``, ``remove``, an end's awards and closing row, an undo's
reversals and reopening) and every undo from the fights' command logs (an undo that
took back no ledger row is only there). 100 moments a page (a command's rows share its
moment), older ones by ``before=<time>``."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from bot.web.query import moment
from bot.web.redact import hide_hosts, ledger_fields, who
from bot.web.site import render, site_of

__all__ = ["Action", "moderators"]

WHAT = {
    "moderator-bp": "BP changed", "moderator-skill": "skill set", "moderator-armour":
    "armour changed", "prisoner-freed": "prisoner freed", "fight-closed": "fight ended",
    "fight-reopened": "fight reopened", "reversal": "row taken back", "award": "BP awarded",
    "moderator-added": "moderator added", "moderator-removed": "moderator removed",
    "death": "death", "prisoner-taken": "prisoner taken",
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


def moderators(request: Request) -> Response:
    before = moment(request.query_params, "before")
    log = site_of(request).store.moderator_log(before)
    actions = [Action(u.at, who(u.moderator), f"undo (kept {u.keep} commands)", None, 0,
                      u.fight, hide_hosts(u.reason), None) for u in log.undos]
    for entry in map(ledger_fields, log.rows):
        actions.append(Action(entry["at"], entry["moderator"] or "", WHAT.get(
            entry["entry"], entry["entry"]), entry["warrior"], entry["bp"], entry["fight"],
            entry["reason"], entry["id"]))
    actions.sort(key=lambda a: (a.at, a.row is None, a.row or 0), reverse=True)
    return render(request, "moderators.html", actions=actions, older=log.older, before=before)
