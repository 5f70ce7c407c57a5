"""The odds desk of a referee: who may ask for odds now, the jobs out on its workers,
and their answers, which go out through ``Referee.later`` when they are ready.

A request is one or more :class:`Job`; each names its shard, the worker that keeps the
chain it needs (the shard modulo the number of workers), and the answer is made once
all of them are done.

Limits: one request at a time per channel, ``OUT`` at once over all, and one accepted
request per player (identity) per ``WINDOW`` seconds of the referee's clock, in a
channel or in private.
An answer about a fight is checked when it is ready: if the fight has moved on it
says which turn it was for; if the fight ended (or another began) it is dropped.

Answers are finished on the thread of the worker done last; the desk's lock covers its own state,
and the fight is read there as one attribute (fights are immutable snapshots).
"""

from __future__ import annotations

import logging
import math
import threading
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from bot.chat.registry import Ctx, Refusal
from bot.odds.worker import start_workers
from storage.store import OpenFight

if TYPE_CHECKING:
    from bot.referee import Referee

__all__ = ["AHEAD_FIGHTS", "AHEAD_PIECES", "OUT", "WINDOW", "Job", "admit", "ahead", "ask",
           "attach", "close", "wait", "workers"]

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
"""Runs of work ahead per fight and range at most (about 100 s of a worker's time)."""


@dataclass(frozen=True)
class Job(Generic[T]):
    """One picklable piece of a request, and the shard whose worker runs it."""

    run: Callable[[], T]
    shard: int = 0
    """The worker is ``shard`` modulo their number: the one that keeps the chain."""


@dataclass
class _Desk:
    workers: list[Executor]
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


_DESKS: weakref.WeakKeyDictionary[Referee, _Desk] = weakref.WeakKeyDictionary()


def attach(referee: Referee, workers: Executor | Sequence[Executor], *,
           work_ahead: bool = False) -> None:
    """Give ``referee`` a desk whose jobs run on ``workers`` (one executor each, running
    one job at a time); with ``work_ahead`` it also does the work :func:`ahead` asks for
    (a bot on IRC; a console script would wait for it at its end)."""
    listed = [workers] if isinstance(workers, Executor) else list(workers)
    assert listed, "the odds desk needs a worker"
    _DESKS[referee] = _Desk(listed, ahead=work_ahead)


def workers(referee: Referee) -> Sequence[Executor]:
    """Where ``referee``'s odds jobs run."""
    return _DESKS[referee].workers


def _submit(desk: _Desk, job: Job[T]) -> Future[T]:
    """``job`` sent to its worker; a worker process that died (killed, out of memory) is
    replaced by a new one, logged, and the job sent there."""
    index = job.shard % len(desk.workers)
    try:
        return desk.workers[index].submit(job.run)
    except BrokenExecutor:
        with desk.changed:
            broken = desk.workers[index]
            if desk.closed or not isinstance(broken, ProcessPoolExecutor):
                raise
            log.warning("odds worker %d died; starting a new one", index)
            desk.workers[index] = start_workers(1)[0]
        broken.shutdown(wait=False, cancel_futures=True)
        return desk.workers[index].submit(job.run)


def ahead(referee: Referee, pieces: Sequence[Job[bool]], alive: Callable[[], bool]) -> None:
    """Run each of ``pieces`` on its worker again and again until it returns True or
    ``alive()`` turns False (its fight ended), each run queued behind the requests
    already waiting, so a request waits for the pieces already queued on its worker,
    one per fight worked out ahead at most (a piece may overrun its time by the solve
    that ends it); at most ``AHEAD_FIGHTS`` fights at once and ``AHEAD_PIECES`` runs of
    each piece. Nothing where the desk does no work ahead; a failure is logged and ends
    that piece's runs."""
    desk = _DESKS[referee]
    with desk.changed:
        if not desk.ahead or desk.working >= AHEAD_FIGHTS or not pieces:
            return
        desk.working += 1
    left = len(pieces)

    def finished() -> None:
        nonlocal left
        with desk.changed:
            left -= 1
            if left == 0:
                desk.working -= 1

    for piece in pieces:
        _repeat(desk, piece, alive, finished)


def _repeat(desk: _Desk, piece: Job[bool], alive: Callable[[], bool],
            finished: Callable[[], None]) -> None:
    """Run ``piece`` until it is done (see :func:`ahead`), then call ``finished``."""
    runs = 0

    def again(future: Future[bool]) -> None:
        error = None if future.cancelled() else future.exception()
        if error is not None:
            log.error("odds work ahead failed", exc_info=error)
        elif (not future.cancelled() and not future.result() and not desk.closed
              and runs < AHEAD_PIECES and alive()):
            submit()
            return
        finished()

    def submit() -> None:
        nonlocal runs
        runs += 1
        try:
            future = _submit(desk, piece)
        except RuntimeError as error:  # shut down meanwhile, or no worker to be had
            if not desk.closed:
                log.error("odds work ahead stopped", exc_info=error)
            finished()
            return
        future.add_done_callback(again)

    submit()


def _channel(ctx: Ctx) -> str | None:
    return ctx.msg.channel.casefold() if ctx.msg.channel else None


def _check(desk: _Desk, ctx: Ctx, now: float) -> None:
    """Refuse a request beyond the limits (the desk's lock held)."""
    last = desk.asked.get(ctx.who)
    if last is not None and now - last < WINDOW:
        raise Refusal(f"one !odds per player every {WINDOW:.0f} s; "
                      f"ask again in {math.ceil(WINDOW - (now - last))} s")
    if _channel(ctx) in desk.busy:
        raise Refusal("the odds asked for here are still being worked out; "
                      "ask again once they are out")
    if desk.out >= OUT:
        raise Refusal(f"{OUT} !odds are being worked out already; ask again in a minute")


def admit(ctx: Ctx) -> None:
    """Refuse, naming when to ask again, a request beyond the limits: first, so a
    refusal costs the event loop next to nothing."""
    desk = _DESKS[ctx.referee]
    with desk.changed:
        _check(desk, ctx, ctx.referee.clock.now())


def ask(ctx: Ctx, jobs: Sequence[Job[T]], answer: Callable[[list[T]], str],
        fight: OpenFight | None = None) -> None:
    """Run ``jobs`` for the sender and reply ``answer(their results, in order)`` once all
    are done; about ``fight`` when given. Counts against the limits (refuses beyond
    them) as one request."""
    assert jobs, "a request has at least one job"
    referee = ctx.referee
    desk = _DESKS[referee]
    now = referee.clock.now()
    channel = _channel(ctx)
    with desk.changed:
        _check(desk, ctx, now)
        desk.asked = {who: at for who, at in desk.asked.items() if now - at < WINDOW}
        desk.asked[ctx.who] = now
        if channel is not None:
            desk.busy.add(channel)
        desk.out += 1

    futures: list[Future[T]] = []
    left = len(jobs)

    def done(_future: Future[T]) -> None:
        nonlocal left
        with desk.changed:
            left -= 1
            if left:
                return
        reply = Ctx(referee, ctx.msg, ctx.name, [])
        try:
            text = _answer(referee, futures, answer, fight)
            if text is not None:
                reply.reply(text)
        finally:
            with desk.changed:
                if reply.out and not desk.closed:
                    referee.later(reply.out)
                _release(desk, channel)

    try:
        futures.extend(_submit(desk, job) for job in jobs)
    except Exception:
        for future in futures:
            future.cancel()
        with desk.changed:
            desk.asked.pop(ctx.who, None)
            _release(desk, channel)
        raise
    for future in futures:
        future.add_done_callback(done)


def _release(desk: _Desk, channel: str | None) -> None:
    """One request less out (the desk's lock held)."""
    if channel is not None:
        desk.busy.discard(channel)
    desk.out -= 1
    desk.changed.notify_all()


def _answer(referee: Referee, futures: list[Future[T]], answer: Callable[[list[T]], str],
            fight: OpenFight | None) -> str | None:
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
    text = answer([future.result() for future in futures])
    if fight is None:
        return text
    table = referee.tables.get(fight.channel)
    now = table.fight if table is not None else None
    if now is None or now.id != fight.id:
        return None  # the fight ended: odds about it are no use to anyone
    if now.seq != fight.seq:
        text += f" (for turn {fight.state.progress})"
    return text


def wait(referee: Referee, timeout: float) -> bool:
    """Wait until every answer is out (or dropped); False if ``timeout`` passed first."""
    desk = _DESKS[referee]
    with desk.changed:
        return desk.changed.wait_for(lambda: desk.out == 0, timeout)


def close(referee: Referee) -> None:
    """Drop the answers not yet out, cancel the jobs not started and stop the workers
    (waiting for the jobs running); again is harmless."""
    desk = _DESKS.get(referee)
    if desk is None:
        return
    with desk.changed:
        desk.closed = True
    for worker in desk.workers:  # every queue emptied first, then the running jobs awaited
        worker.shutdown(wait=False, cancel_futures=True)
    for worker in desk.workers:
        worker.shutdown(wait=True)
