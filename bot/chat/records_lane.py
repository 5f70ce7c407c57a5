"""The records lane: one thread that runs, in order, everything that may write, and group
commit, writing chat commands that arrive together sharing one transaction.

Work is taken in the order it was queued. A writing chat command starts a batch at once,
and takes into it, as each command ends, the commands queued behind it and those that
arrive within the window of its start (``group_commit_ms``, about a millisecond), up to
``most``: the window runs while the batch works, never idle before it (waiting first
left the lane idle up to a window a batch: ``bench/README.md``); anything else (the
clock's tick, a resume line) ends the batch and runs after it, alone. A batch
(:func:`together`) runs each command in order in a savepoint of its own
(:func:`bot.chat.units.batch_unit`): a command refused, or failing after it wrote, takes
back only its own rows, memory and lines, as alone, and each command sees what the ones
before it did. The batch commits once, with one sync to disk; only then is the memory of
its commands published and are their lines handed back, in order, to be said. When the
batch itself fails (its commit, a lock, the database file replaced, a savepoint that
would not settle) none of it is kept, nothing of it was said, and each command runs
again alone, in its own unit, answered as if it had come alone; except when its COMMIT
failed and the database cannot say whether it was kept (``CommitUnknown``): run again,
it could be kept twice (BP given twice), so each command gets that one line instead, and
the log has it. A window of 0 runs every command alone, as before group commit.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from typing import Protocol

from bot.chat.units import batch_unit
from bot.commands.registry import Ctx, Services
from bot.messages import Incoming, Outgoing
from storage.errors import CommitUnknown, DatabaseUnreachable, RecordsBusy

__all__ = ["MOST", "RecordsLane", "Referee", "together"]

log = logging.getLogger("ancath.records")

MOST = 64
"""The most commands one batch takes."""

Work = Callable[[], list[Outgoing] | None]


class Referee(Protocol):
    """What answers chat lines (:class:`bot.referee.Referee`), as the lanes use it."""

    @property
    def services(self) -> Services: ...

    def writes(self, msg: Incoming) -> bool: ...

    def handle(self, msg: Incoming, writes: bool | None = None,
               current: bool = False) -> list[Outgoing]: ...

    def storage_free(self, msg: Incoming) -> bool: ...


def _refused(referee: Referee, msg: Incoming | None,
             error: CommitUnknown | RecordsBusy | DatabaseUnreachable) -> list[Outgoing] | None:
    """The answer to a command of a batch that is not run again, as it would be alone:
    the batch's commit may or may not have been kept, or the batch waited out another
    process's lock, or the database server is out of reach."""
    return None if msg is None else Ctx(referee.services, msg, "", []).answer(str(error))


def together(referee: Referee, jobs: Iterable[tuple[Work, Incoming | None]],
             ) -> list[list[Outgoing] | None]:
    """The answers of the jobs taken from ``jobs``, writing commands of ``referee`` (each
    a work that never raises, and its chat line) run in one transaction, each taken as
    the one before it ends, none once a savepoint broke the batch (the rest are left in
    ``jobs``); each again alone when that transaction fails (the first, when it could
    not begin), and none again when its commit's outcome is unknown, nor the first when
    the batch could not begin for another process's lock, nor any when the database
    server is out of reach (``DatabaseUnreachable``)."""
    jobs, taken = iter(jobs), []
    try:
        with batch_unit(referee.services) as batch:
            answers = []
            for job in jobs:
                taken.append(job)
                answers.append(job[0]())
                if batch.broken:
                    break   # the batch raises as it ends
        return answers
    except CommitUnknown as error:
        log.error("a batch of %d commands: its commit failed and may have been kept; "
                  "none is run again", len(taken))
        return [_refused(referee, msg, error) for _work, msg in taken]
    except Exception as error:
        if not taken:   # the batch could not begin: its first command is answered alone
            taken = list(islice(jobs, 1))
            if isinstance(error, RecordsBusy):   # run again, it would wait the lock out again
                return [_refused(referee, msg, error) for _work, msg in taken]
        if isinstance(error, DatabaseUnreachable):   # nothing kept; the store logged the
            return [_refused(referee, msg, error)   # outage once; run again, each would wait
                    for _work, msg in taken]
        log.warning("a batch of %d commands was not committed (%s: %s); each runs again "
                    "alone", len(taken), type(error).__name__, error)
        return [work() for work, _msg in taken]


@dataclass(eq=False)
class _Job:
    work: Work
    referee: Referee | None
    """A writing chat command's referee (commands of one referee may run together);
    None for other work, which runs alone."""
    msg: Incoming | None
    """The chat line of such a command."""
    future: Future[list[Outgoing] | None] = field(default_factory=Future)
    queued: float = field(default_factory=time.monotonic)


class RecordsLane:
    """The records lane's thread and its queue; ``window`` in seconds (0: no batches)."""

    def __init__(self, window: float = 0.0, most: int = MOST) -> None:
        self.window, self.most = window, most
        self._queue: deque[_Job] = deque()
        self._changed = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._serve, name="records", daemon=True)
        self._thread.start()

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
        """Stop taking work; what waits is dropped, and what runs finishes before this
        returns (its connection is back in the pool)."""
        with self._changed:
            self._closed = True
            for job in self._queue:
                job.future.cancel()
            self._queue.clear()
            self._changed.notify()
        self._thread.join()

    def _serve(self) -> None:
        while job := self._take():
            if not job.future.set_running_or_notify_cancel():
                continue
            if job.referee is None or self.window <= 0:
                self._settle([job], lambda: [job.work()])
                continue
            self._batch(job, job.referee)

    def _batch(self, first: _Job, referee: Referee) -> None:
        """``first`` and the commands that join it, run together."""
        batch = [first]   # answered even when the batch fails before it runs

        def jobs() -> Iterator[tuple[Work, Incoming | None]]:
            for joined in self._joining(first):
                if joined is not first:
                    batch.append(joined)
                yield joined.work, joined.msg

        self._settle(batch, partial(together, referee, jobs()))

    @staticmethod
    def _settle(jobs: list[_Job], run: Callable[[], list[list[Outgoing] | None]]) -> None:
        """``run()``'s answers to ``jobs``' futures (``jobs`` may grow as it runs)."""
        try:
            answers = run()
        except BaseException as error:
            for job in jobs:
                job.future.set_exception(error)
            return
        for job, answer in zip(jobs, answers, strict=True):
            job.future.set_result(answer)

    def _take(self) -> _Job | None:
        """The next job; None once the lane is closed."""
        with self._changed:
            while not self._queue:
                if self._closed:
                    return None
                self._changed.wait()
            return self._queue.popleft()

    def _joining(self, first: _Job) -> Iterator[_Job]:
        """``first``, then the commands that join its batch as each before ends: those
        of its referee queued behind it, or queued within the window of its start, up to
        ``most``; the batch ends at other work, or at one queued later (it waits for the
        next batch rather than make every command of this one wait for it longer)."""
        deadline, count = time.monotonic() + self.window, 1
        yield first
        while count < self.most:
            with self._changed:
                while not self._queue and not self._closed:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return
                    self._changed.wait(left)
                head = self._queue[0] if not self._closed else None
                if head is None or head.referee is not first.referee or head.queued > deadline:
                    return
                joined = self._queue.popleft()
            if joined.future.set_running_or_notify_cancel():
                count += 1
                yield joined
