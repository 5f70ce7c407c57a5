"""Where the referee's work runs: off the event loop every channel shares, in two lanes.

The *records* lane is one thread that runs, in order, everything that may write the
club's records or change a fight (commands, the clock's ticks, resume lines). The *talk*
lane is another thread for what only reads or talks (``!roll``, ``!help``, ``!sheet``,
``!status``, ``!odds``, refusals of unknown commands). A database another process holds
locked delays only the records lane; the event loop keeps the connection alive and every
other answer flows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from bot.chat.messages import Outgoing

__all__ = ["Lanes"]

Work = Callable[[], list[Outgoing] | None]


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

    def close(self) -> None:
        """Stop taking work; what runs finishes, what waits is dropped."""
        for lane in (self._records, self._talk):
            lane.shutdown(wait=False, cancel_futures=True)
