"""The integrity page's check (:mod:`bot.web.integrity`): the result of
``store.audit()``, the very check ``ancath-bot audit verify`` makes, kept a while.

The audit reads every ledger row (seconds on a big ledger), so it is kept, and made by
one request at a time, in Starlette's thread pool, off the event loop (or by the
proof's background re-check, :mod:`bot.web.proving`). A request that comes while a
check is under way never waits for it (waiting requests would fill the thread pool
every page shares): it gets the previous check, or before the first the page says it
is under way. Each check's problems fail the proof every page shows (``on_report``); a
check that meets a record the bot never writes (changed outside it) says so, as its
problem (:data:`UNREADABLE`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.web.query import NotNow
from storage.audit import Report
from storage.chain import ranges
from storage.ledger import Anchor
from storage.signing import PublicKey
from storage.store import Store

__all__ = ["AGAIN_AFTER", "UNREADABLE", "Checked", "IntegrityCheck", "unreadable"]

UNREADABLE = (ValueError, TypeError, AttributeError, LookupError, ArithmeticError)
"""What reading a stored value the bot never writes raises (a JSON column that is not
JSON, a number that is text, bytes for text), rather than the database being out of
reach: the records were changed outside the bot."""


def unreadable(error: Exception, where: str) -> str:
    """A problem's words for ``error``, raised reading ``where``."""
    said = " ".join(str(error).split())[:160]
    return (f"{where} cannot be read as the bot writes it ({type(error).__name__}: {said}): "
            "changed outside the bot?")


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
