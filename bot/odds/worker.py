"""Where ``!odds`` chains are solved: a worker process beside the event loop, or, for tests
and transcripts, the caller's own thread."""

from __future__ import annotations

import importlib
import multiprocessing
import multiprocessing.connection
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import ParamSpec, TypeVar

__all__ = ["NICENESS", "InlineExecutor", "start_worker"]

P = ParamSpec("P")
T = TypeVar("T")

NICENESS = 10
"""The worker yields the CPU to the bot's event loop when both want it."""


def _warm() -> None:
    """The worker's start: below the bot in priority, the advisor imported, and a
    watch on the bot: a worker whose bot was killed would otherwise wait for jobs
    forever (it holds its own job queue open)."""
    os.nice(NICENESS)
    importlib.import_module("bot.odds.advisor")
    importlib.import_module("bot.odds.linear")
    bot = multiprocessing.parent_process()
    if bot is not None:
        threading.Thread(target=_exit_with, args=(bot.sentinel,), name="odds-watch",
                         daemon=True).start()


def _exit_with(sentinel: int) -> None:
    """Exit as soon as the bot's process has ended."""
    multiprocessing.connection.wait([sentinel])
    os._exit(1)


def start_worker(*, warm: bool = True) -> ProcessPoolExecutor:
    """One worker process (spawned, so no thread of the bot is forked), starting now so
    the first ``!odds`` does not wait for it; with ``warm=False`` (the console, which
    a script may start for a few lines) it starts with the first ``!odds`` instead."""
    executor = ProcessPoolExecutor(max_workers=1, initializer=_warm,
                                   mp_context=multiprocessing.get_context("spawn"))
    if warm:
        executor.submit(os.getpid)  # a worker starts with its first job
    return executor


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
