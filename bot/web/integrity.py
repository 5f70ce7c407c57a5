"""The integrity page (``/integrity``): what the server's proof of the ledger found
(:mod:`bot.web.proving`), the result of ``store.audit()``, the very check ``ancath-bot
audit verify`` makes, the ledger's head to publish, an anchor a visitor pastes checked
against the chain (``?anchor=ledger #4123 9f2c1a7e0b5d8c33`` or ``4123:9f2c...``), and
the club's public key with the audit export to check it all with.

The audit is kept for a while (it reads every ledger row: seconds on a big ledger) and
made by one request at a time, in Starlette's thread pool, off the event loop (or by
the proof's background re-check). A request that comes while a check is under way
never waits for it (waiting requests would fill the thread pool every page shares): it
gets the previous check, or before the first the page says it is under way. Each
check's problems fail the proof every page shows (``on_report``); a check that meets a
record the bot never writes (changed outside it) says so, as its problem.

A pasted anchor's row id is at most ``MOST_ROW_ID`` (2**63 - 1, every database's
largest): a longer one is answered as no such row, never looked up."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from starlette.requests import Request
from starlette.responses import Response

from bot.web.proving import UNREADABLE, unreadable
from bot.web.query import NotNow, one_of, words
from bot.web.site import render, site_of
from storage.audit import Report, ranges
from storage.ledger import Anchor, anchors_in
from storage.proved import MOST_ROW_ID
from storage.signing import PublicKey
from storage.store import Store

__all__ = ["AGAIN_AFTER", "NOT_AN_ANCHOR", "Checked", "IntegrityCheck", "integrity",
           "pasted"]

AGAIN_AFTER = 10.0
"""Seconds before a check may be asked for again."""


@dataclass(frozen=True, slots=True)
class Checked:
    """One check's result and when it was made."""

    report: Report
    head: Anchor | None
    """The ledger's head as stored, with its whole MAC."""
    at: datetime
    seconds: float
    """How long it took."""
    signed_by: tuple[str, ...]
    """The ids of the keys this server has."""

    @property
    def missing(self) -> list[tuple[str, str]]:
        """Per key this server lacks: its id and the rows it signed (``1..20``)."""
        return [(kid, ranges(ids)) for kid, ids in self.report.missing.items()]

    @property
    def age(self) -> float:
        return (datetime.now(UTC) - self.at).total_seconds()


class IntegrityCheck:
    """The audit of ``store``, made again once ``seconds`` old (or when asked, after
    ``AGAIN_AFTER`` seconds)."""

    def __init__(self, store: Store, seconds: float,
                 on_report: Callable[[Report], None] | None = None,
                 trusted: tuple[PublicKey, ...] = ()) -> None:
        self._store = store
        self._trusted = trusted
        self._seconds = seconds
        self._on_report = on_report
        self._lock = threading.Lock()
        self._last: Checked | None = None

    def _due(self, last: Checked | None, again: bool) -> bool:
        return last is None or last.age >= self._seconds or (again and last.age >= AGAIN_AFTER)

    def result(self, again: bool = False) -> Checked:
        """The latest check, made now when there is none, it is too old, or ``again``;
        while another request makes one, the one before it (``NotNow`` before the first)."""
        last = self._last
        if last is not None and not self._due(last, again):
            return last
        if not self._lock.acquire(blocking=False):
            if last is None:
                raise NotNow("the first integrity check is under way (it reads every ledger "
                             "row); reload this page in a few seconds")
            return last
        try:
            last = self._last
            if self._due(last, again):
                started = time.perf_counter()
                try:
                    report = self._store.audit(trusted=self._trusted)
                except UNREADABLE as error:   # a stored value the bot never writes
                    report = Report(problems=[unreadable(error, "the ledger (or a record "
                                                         "the check compares with it)")])
                self._last = last = Checked(report, self._store.ledger_head(),
                                            datetime.now(UTC), time.perf_counter() - started,
                                            self._store.keyring.ids)
                if self._on_report is not None:
                    self._on_report(report)
            assert last is not None
            return last
        finally:
            self._lock.release()


NOT_AN_ANCHOR = ("that is not an anchor: paste it as the bot says it, ledger #4123 "
                 "9f2c1a7e0b5d8c33, or as 4123:9f2c1a7e0b5d8c33 (8 or more hex digits)")


_TOO_LONG = re.compile(r"(?:ledger #0*([1-9]\d*) |#?0*([1-9]\d*):)[0-9a-fA-F]{8,64}\b")
"""An anchor, whatever its row id's length (``pasted`` takes 18 digits at most)."""


def pasted(text: str) -> Anchor | None:
    """An anchor as a visitor pastes it: ``ledger #4123 9f2c1a7e0b5d8c33`` (as the bot
    says it, in any text) or ``4123:9f2c1a7e0b5d8c33``; None when it is neither."""
    found = anchors_in(text)
    if found:
        return found[0]
    try:
        return Anchor.parse(text)
    except ValueError:
        return None


def past_every_row(text: str) -> str | None:
    """What to answer an anchor whose row id is over ``MOST_ROW_ID`` (or of 19 digits,
    which ``pasted`` does not take); None for any other text."""
    for found in _TOO_LONG.finditer(text):
        digits = found[1] or found[2]
        shown = digits if len(digits) <= 24 else f"{digits[:20]}... ({len(digits)} digits)"
        if len(digits) > len(str(MOST_ROW_ID)) or int(digits) > MOST_ROW_ID:
            return (f"there is no row {shown}: no ledger row id is over {MOST_ROW_ID} "
                    "(2**63 - 1, every database's largest)")
        if len(digits) > 18:
            return f"there is no row {shown}: no ledger has that many rows"
    return None


def integrity(request: Request) -> Response:
    """The integrity page (``/integrity``; ``?again=1`` to check again now,
    ``?anchor=...`` to check an anchor)."""
    params = request.query_params
    again = one_of(params, "again", ("1",)) is not None
    given = words(params, "anchor")
    anchor = pasted(given) if given else None
    site = site_of(request)
    with site.proof.reading() as seen:
        held = seen.anchor(anchor) if anchor is not None else None
    if given and anchor is None:
        held = (False, past_every_row(given) or NOT_AN_ANCHOR)
    elif anchor is not None and anchor.id > MOST_ROW_ID:   # never asked of the database
        held = (False, past_every_row(f"{anchor.id}:{anchor.mac}") or NOT_AN_ANCHOR)
    try:
        checked: Checked | None = site.integrity.result(again)
    except NotNow:
        checked = None
    return render(request, "integrity.html", checked=checked, again_after=AGAIN_AFTER,
                  given=given or "", anchor=anchor, held=held)
