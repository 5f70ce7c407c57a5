"""Where the referee's work runs: off the event loop every channel shares, in two lanes.

The *records* lane is one thread that runs, in order, everything that may write the
club's records or change a fight (commands, the clock's ticks, resume lines); writing
commands that arrive together share one transaction there (group commit,
:mod:`bot.chat.records_lane`). The *talk* lane is another thread for what only reads or
talks (``!roll``, ``!help``, ``!sheet``, ``!status``, ``!odds``, ``!mod login``,
refusals of unknown commands). A database another process holds locked delays only the
records lane; the event loop keeps the connection alive and every other answer flows.

A chat line's lane is chosen once, as it is queued, and the referee is told which
(:meth:`bot.referee.Referee.handle`): a line queued as a reader that writes when it runs
(a ``!roll`` that a fight opened meanwhile made a fight roll) does nothing on the talk
lane and is queued again on the records lane.

A line that needs nothing from storage (``!roll`` that is no fight roll, ``!help``, the
refusal of an unknown command) is answered at once on the event loop, with no hand-off,
when the referee can tell without waiting that the club's settings it keeps are current
(:meth:`bot.referee.Referee.storage_free`: on SQLite, ``PRAGMA data_version``), and no
earlier line of the same channel (or of the same sender, in private) is still in a lane:
an answer never overtakes an earlier one of its channel. Otherwise it takes the talk lane
as any reader (docs/operations.md, "Lines that need no storage").
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from bot.chat.records_lane import MOST, RecordsLane, Referee, Work
from bot.messages import Incoming, Outgoing
from bot.refusals import WritesAfterAll

__all__ = ["Lanes"]

Guard = Callable[[Callable[[], list[Outgoing]]], list[Outgoing] | None]


class Lanes:
    """The two lanes; ``window`` is group commit's, in seconds (0: each command alone)."""

    def __init__(self, window: float = 0.0, most: int = MOST) -> None:
        self._records = RecordsLane(window, most)
        self._talk = ThreadPoolExecutor(1, thread_name_prefix="talk")
        self._waiting: dict[str, int] = {}
        """Per channel (or private sender), its chat lines in a lane, not yet answered;
        touched on the event loop only."""
        self.handed_off = 0
        """How many chat lines went to a lane (the rest were answered on the loop)."""

    def run(self, writes: bool, work: Work,
            deliver: Callable[[list[Outgoing]], None]) -> asyncio.Future[list[Outgoing] | None]:
        """Run ``work`` in its lane, alone; ``deliver`` gets its lines back on the event
        loop."""
        return _delivered(self._records.submit(work) if writes else self._talk.submit(work),
                          deliver)

    def line(self, referee: Referee, msg: Incoming, guard: Guard,
             deliver: Callable[[list[Outgoing]], None]) -> None:
        """Answer one chat line: at once when it needs no storage and nothing of its
        channel waits in a lane (:meth:`Referee.storage_free`), else on the lane
        :meth:`Referee.writes` picks now (``guard`` keeps the referee's failures off the
        loop), on the records lane when it turns out to write."""
        key = self._key(referee, msg) if self._waiting else None  # none waits: none needed
        if (key is None or key not in self._waiting) and referee.storage_free(msg):
            said = guard(lambda: referee.handle(msg, False, True))
            if said is not None:
                deliver(said)
            return
        waits = key or self._key(referee, msg)
        self.handed_off += 1
        self._waiting[waits] = self._waiting.get(waits, 0) + 1

        def answered(said: list[Outgoing]) -> None:
            self._waiting[waits] -= 1
            if not self._waiting[waits]:
                del self._waiting[waits]
            deliver(said)

        self._handed(referee, msg, guard, answered)

    @staticmethod
    def _key(referee: Referee, msg: Incoming) -> str:
        """What an answer must not overtake: the channel, or in private the sender."""
        return referee.services.identity.fold(msg.channel or f"private:{msg.sender.nick}")

    def _handed(self, referee: Referee, msg: Incoming, guard: Guard,
                deliver: Callable[[list[Outgoing]], None]) -> None:
        """:meth:`line` in a lane."""
        if referee.writes(msg):
            self._command(referee, msg, guard, deliver)
            return
        moved = threading.Event()

        def handle() -> list[Outgoing]:
            try:
                return referee.handle(msg, False)
            except WritesAfterAll:
                moved.set()
                return []

        def talked(said: list[Outgoing]) -> None:
            if not moved.is_set():   # else its answer comes from the records lane
                deliver(said)

        def again(_finished: asyncio.Future[list[Outgoing] | None]) -> None:
            if moved.is_set():
                self._command(referee, msg, guard, deliver)

        self.run(False, lambda: guard(handle), talked).add_done_callback(again)

    def _command(self, referee: Referee, msg: Incoming, guard: Guard,
                 deliver: Callable[[list[Outgoing]], None]) -> None:
        """A writing command, on the records lane, where it may share a transaction."""
        _delivered(self._records.submit(lambda: guard(lambda: referee.handle(msg, True)),
                                        referee, msg), deliver)

    def close(self) -> None:
        """Stop taking work; what waits is dropped, and what runs finishes before this
        returns, so the store's connections can be closed after it."""
        self._records.close()
        self._talk.shutdown(wait=True, cancel_futures=True)


def _delivered(future: Future[list[Outgoing] | None],
               deliver: Callable[[list[Outgoing]], None]) -> asyncio.Future[list[Outgoing] | None]:
    """``future`` on the running event loop, its lines to ``deliver`` when it is done."""
    waited = asyncio.wrap_future(future)

    def done(finished: asyncio.Future[list[Outgoing] | None]) -> None:
        if not finished.cancelled() and finished.exception() is None:
            deliver(finished.result() or [])

    waited.add_done_callback(done)
    return waited
