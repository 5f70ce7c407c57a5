"""The real worker processes: two others, below the bot in priority, and a referee
built without workers answers ``!odds`` from them through ``OddsRequests.deliver_answers``."""

from __future__ import annotations

import logging
import os
import queue
import signal
import threading
import time
from concurrent.futures.process import _ExecutorManagerThread
from pathlib import Path

from bot.app import build_referee
from bot.config import BotConfig
from bot.messages import Incoming, Outgoing, Sender
from bot.odds import pending
from bot.odds.worker import NICENESS, WORKERS, start_workers
from bot.web.chances import WinChances


def test_the_workers_are_other_processes_below_the_bot() -> None:
    workers = start_workers()
    try:
        pids = {worker.submit(os.getpid).result(timeout=60) for worker in workers}
        assert len(pids) == WORKERS == 2 and os.getpid() not in pids
        for worker in workers:
            assert worker.submit(os.nice, 0).result(timeout=60) == min(19, os.nice(0) + NICENESS)
    finally:
        for worker in workers:
            worker.shutdown()


def test_the_pages_win_chance_worker_starts_as_the_odds_workers_do() -> None:
    """The web server's worker (``bot.web.chances``) starts through the same function
    as the bot's: below its parent in priority, with a thread watching the parent."""
    kept = WinChances()
    try:
        worker = kept._executor()
        assert worker.submit(os.nice, 0).result(timeout=60) == min(19, os.nice(0) + NICENESS)
        assert worker.submit(threading.active_count).result(timeout=60) == 2  # + the watch
    finally:
        kept.stop()


def test_a_referee_answers_from_its_worker(tmp_path: Path) -> None:
    referee = build_referee(BotConfig(database=str(tmp_path / "club.sqlite3")))
    answers: queue.Queue[list[Outgoing]] = queue.Queue()
    referee.odds.deliver_answers = answers.put
    try:
        for nick, text in (("gob", "!create Gorbag goblin club spear"),
                           ("olaf", "!create Olaf free-clans axe shield"),
                           ("ann", "!odds Olaf vs Gorbag duel")):
            out = referee.handle(Incoming(sender=Sender(nick=nick, account=nick), text=text,
                                          channel="#arena"))
        assert out == []  # accepted: the answer comes later
        (answer,) = answers.get(timeout=60)
        assert answer.target == "#arena"
        assert answer.text.startswith("ann: Olaf vs Gorbag (duel): Olaf wins")
        assert pending.wait(referee, 0)
    finally:
        pending.close(referee)
    # no executor's thread left to race the interpreter's exit (its atexit hook writes
    # to a pipe that thread closes: "Bad file descriptor" in the bot's log at a stop)
    assert [t for t in threading.enumerate() if isinstance(t, _ExecutorManagerThread)] == []


def test_a_worker_that_died_is_replaced_and_odds_go_on(tmp_path: Path) -> None:
    """A worker process killed (out of memory, say) fails the request it was running
    at most; the next one that needs it starts a new worker, and says so in the log."""
    referee = build_referee(BotConfig(database=str(tmp_path / "club.sqlite3")))
    answers: queue.Queue[list[Outgoing]] = queue.Queue()
    referee.odds.deliver_answers = answers.put

    def say(nick: str, text: str) -> list[Outgoing]:
        return referee.handle(Incoming(sender=Sender(nick=nick, account=nick), text=text,
                                       channel="#arena"))

    said: list[str] = []
    heard = logging.Handler(logging.WARNING)
    heard.emit = lambda record: said.append(record.getMessage())  # type: ignore[method-assign]
    pending_log = pending.log
    pending_log.addHandler(heard)  # on the pending requests' own logger: whatever the root's level
    try:
        say("gob", "!create Gorbag goblin club spear")
        say("olaf", "!create Olaf free-clans axe shield")
        killed = list(pending.workers(referee))
        for worker in killed:
            os.kill(worker.submit(os.getpid).result(timeout=60), signal.SIGKILL)
        got = ""
        for attempt in range(20):  # each player once: the 30 s window is per player
            assert say(f"fan{attempt}", "!odds Olaf vs Gorbag duel") == []
            (answer,) = answers.get(timeout=60)
            got = answer.text
            if "wins" in got:
                break
            time.sleep(0.2)  # the pool sees its process gone a moment later
        assert got.startswith(f"fan{attempt}: Olaf vs Gorbag (duel): Olaf wins"), got
        assert any(worker not in killed for worker in pending.workers(referee))
        assert any("died; starting a new one" in line for line in said), (
            said, pending_log.disabled, pending_log.getEffectiveLevel())
    finally:
        pending_log.removeHandler(heard)
        pending.close(referee)
