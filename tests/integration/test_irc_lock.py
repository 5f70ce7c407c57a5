"""The referee's work runs off the event loop (bot/chat/lanes.py): a database another process
holds locked delays only the commands that write, and they are told the truth."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

from ircbot import bot_on, from_bot, player
from ircserver import NgircdServer

LOCK = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
db.execute("ROLLBACK")
"""


def test_a_15_s_lock_by_another_process_holds_back_only_the_writers(
    ngircd: NgircdServer, tmp_path: Path,
) -> None:
    async def scenario() -> None:
        ngircd.max_penalty_time = 0
        ngircd.stop()
        ngircd.start()
        db = tmp_path / "bot.sqlite3"
        async with bot_on(ngircd, tmp_path, database=str(db), burst=10, per_second=10,
                          channels=("#arena", "#b")) as run:
            ann = await player(ngircd, "ann")
            await ann.join("#b")
            await ann.say("#arena", "!create Olaf free-clans broadsword shield")
            await from_bot(ann, "created Olaf")
            holder = subprocess.Popen([sys.executable, "-c", LOCK, str(db), "15"],
                                      stdout=subprocess.PIPE, text=True)
            assert holder.stdout is not None
            assert await asyncio.to_thread(holder.stdout.readline) == "locked\n"
            began = time.monotonic()
            await ann.say("#arena", "!create Gorbag goblin club spear")  # waits for the lock
            run.dice.push(1)
            await ann.say("#b", "!roll 1d1")
            await from_bot(ann, "ann rolls 1d1 = [1] = 1")
            await ann.say("#b", "!sheet Olaf")
            await from_bot(ann, "ann: Olaf (free-clans, highlander, ann)")
            await ann.say("#b", "!help sheet")
            await from_bot(ann, "ann: !sheet <warrior>")
            answered = time.monotonic() - began
            line = await from_bot(ann, "ann: the club's records are busy", timeout=30)
            refused = time.monotonic() - began
            assert line.target == "#arena"
            await asyncio.to_thread(holder.wait, 30)
            assert answered < 3, answered  # while the writer waited out the lock
            assert 8 < refused < 14, refused  # SQLite's 10 s busy timeout, then the truth
            await ann.say("#arena", "!create Gorbag goblin club spear")  # the lock is gone
            await from_bot(ann, "ann: created Gorbag")
            assert run.bot.sessions == 1
    asyncio.run(scenario())
