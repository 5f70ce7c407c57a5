"""The odds desk of a referee: who may ask for odds now, the jobs out on its executor,
and their answers, which go out through ``Referee.later`` when they are ready.

Limits: one request at a time per channel, ``OUT`` at once over all, and one accepted
request per player (identity) per ``WINDOW`` seconds of the referee's clock, in a
channel or in private.
An answer about a fight is checked when it is ready: if the fight has moved on it
says which turn it was for; if the fight ended (or another began) it is dropped.

Answers are finished on the executor's thread; the desk's lock covers its own state,
and the fight is read there as one attribute (fights are immutable snapshots).
"""

from __future__ import annotations

import logging
import math
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from bot.chat.registry import Ctx, Refusal
from storage.store import OpenFight

if TYPE_CHECKING:
    from bot.referee import Referee

__all__ = ["AHEAD_FIGHTS", "AHEAD_PIECES", "OUT", "WINDOW", "admit", "ahead", "ask", "attach",
           "close", "executor", "wait"]

log = logging.getLogger("ancath.odds")

T = TypeVar("T")

WINDOW = 30.0
"""Seconds between two accepted ``!odds`` of one player."""
OUT = 4
"""Requests out at once, over every channel and private message: beyond it, "ask again
in a moment" (the worker answers one at a time; a cold chain takes it seconds)."""
AHEAD_FIGHTS = 3
"""Fights worked out ahead at once (fewer than the chains the worker keeps)."""
AHEAD_PIECES = 400
"""Runs of work ahead per fight at most (about 100 s of the worker's time)."""


@dataclass
class _Desk:
    executor: Executor
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


def attach(referee: Referee, executor: Executor, *, work_ahead: bool = False) -> None:
    """Give ``referee`` a desk whose jobs run on ``executor``; with ``work_ahead`` it
    also does the work :func:`ahead` asks for (a bot on IRC; a console script would wait
    for it at its end)."""
    _DESKS[referee] = _Desk(executor, ahead=work_ahead)


def executor(referee: Referee) -> Executor:
    """Where ``referee``'s odds jobs run."""
    return _DESKS[referee].executor


def ahead(referee: Referee, piece: Callable[[], bool], alive: Callable[[], bool]) -> None:
    """Run ``piece`` on the executor again and again until it returns True or
    ``alive()`` turns False (its fight ended), each run queued behind the requests
    already waiting, so a request waits for one piece at most; at most ``AHEAD_FIGHTS``
    at once and ``AHEAD_PIECES`` runs each. Nothing where the desk does no work ahead;
    a failure is logged and ends it."""
    desk = _DESKS[referee]
    with desk.changed:
        if not desk.ahead or desk.working >= AHEAD_FIGHTS:
            return
        desk.working += 1
    runs = 0

    def again(future: Future[bool]) -> None:
        error = None if future.cancelled() else future.exception()
        if error is not None:
            log.error("odds work ahead failed", exc_info=error)
        elif (not future.cancelled() and not future.result() and not desk.closed
              and runs < AHEAD_PIECES and alive()):
            submit()
            return
        with desk.changed:
            desk.working -= 1

    def submit() -> None:
        nonlocal runs
        runs += 1
        try:
            desk.executor.submit(piece).add_done_callback(again)
        except RuntimeError:  # shut down meanwhile
            with desk.changed:
                desk.working -= 1

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


def ask(ctx: Ctx, job: Callable[[], T], answer: Callable[[T], str],
        fight: OpenFight | None = None) -> None:
    """Run ``job`` (picklable) for the sender and reply ``answer(result)`` later; about
    ``fight`` when given. Counts against the limits (refuses beyond them)."""
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

    def done(future: Future[T]) -> None:
        reply = Ctx(referee, ctx.msg, ctx.name, [])
        try:
            text = _answer(referee, future, answer, fight)
            if text is not None:
                reply.reply(text)
        finally:
            with desk.changed:
                if reply.out and not desk.closed:
                    referee.later(reply.out)
                _release(desk, channel)

    try:
        future = desk.executor.submit(job)
    except Exception:
        with desk.changed:
            desk.asked.pop(ctx.who, None)
            _release(desk, channel)
        raise
    future.add_done_callback(done)


def _release(desk: _Desk, channel: str | None) -> None:
    """One request less out (the desk's lock held)."""
    if channel is not None:
        desk.busy.discard(channel)
    desk.out -= 1
    desk.changed.notify_all()


def _answer(referee: Referee, future: Future[T], answer: Callable[[T], str],
            fight: OpenFight | None) -> str | None:
    """The reply line, or None when there is nothing worth saying."""
    if future.cancelled():
        return None
    error = future.exception()
    if error is not None:
        log.error("odds job failed", exc_info=error)
        return "the odds went wrong on my side; a moderator can check the log"
    text = answer(future.result())
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
    """Drop the answers not yet out, cancel the jobs not started and stop the executor
    (waiting for a running job); again is harmless."""
    desk = _DESKS.get(referee)
    if desk is None:
        return
    with desk.changed:
        desk.closed = True
    desk.executor.shutdown(wait=True, cancel_futures=True)
