"""The records lane: one thread that runs, in order, everything that may write, and
group commit, writing chat commands that arrive together sharing one transaction.

Work is taken in the order it was queued. A writing chat command takes with it the
commands queued behind it, and those that arrive within the window (``group_commit_ms``,
about a millisecond), up to ``most``; anything else (the clock's tick, a resume line)
ends the batch and runs after it, alone. A batch (:func:`together`) runs each command in
order in a savepoint of its own (:func:`bot.chat.units.batch_unit`): a command refused,
or failing after it wrote, takes back only its own rows, memory and lines, as alone, and
each command sees what the ones before it did. The batch commits once, with one sync to
disk; only then is the memory of its commands published and are their lines handed back,
in order, to be said. When the batch itself fails (its commit, a lock, the database file
replaced, a savepoint that would not settle) none of it is kept, nothing of it was said,
and each command runs again alone, in its own unit, answered as if it had come alone;
except when its COMMIT failed and the database cannot say whether it was kept
(``CommitUnknown``): run again, it could be kept twice (BP given twice), so each command
gets that one line instead, and the log has it. A window of 0 runs every command alone,
as before group commit.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.chat.messages import Incoming, Outgoing
from bot.chat.units import batch_unit
from storage.errors import CommitUnknown

if TYPE_CHECKING:
    from bot.referee import Referee

__all__ = ["MOST", "RecordsLane", "together"]

log = logging.getLogger("ancath.records")

MOST = 64
"""The most commands one batch takes."""

Work = Callable[[], list[Outgoing] | None]


def together(referee: Referee, works: Sequence[Work],
             msgs: Sequence[Incoming | None]) -> list[list[Outgoing] | None]:
    """The answers of ``works``, writing commands of ``referee`` (the chat lines
    ``msgs``) that never raise, run in one transaction when there are several; each
    alone when that transaction fails, and none again when its commit's outcome is
    unknown."""
    if len(works) < 2:
        return [work() for work in works]
    try:
        with batch_unit(referee) as batch:
            answers = []
            for work in works:
                answers.append(work())
                if batch.broken:
                    break   # the batch raises as it ends
        return answers
    except CommitUnknown as error:
        log.error("a batch of %d commands: its commit failed and may have been kept; "
                  "none is run again", len(works))
        return [referee.unconfirmed(msg, error) if msg is not None else None
                for _work, msg in zip(works, msgs, strict=True)]
    except Exception as error:
        log.warning("a batch of %d commands was not committed (%s: %s); each runs again "
                    "alone", len(works), type(error).__name__, error)
        return [work() for work in works]


@dataclass(eq=False)
class _Job:
    work: Work
    referee: Referee | None
    """A writing chat command's referee (commands of one referee may run together);
    None for other work, which runs alone."""
    msg: Incoming | None
    """The chat line of such a command."""
    future: Future[list[Outgoing] | None] = field(default_factory=Future)


class RecordsLane:
    """The records lane's thread and its queue; ``window`` in seconds (0: no batches)."""

    def __init__(self, window: float = 0.0, most: int = MOST) -> None:
        self.window, self.most = window, most
        self._queue: deque[_Job] = deque()
        self._changed = threading.Condition()
        self._closed = False
        threading.Thread(target=self._serve, name="records", daemon=True).start()

    def submit(self, work: Work, referee: Referee | None = None, msg: Incoming | None = None,
               ) -> Future[list[Outgoing] | None]:
        """Queue ``work``; with ``referee``, a writing chat command (the line ``msg``)
        that may join others."""
        job = _Job(work, referee, msg)
        with self._changed:
            if self._closed:
                raise RuntimeError("the records lane is closed")
            self._queue.append(job)
            self._changed.notify()
        return job.future

    def close(self) -> None:
        """Stop taking work; what runs finishes, what waits is dropped."""
        with self._changed:
            self._closed = True
            for job in self._queue:
                job.future.cancel()
            self._queue.clear()
            self._changed.notify()

    def _serve(self) -> None:
        while jobs := self._take():
            live = [job for job in jobs if job.future.set_running_or_notify_cancel()]
            try:
                referee = live[0].referee if live else None
                answers = together(referee, [job.work for job in live],
                                   [job.msg for job in live]) if referee \
                    else [job.work() for job in live]
            except BaseException as error:
                for job in live:
                    job.future.set_exception(error)
                continue
            for job, answer in zip(live, answers, strict=True):
                job.future.set_result(answer)

    def _take(self) -> list[_Job]:
        """The next job, and the commands that join it (queued behind it, or arriving
        within the window, up to ``most``); none once the lane is closed."""
        with self._changed:
            while not self._queue:
                if self._closed:
                    return []
                self._changed.wait()
            jobs = [self._queue.popleft()]
            if jobs[0].referee is None or self.window <= 0:
                return jobs
            deadline = time.monotonic() + self.window
            while len(jobs) < self.most and not self._closed:
                if self._queue:
                    if self._queue[0].referee is not jobs[0].referee:
                        break
                    jobs.append(self._queue.popleft())
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(left)
            return jobs
