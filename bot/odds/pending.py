"""The odds requests of a referee: who may ask for odds now, the jobs out on its workers,
and their answers, which go out through :attr:`OddsRequests.deliver_answers` when they
are ready.

A request is one or more :class:`Job`; each names its shard, the worker that keeps the
chain it needs (the shard modulo the number of workers), and the answer is made once
all of them are done.

Limits: one request at a time per channel, ``OUT`` at once over all, and one accepted
request per player (identity) per ``WINDOW`` seconds of the referee's clock, in a
channel or in private.
An answer about a fight is checked when it is ready: if the fight has moved on it
says which turn it was for; if the fight ended (or another began) it is dropped.

Answers are finished on the thread of the worker done last; the lock covers the
requests' own state, and the fight is read there as one attribute (fights are immutable snapshots).
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from bot.messages import Outgoing
from bot.odds.worker import start_workers
from bot.refusals import Refusal

__all__ = ["AHEAD_FIGHTS", "AHEAD_PIECES", "OUT", "WINDOW", "Job", "OddsRequests",
           "admit", "ahead", "ask", "attach", "close", "wait", "workers"]

log = logging.getLogger("ancath.odds")

T = TypeVar("T")

WINDOW = 30.0
"""Seconds between two accepted ``!odds`` of one player."""
OUT = 4
"""Requests out at once, over every channel and private message: beyond it, "ask again
in a moment" (each worker answers one job at a time; a cold chain takes it a second)."""
AHEAD_FIGHTS = 3
"""Fights worked out ahead at once (fewer than the chains a worker keeps)."""
AHEAD_PIECES = 1000
"""Runs of work ahead per fight and range at most."""


@dataclass(frozen=True)
class Job(Generic[T]):
    """One picklable piece of a request, and the shard whose worker runs it."""

    run: Callable[[], T]
    shard: int = 0
    """The worker is ``shard`` modulo their number: the one that keeps the chain."""


@dataclass
class OddsRequests:
    """One referee's ``!odds`` requests: its workers (none until :func:`attach`), the
    requests out, who asked lately, and where answers go once ready
    (``deliver_answers``, which the transport sets; it may be called from another
    thread)."""

    workers: list[Executor] = field(default_factory=list)
    busy: set[str] = field(default_factory=set)
    """Channels (casefolded) with a request out."""
    asked: dict[str, float] = field(default_factory=dict)
    """Identity -> when their last accepted request came, within the window."""
    out: int = 0
    closed: bool = False
    changed: threading.Condition = field(default_factory=threading.Condition)
    ahead: bool = False
    """Whether work ahead (:func:`ahead`) is done here."""
    working: int = 0
    """Fights being worked out ahead now."""
    deliver_answers: Callable[[list[Outgoing]], None] = lambda _out: None



class HasOdds(Protocol):
    """What holds the odds requests: a referee, or the services its commands get."""

    @property
    def odds(self) -> OddsRequests: ...


def attach(owner: HasOdds, workers: Executor | Sequence[Executor], *,
           work_ahead: bool = False) -> None:
    """Give ``owner``'s requests ``workers`` (one executor each, running one job at a time),
    afresh; with ``work_ahead`` it also does the work :func:`ahead` asks for (a bot on
    IRC; a console script would wait for it at its end)."""
    listed = [workers] if isinstance(workers, Executor) else list(workers)
    assert listed, "the odds requests needs a worker"
    requests = owner.odds
    with requests.changed:
        requests.workers, requests.ahead, requests.closed = listed, work_ahead, False
        requests.busy, requests.asked, requests.out, requests.working = set(), {}, 0, 0


def workers(owner: HasOdds) -> Sequence[Executor]:
    """Where ``owner``'s odds jobs run."""
    return owner.odds.workers


def _submit(requests: OddsRequests, job: Job[T]) -> Future[T]:
    """``job`` sent to its worker; a worker process that died (killed, out of memory) is
    replaced by a new one, logged, and the job sent there."""
    index = job.shard % len(requests.workers)
    try:
        return requests.workers[index].submit(job.run)
    except BrokenExecutor:
        with requests.changed:
            broken = requests.workers[index]
            if requests.closed or not isinstance(broken, ProcessPoolExecutor):
                raise
            log.warning("odds worker %d died; starting a new one", index)
            requests.workers[index] = start_workers(1)[0]
        broken.shutdown(wait=False, cancel_futures=True)
        return requests.workers[index].submit(job.run)


def ahead(owner: HasOdds, pieces: Sequence[Job[bool]], alive: Callable[[], bool]) -> None:
    """Run each of ``pieces`` on its worker again and again until it returns True or
    ``alive()`` turns False (its fight ended), each run queued behind the requests
    already waiting, so a request waits for the pieces already queued on its worker,
    one per fight worked out ahead at most (a piece may overrun its time by the solve
    that ends it); at most ``AHEAD_FIGHTS`` fights at once and ``AHEAD_PIECES`` runs of
    each piece. Nothing where the requests does no work ahead; a failure is logged and ends
    that piece's runs."""
    requests = owner.odds
    with requests.changed:
        if not requests.ahead or requests.working >= AHEAD_FIGHTS or not pieces:
            return
        requests.working += 1
    left = len(pieces)

    def finished() -> None:
        nonlocal left
        with requests.changed:
            left -= 1
            if left == 0:
                requests.working -= 1

    for piece in pieces:
        _repeat(requests, piece, alive, finished)


def _repeat(requests: OddsRequests, piece: Job[bool], alive: Callable[[], bool],
            finished: Callable[[], None]) -> None:
    """Run ``piece`` until it is done (see :func:`ahead`), then call ``finished``."""
    runs = 0

    def again(future: Future[bool]) -> None:
        error = None if future.cancelled() else future.exception()
        if error is not None:
            log.error("odds work ahead failed", exc_info=error)
        elif (not future.cancelled() and not future.result() and not requests.closed
              and runs < AHEAD_PIECES and alive()):
            submit()
            return
        finished()

    def submit() -> None:
        nonlocal runs
        runs += 1
        try:
            future = _submit(requests, piece)
        except RuntimeError as error:  # shut down meanwhile, or no worker to be had
            if not requests.closed:
                log.error("odds work ahead stopped", exc_info=error)
            finished()
            return
        future.add_done_callback(again)

    submit()


def _check(requests: OddsRequests, who: str, channel: str | None, now: float) -> None:
    """Refuse a request beyond the limits (the requests's lock held)."""
    last = requests.asked.get(who)
    if last is not None and now - last < WINDOW:
        raise Refusal(f"one !odds per player every {WINDOW:.0f} s; "
                      f"ask again in {math.ceil(WINDOW - (now - last))} s")
    if channel in requests.busy:
        raise Refusal("the odds asked for here are still being worked out; "
                      "ask again once they are out")
    if requests.out >= OUT:
        raise Refusal(f"{OUT} !odds are being worked out already; ask again in a minute")


def admit(requests: OddsRequests, who: str, channel: str | None, now: float) -> None:
    """Refuse, naming when to ask again, a request of ``who`` (in ``channel``, casefolded)
    beyond the limits: first, so a refusal costs the event loop next to nothing."""
    with requests.changed:
        _check(requests, who, channel, now)


def ask(requests: OddsRequests, who: str, channel: str | None, now: float, jobs: Sequence[Job[T]],
        answer: Callable[[list[T]], str | None], reply: Callable[[str], list[Outgoing]],
        ) -> None:
    """Run ``jobs`` for ``who`` and send ``reply(answer(their results, in order))`` once
    all are done (nothing when the answer is None). Counts against the limits (refuses
    beyond them) as one request."""
    assert jobs, "a request has at least one job"
    with requests.changed:
        _check(requests, who, channel, now)
        requests.asked = {w: at for w, at in requests.asked.items() if now - at < WINDOW}
        requests.asked[who] = now
        if channel is not None:
            requests.busy.add(channel)
        requests.out += 1

    futures: list[Future[T]] = []
    left = len(jobs)

    def done(_future: Future[T]) -> None:
        nonlocal left
        with requests.changed:
            left -= 1
            if left:
                return
        out: list[Outgoing] = []
        try:
            text = _answer(futures, answer)
            if text is not None:
                out = reply(text)
        finally:
            with requests.changed:
                if out and not requests.closed:
                    requests.deliver_answers(out)
                _release(requests, channel)

    try:
        futures.extend(_submit(requests, job) for job in jobs)
    except Exception:
        for future in futures:
            future.cancel()
        with requests.changed:
            requests.asked.pop(who, None)
            _release(requests, channel)
        raise
    for future in futures:
        future.add_done_callback(done)


def _release(requests: OddsRequests, channel: str | None) -> None:
    """One request less out (the requests's lock held)."""
    if channel is not None:
        requests.busy.discard(channel)
    requests.out -= 1
    requests.changed.notify_all()


def _answer(futures: list[Future[T]], answer: Callable[[list[T]], str | None]) -> str | None:
    """The reply line, or None when there is nothing worth saying."""
    if any(future.cancelled() for future in futures):
        return None
    errors = [error for error in (future.exception() for future in futures) if error]
    if errors and all(isinstance(error, BrokenExecutor) for error in errors):
        log.warning("an odds worker died during a job; the next request starts a new one")
        return "the odds went wrong on my side (a worker stopped); ask again"
    if errors:
        log.error("odds job failed", exc_info=errors[0])
        return "the odds went wrong on my side; a moderator can check the log"
    return answer([future.result() for future in futures])


def wait(owner: HasOdds, timeout: float) -> bool:
    """Wait until every answer is out (or dropped); False if ``timeout`` passed first."""
    requests = owner.odds
    with requests.changed:
        return requests.changed.wait_for(lambda: requests.out == 0, timeout)


def close(owner: HasOdds) -> None:
    """Drop the answers not yet out, cancel the jobs not started and stop the workers,
    waiting for the jobs running and each executor's own thread (one left running races
    the interpreter's exit: a traceback in the log); again is harmless."""
    requests = owner.odds
    with requests.changed:
        requests.closed = True
    for worker in requests.workers:   # a second shutdown would not wait: one that does
        worker.shutdown(wait=True, cancel_futures=True)
