"""The fights: the list (``/fights``, newest first, 50 a page, ``before=<number>``,
``after=<number>`` for the newer page, ``at=<number>`` for the page from that fight on) and
a fight's page (``/fights/<number>``): the fight in brief and its replay, the whole list
of steps, and one step at a time (``?step=N``, with links to the steps around it), and
each step's win chances (:mod:`bot.web.chances`, never waited for).

How a fight ended is what its closing ledger row records (:mod:`bot.web.proving`), not
its stored columns: a stored ending or winner that says otherwise is shown beside,
flagged, and a fight no proved row closes claims no outcome (nor one whose closing row,
checked on its own, no longer holds: edited since the walk). A fight whose stored logs
differ from the digests its closing row holds says "this fight's log was altered after
it ended" (which part) above its replay."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from bot.systems.registry import PLUGINS
from bot.web.chances import of_fight
from bot.web.pager import keyed
from bot.web.proving import Reading
from bot.web.query import LARGEST, BadRequest, NotFound, number
from bot.web.replay import replay
from bot.web.site import render, site_of
from bot.web.swing import swing_chart
from storage.ledger_view import LedgerFilter
from storage.proved import ProvedFight, RowChecks
from storage.records import FightSummary

__all__ = ["FIGHTS_PAGE", "Outcome", "fight", "fights", "held", "outcome", "result"]

FIGHTS_PAGE = 50


def _words(names: tuple[str, ...], ending: str | None, winner: int | None) -> str:
    ended = f" ({ending})" if ending else ""
    if winner is None:   # "a draw", not "a draw (draw)"; a ruled one says so
        return "a draw" if ending in (None, "draw") else f"a draw{ended}"
    if not isinstance(winner, int) or not 0 <= winner < len(names):   # as stored
        return f"side {winner} won{ended}"
    return f"{names[winner]} won{ended}"


def result(summary: FightSummary) -> str:
    """``Olaf won (kill)``, ``a draw``, or ``going on``: as stored."""
    if summary.active:
        return "going on"
    return _words(summary.names, summary.ending, summary.winner)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a fight ended, as the pages say it: the ledger's words, and what the stored
    columns say when they differ."""

    words: str
    """``Olaf won (kill)``, ``going on``, or that the ledger proves no outcome."""
    proved: bool
    """A row the chain proves records it (or it is going on)."""
    row: int | None = None
    """The closing row."""
    stored: str | None = None
    """What the stored columns say, when it is not what the ledger records."""


def held(ended: Outcome, checked: RowChecks) -> Outcome:
    """``ended`` with its closing row checked on its own (``LedgerProof.unheld``): a row
    edited in place since the walk passed it, or not proved here, proves nothing."""
    if not ended.proved or ended.row is None:
        return ended
    for rows, said in ((checked.unheld, "does not hold"), (checked.unproved, "is not proved")):
        if ended.row in rows:
            return dataclasses.replace(
                ended, words=f"not proved: ledger row #{ended.row} says {ended.words}, but "
                f"that row {said}: {rows[ended.row]}", proved=False)
    return ended


def outcome(summary: FightSummary, found: ProvedFight | None, seen: Reading) -> Outcome:
    """How fight ``summary`` ended, by its closing row (``found``) as ``seen`` proves it."""
    if seen.proof is None or found is None:
        if summary.active:
            return Outcome("going on", True)
        return Outcome(f"{result(summary)} (not proved yet)", False)
    if found.closed:
        words = _words(summary.names, found.ending, found.winner)
        differs = result(summary) if found.differs else None
        if seen.proves(found.mark):
            return Outcome(words, True, found.mark, differs)
        return Outcome(f"not proved: ledger row #{found.mark} says {words}, but the ledger "
                       "does not prove that row", False, found.mark, differs)
    if summary.active:
        return Outcome("going on", True)
    return Outcome("not proved: no ledger row closes this fight", False, None, result(summary))


def fights(request: Request) -> Response:
    params = request.query_params
    before, after = number(params, "before"), number(params, "after", low=0)
    at = number(params, "at", high=LARGEST - 1)   # the page is read below at + 1
    if sum(given is not None for given in (before, after, at)) > 1:
        raise BadRequest("give one of before, after and at")
    site = site_of(request)
    with site.proof.reading() as seen:
        window = site.store.fight_window(at + 1 if at else before, after, FIGHTS_PAGE)
        listed = [s for s in map(site.store.fight_summary, window.items) if s is not None]
        found = seen.fights(f.id for f in listed)
        outcomes = {f.id: outcome(f, found.get(f.id), seen) for f in listed}
    checked = site.proof.unheld(o.row for o in outcomes.values() if o.row is not None)
    outcomes = {fight_id: held(ended, checked) for fight_id, ended in outcomes.items()}
    paging = keyed(window, [str(n) for n in window.items], "fights", {"after": "0"},
                   jump="at", jump_label="Go to fight #")
    return render(request, "fights.html", fights=listed, paging=paging, at=at,
                  outcomes=outcomes)


def fight(request: Request) -> Response:
    text = request.path_params["number"]
    fight_id = int(text) if text.isascii() and text.isdecimal() and len(text) <= 12 \
        and int(text) <= LARGEST else None
    site = site_of(request)
    store = site.store
    with site.proof.reading() as seen:
        summary = store.fight_summary(fight_id) if fight_id else None
        if summary is None:
            raise NotFound(f"no fight number {text[:60]}")
        log = store.command_log(summary.id)
        rows = list(store.ledger_rows(where=LedgerFilter(fight=summary.id)))
        found = seen.fights([summary.id], logs=True).get(summary.id)
        ended = outcome(summary, found, seen)
    ended = held(ended, site.proof.unheld([ended.row] if ended.row is not None else []))
    replayed = replay(summary, log, rows)
    step = number(request.query_params, "step", low=0)
    if step is not None and step >= len(replayed.steps):
        raise NotFound(f"fight {summary.id} has steps 0 to {len(replayed.steps) - 1}")
    plugin = PLUGINS[summary.system]
    chances = of_fight(request.app.state.chances, summary, log,
                       [s.after for s in replayed.steps], plugin.advised)
    swing = swing_chart(chances.figures) if chances and chances.figures else None
    return render(request, "fight.html", fight=summary, replay=replayed, step=step,
                  outcome=ended, found=found, label=plugin.label, chances=chances,
                  swing=swing)
