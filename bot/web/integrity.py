"""The integrity page (``/integrity``): the result of ``store.audit()``, the very check
``ancath-bot audit verify`` makes, and the ledger's head to publish. The check is kept
for a while (it reads every ledger row: seconds on a big ledger) and made by one
request at a time, in Starlette's thread pool, off the event loop. A request that comes
while a check is under way never waits for it (waiting requests would fill the thread
pool every page shares): it gets the previous check, or before the first a short 503."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from starlette.requests import Request
from starlette.responses import Response

from bot.web.query import NotNow, one_of
from bot.web.site import render, site_of
from storage.audit import Report, ranges
from storage.ledger import Anchor
from storage.store import Store

__all__ = ["AGAIN_AFTER", "Checked", "IntegrityCheck", "integrity"]

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

    def __init__(self, store: Store, seconds: float) -> None:
        self._store = store
        self._seconds = seconds
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
                report = self._store.audit()
                self._last = last = Checked(report, self._store.ledger_head(),
                                            datetime.now(UTC), time.perf_counter() - started,
                                            self._store.keyring.ids)
            assert last is not None
            return last
        finally:
            self._lock.release()


def integrity(request: Request) -> Response:
    """The integrity page (``/integrity``, ``?again=1`` to check again now)."""
    again = one_of(request.query_params, "again", ("1",)) is not None
    return render(request, "integrity.html", checked=site_of(request).integrity.result(again),
                  again_after=AGAIN_AFTER)
