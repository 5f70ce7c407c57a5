"""The win chances after each step of an An Cath fight's replay, under the odds
advisor's policy, exact as ``!odds`` works them out (:func:`bot.odds.advisor.chance_part`
over the ranges the question reaches, added up in the same order): worked out once per
fight, off the request path, in a worker process of the web server's own (started with
the first fight asked for, below the pages in priority), and kept in memory, keyed by
the fight's number and the digest of its setup and command log (a fight going on gets
new figures with each new command; an ended fight's never change), the least recently
shown going first. A page asks :meth:`WinChances.get`, which never waits: None while
they are being worked out."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import signal
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from bot.odds.advisor import chance_part, ranges
from bot.odds.worker import below_and_watching
from rules.ancath.state import FightState
from storage.records import FightSummary, LoggedCommand

__all__ = ["KEPT", "UNADVISED", "Chances", "WinChances", "digest", "of_fight", "work_out"]

KEPT = 128
"""How many fights' figures are kept (a few floats a step each)."""

UNADVISED = "No win chances: the odds advisor knows An Cath fights only."
Figures = tuple[tuple[float, float], ...]
"""Per step, the chance that each side wins from the state after it."""


@dataclass(frozen=True, slots=True)
class Chances:
    """A fight's win chances, or why there are none."""

    figures: Figures = ()
    problem: str | None = None
    """Why they could not be worked out (the advisor failed on this fight)."""


def work_out(states: Sequence[FightState]) -> Figures:
    """Each side's chance to win from each of ``states``, as ``!odds`` says it from
    there (an ended fight: its winner 1, a draw 0 for both)."""
    out = []
    for state in states:
        outcome = state.outcome
        if outcome is not None:
            out.append((float(outcome.winner == 0), float(outcome.winner == 1)))
            continue
        challenger = sum(chance_part(state, where) for where in ranges(state))
        out.append((challenger, 1 - challenger))
    return tuple(out)


def digest(summary: FightSummary, log: Sequence[LoggedCommand]) -> str:
    """What the figures depend on: the fight's setup and every stored command."""
    text = json.dumps([summary.setup, [row.data for row in log]], sort_keys=True,
                      default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _start() -> None:
    """The worker's start: below the pages in priority, gone with the server (as the
    bot's odds workers), and Ctrl-C left to the server, which stops it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    below_and_watching("chances-watch")


class WinChances:
    """The figures kept, and the one worker that works them out (``workers``: another
    executor, for the tests)."""

    def __init__(self, workers: Executor | None = None, kept: int = KEPT) -> None:
        self._workers = workers
        self._own = workers is None
        self._kept: OrderedDict[tuple[int, str], Chances] = OrderedDict()
        self._pending: dict[tuple[int, str], Future[Figures]] = {}
        self._lock = threading.RLock()   # an executor may call back at once
        self.kept = kept
        self.asked = 0
        """How many fights' figures were sent to be worked out."""

    def get(self, fight: int, log_digest: str, states: Sequence[Any]) -> Chances | None:
        """Fight ``fight``'s figures for the steps' ``states``, or None while they are
        being worked out (asked now, if they were not yet)."""
        key = (fight, log_digest)
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                return found
            if key not in self._pending:
                self.asked += 1
                future = self._executor().submit(work_out, list(states))
                self._pending[key] = future
                future.add_done_callback(lambda done: self._done(key, done))
        return self._kept.get(key)   # an executor that ran it at once

    def _executor(self) -> Executor:
        if self._workers is None:
            self._workers = ProcessPoolExecutor(
                max_workers=1, initializer=_start,
                mp_context=multiprocessing.get_context("spawn"))
        return self._workers

    def _done(self, key: tuple[int, str], future: Future[Figures]) -> None:
        error = future.exception()
        chances = Chances(problem=f"the win chances could not be worked out: {error}") \
            if error is not None else Chances(future.result())
        with self._lock:
            self._pending.pop(key, None)
            self._kept[key] = chances
            while len(self._kept) > self.kept:
                self._kept.popitem(last=False)

    def stop(self) -> None:
        """Stop the worker this started (the server is stopping), waiting for the job it
        runs and the executor's own thread (one left running races the interpreter's
        exit)."""
        if self._own and self._workers is not None:
            self._workers.shutdown(wait=True, cancel_futures=True)


def of_fight(kept: WinChances, summary: FightSummary, log: Sequence[LoggedCommand],
             states: Sequence[Any], advised: bool) -> Chances | None:
    """The figures of a replayed fight (``states``: after each step), the line saying
    why a system the advisor does not know has none, or None while being worked out."""
    if not advised:
        return Chances(problem=UNADVISED)
    return kept.get(summary.id, digest(summary, log), states)
