"""Where the referee's work runs: off the event loop every channel shares, in two lanes.

The *records* lane is one thread that runs, in order, everything that may write the
club's records or change a fight (commands, the clock's ticks, resume lines). The *talk*
lane is another thread for what only reads or talks (``!roll``, ``!help``, ``!sheet``,
``!status``, ``!odds``, ``!mod login``, refusals of unknown commands). A database
another process holds locked delays only the records lane; the event loop keeps the
connection alive and every other answer flows.

A chat line's lane is chosen once, as it is queued, and the referee is told which
(:meth:`bot.referee.Referee.handle`): a line queued as a reader that writes when it runs
(a ``!roll`` that a fight opened meanwhile made a fight roll) does nothing on the talk
lane and is queued again on the records lane.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from bot.chat.messages import Incoming, Outgoing
from bot.chat.registry import WritesAfterAll

if TYPE_CHECKING:
    from bot.referee import Referee

__all__ = ["Lanes"]

Work = Callable[[], list[Outgoing] | None]
Guard = Callable[[Callable[[], list[Outgoing]]], list[Outgoing] | None]


class Lanes:
    def __init__(self) -> None:
        self._records = ThreadPoolExecutor(1, thread_name_prefix="records")
        self._talk = ThreadPoolExecutor(1, thread_name_prefix="talk")

    def run(self, writes: bool, work: Work,
            deliver: Callable[[list[Outgoing]], None]) -> asyncio.Future[list[Outgoing] | None]:
        """Run ``work`` in its lane; ``deliver`` gets its lines back on the event loop."""
        lane = self._records if writes else self._talk
        future = asyncio.get_running_loop().run_in_executor(lane, work)

        def done(finished: asyncio.Future[list[Outgoing] | None]) -> None:
            if not finished.cancelled() and finished.exception() is None:
                deliver(finished.result() or [])

        future.add_done_callback(done)
        return future

    def line(self, referee: Referee, msg: Incoming, guard: Guard,
             deliver: Callable[[list[Outgoing]], None]) -> None:
        """Answer one chat line on the lane :meth:`Referee.writes` picks now (``guard``
        keeps the referee's failures off the loop); on the records lane when it turns
        out to write."""
        writes = referee.writes(msg)
        moved = threading.Event()

        def handle() -> list[Outgoing]:
            try:
                return referee.handle(msg, writes)
            except WritesAfterAll:
                moved.set()
                return []

        def work() -> list[Outgoing] | None:
            return guard(handle)

        def again(_finished: asyncio.Future[list[Outgoing] | None]) -> None:
            if moved.is_set():
                self.run(True, lambda: guard(lambda: referee.handle(msg, True)), deliver)

        self.run(writes, work, deliver).add_done_callback(again)

    def close(self) -> None:
        """Stop taking work; what runs finishes, what waits is dropped."""
        for lane in (self._records, self._talk):
            lane.shutdown(wait=False, cancel_futures=True)
