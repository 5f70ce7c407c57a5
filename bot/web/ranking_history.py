"""The ranking history worked out off the request path and kept: one chart per ledger
head proved (and rows found not to hold), made in a thread of its own from one read of
the ledger (:mod:`bot.web.ranking`), one walk at a time. A page waits a moment for a
new one (a small club's walk takes milliseconds), then shows the one it has (saying
of which head) rather than keep its visitor waiting. A walk slower than that (a busy
club's) is not started again within ``REDRAW_SECONDS`` of the last one's start."""

from __future__ import annotations

import logging
import threading
import time

from starlette.requests import Request

from bot.web.ranking import RankChart, rank_chart, ranking
from storage.ledger import Anchor
from storage.store import Store

__all__ = ["REDRAW_SECONDS", "WAIT_SECONDS", "Drawn", "RankingHistory", "ranking_history"]

log = logging.getLogger(__name__)

WAIT_SECONDS = 0.3
"""How long a page waits for a new chart before it shows the one it has."""
REDRAW_SECONDS = 60.0
"""After a walk slower than ``WAIT_SECONDS``, how long from its start until the next."""
_MADE = threading.Lock()

Drawn = tuple[RankChart, Anchor]
"""A chart and the ledger head it was drawn through."""


class RankingHistory:
    """The newest chart, and the thread drawing the next one."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._drawn: Drawn | None = None
        self._key: tuple[int, str, int] | None = None
        self._walking: threading.Event | None = None
        self._next_at = 0.0
        """When the next walk may start (``time.monotonic``)."""

    def chart(self, head: Anchor, failed: frozenset[int],
              wait: float = WAIT_SECONDS) -> tuple[Drawn | None, float]:
        """The chart through ``head`` (the rows ``failed`` counting for nothing), drawn
        now or within ``wait`` seconds; else the newest one drawn (None: none yet), and
        in how many seconds a newer one is started (0: it is being drawn)."""
        key = (head.id, head.mac, len(failed))
        with self._lock:
            if key == self._key:
                return self._drawn, 0.0
            if self._walking is None:
                later = self._next_at - time.monotonic()
                if later > 0:
                    return self._drawn, later
                self._walking = threading.Event()
                threading.Thread(target=self._draw, args=(key, head, failed, self._walking),
                                 name="ranking-history", daemon=True).start()
            done = self._walking
        done.wait(wait)
        with self._lock:
            return self._drawn, 0.0

    def _walk(self, head: Anchor, failed: frozenset[int]) -> RankChart:
        found: list[RankChart] = []
        self._store.ranking_rows(head.id, lambda rows: found.append(
            rank_chart(*ranking(rows, failed))))
        return found[0]

    def _draw(self, key: tuple[int, str, int], head: Anchor, failed: frozenset[int],
              done: threading.Event) -> None:
        start = time.monotonic()
        try:
            chart = self._walk(head, failed)
            with self._lock:
                if self._key is None or key[0] >= self._key[0]:
                    self._key, self._drawn = key, (chart, head)
        except Exception:   # the page shows the chart it has; the next page tries again
            log.exception("the ranking history could not be drawn")
        finally:
            with self._lock:
                self._walking = None
                if time.monotonic() - start > WAIT_SECONDS:
                    self._next_at = start + REDRAW_SECONDS
            done.set()


def ranking_history(request: Request, store: Store) -> RankingHistory:
    """The app's one ``RankingHistory``, made when first asked for."""
    state = request.app.state
    with _MADE:
        if getattr(state, "ranking_history", None) is None:
            state.ranking_history = RankingHistory(store)
        history: RankingHistory = state.ranking_history
    return history
