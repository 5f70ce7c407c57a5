"""Where ``!odds`` chains are solved: worker processes beside the event loop, one per
core (a fight's two ranges solve at once, :mod:`bot.odds.advisor`), or, for tests and
transcripts, the caller's own thread."""

from __future__ import annotations

import importlib
import multiprocessing
import multiprocessing.connection
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import ParamSpec, TypeVar

__all__ = ["NICENESS", "WORKERS", "InlineExecutor", "below_and_watching", "start_workers"]

P = ParamSpec("P")
T = TypeVar("T")

NICENESS = 10
"""The workers yield the CPU to the bot's event loop when both want it."""
WORKERS = 2
"""Worker processes: one per range of a fight (and this machine has two cores)."""


def below_and_watching(watch: str) -> None:
    """A worker process's start: below its parent (the bot, the web server) in
    priority, and a thread named ``watch`` on the parent: a worker whose parent was
    killed would otherwise wait for jobs forever (it holds its own job queue open)."""
    os.nice(NICENESS)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), name=watch,
                         daemon=True).start()


def _warm() -> None:
    """The worker's start: below the bot and watching it, the advisor imported."""
    below_and_watching("odds-watch")
    importlib.import_module("bot.odds.advisor")
    importlib.import_module("bot.odds.linear")


def _exit_with(sentinel: int) -> None:
    """Exit as soon as the parent's process has ended."""
    multiprocessing.connection.wait([sentinel])
    os._exit(1)


def start_workers(count: int = WORKERS, *, warm: bool = True) -> list[ProcessPoolExecutor]:
    """``count`` worker processes, each its own executor running one job at a time (a
    job goes to the worker that keeps its chain), spawned, so no thread of the bot is
    forked; starting now so the first ``!odds`` does not wait for them. With
    ``warm=False`` (the console, which a script may start for a few lines) each starts
    with its first job instead."""
    workers = [ProcessPoolExecutor(max_workers=1, initializer=_warm,
                                   mp_context=multiprocessing.get_context("spawn"))
               for _ in range(count)]
    if warm:
        for worker in workers:
            worker.submit(os.getpid)  # a worker starts with its first job
    return workers


class InlineExecutor(Executor):
    """Runs each job before ``submit`` returns, in the caller's thread: the answer is
    ready at once and in order."""

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as error:
            future.set_exception(error)
        return future
