"""The real worker process: another process, below the bot in priority, and a referee
built without an executor answers ``!odds`` from it through ``Referee.later``."""

from __future__ import annotations

import os
import queue
from pathlib import Path

from bot.app import build_referee
from bot.chat.messages import Incoming, Outgoing, Sender
from bot.config import BotConfig
from bot.odds import desk
from bot.odds.worker import NICENESS, start_worker


def test_the_worker_is_another_process_below_the_bot() -> None:
    executor = start_worker()
    try:
        assert executor.submit(os.getpid).result(timeout=60) != os.getpid()
        assert executor.submit(os.nice, 0).result(timeout=60) == min(19, os.nice(0) + NICENESS)
    finally:
        executor.shutdown()


def test_a_referee_answers_from_its_worker(tmp_path: Path) -> None:
    referee = build_referee(BotConfig(database=str(tmp_path / "club.sqlite3")))
    answers: queue.Queue[list[Outgoing]] = queue.Queue()
    referee.later = answers.put
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
        assert desk.wait(referee, 0)
    finally:
        desk.close(referee)
