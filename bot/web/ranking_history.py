"""The ranking history worked out off the request path and kept: one chart per ledger
head proved (and rows found not to hold), made in a thread of its own from one read of
the ledger (:mod:`bot.web.ranking`). A page waits a moment for a new one, then shows
the one it has (saying of which head) rather than keep its visitor waiting."""

from __future__ import annotations

import logging
import threading

from starlette.requests import Request

from bot.web.ranking import RankChart, rank_chart, ranking
from storage.ledger import Anchor
from storage.store import Store

__all__ = ["WAIT_SECONDS", "Drawn", "RankingHistory", "ranking_history"]

log = logging.getLogger(__name__)

WAIT_SECONDS = 2.0
"""How long a page waits for a new chart before it shows the one it has."""
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
        self._next: tuple[tuple[int, str, int], threading.Event] | None = None

    def chart(self, head: Anchor, failed: frozenset[int],
              wait: float = WAIT_SECONDS) -> Drawn | None:
        """The chart through ``head`` (the rows ``failed`` counting for nothing), drawn
        now or within ``wait`` seconds; else the newest one drawn (None: none yet)."""
        key = (head.id, head.mac, len(failed))
        with self._lock:
            if key == self._key:
                return self._drawn
            if self._next is None or self._next[0] != key:
                done = threading.Event()
                self._next = key, done
                threading.Thread(target=self._draw, args=(key, head, failed, done),
                                 name="ranking-history", daemon=True).start()
            done = self._next[1]
        done.wait(wait)
        with self._lock:
            return self._drawn

    def _draw(self, key: tuple[int, str, int], head: Anchor, failed: frozenset[int],
              done: threading.Event) -> None:
        try:
            found: list[RankChart] = []
            self._store.ranking_rows(head.id, lambda rows: found.append(
                rank_chart(*ranking(rows, failed))))
            with self._lock:
                if self._key is None or key[0] >= self._key[0]:
                    self._key, self._drawn = key, (found[0], head)
        except Exception:   # the page shows the chart it has; the next page tries again
            log.exception("the ranking history could not be drawn")
        finally:
            with self._lock:
                if self._next is not None and self._next[0] == key:
                    self._next = None
            done.set()


def ranking_history(request: Request, store: Store) -> RankingHistory:
    """The app's one ``RankingHistory``, made when first asked for."""
    state = request.app.state
    with _MADE:
        if getattr(state, "ranking_history", None) is None:
            state.ranking_history = RankingHistory(store)
        history: RankingHistory = state.ranking_history
    return history
