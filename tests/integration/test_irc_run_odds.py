"""``ancath-bot run`` on ngircd: an ``!odds`` answered by its worker process; SIGTERM
ends the bot cleanly, worker included; and a killed bot's worker ends by itself."""

from __future__ import annotations

import asyncio
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from ircbot import BOT_NICK, from_bot, player
from ircserver import NgircdServer

from bot.odds.worker import WORKERS

CONFIG = """\
database: {db}
irc:
  server: 127.0.0.1
  port: {port}
  tls: false
  nick: {nick}
  channels: ["#arena"]
"""


def children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (from /proc: state, then parent, after the
    command name)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, parent = stat.read_text().rsplit(")", 1)[1].split()[:2]
        except OSError:
            continue  # ended meanwhile
        if int(parent) == pid and state != "Z":
            found.append(int(stat.parent.name))
    return found


def all_end(pidfds: list[int], timeout: float = 30) -> bool:
    """Whether every process behind ``pidfds`` ends within ``timeout`` (a pidfd turns
    readable when its process ends); closes them."""
    try:
        left = set(pidfds)
        poll = select.poll()   # not select(): a long test run's fds pass 1024
        for fd in left:
            poll.register(fd, select.POLLIN)
        deadline = time.monotonic() + timeout
        while left and (wait := deadline - time.monotonic()) > 0:
            for fd, _event in poll.poll(wait * 1000):
                left.discard(fd)
                poll.unregister(fd)
        return not left
    finally:
        for fd in pidfds:
            os.close(fd)


def test_run_answers_odds_from_its_worker_and_stops_cleanly(
        ngircd: NgircdServer, tmp_path: Path) -> None:
    config = tmp_path / "bot.yaml"
    config.write_text(CONFIG.format(db=tmp_path / "club.sqlite3", port=ngircd.port,
                                    nick=BOT_NICK))
    log = tmp_path / "bot.log"
    with log.open("w") as sink:  # a file, not a pipe: a worker left behind cannot hold it
        bot = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--config",
                                str(config)], stdout=subprocess.DEVNULL, stderr=sink)
    try:
        async def scenario() -> None:
            ann = await player(ngircd, "ann")
            await ann.expect(lambda line: (line.command == "JOIN" and line.nick == BOT_NICK)
                             or (line.command == "353" and BOT_NICK in line.text.split()),
                             timeout=60)  # the bot joins after us, or was there first
            await ann.say("#arena", "!create Olaf free-clans axe shield")
            await from_bot(ann, "created Olaf")
            await ann.say("#arena", "!create Gorbag goblin club spear")
            await from_bot(ann, "created Gorbag")
            await ann.say("#arena", "!odds Olaf vs Gorbag")
            await from_bot(ann, "ann: Olaf vs Gorbag (practice): Olaf wins", timeout=60)
            await ann.quit()

        asyncio.run(scenario())
        kids = [os.pidfd_open(pid) for pid in children(bot.pid)]
        assert kids  # the odds worker (and multiprocessing's resource tracker)
        bot.send_signal(signal.SIGTERM)
        bot.wait(timeout=60)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    stderr = log.read_text()
    assert bot.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert all_end(kids)


KILLED = """\
import os, sys
from bot.odds.worker import start_workers

if __name__ == "__main__":
    for worker in start_workers():
        print(worker.submit(os.getpid).result(timeout=60), flush=True)
    sys.stdin.read()  # until the test kills this process
"""


def test_a_killed_bots_workers_end_by_themselves(tmp_path: Path) -> None:
    script = tmp_path / "killed.py"
    script.write_text(KILLED)
    owner = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    # (stderr: once it is killed, its semaphore tracker warns of what it cleans up)
    try:
        assert owner.stdout is not None
        workers = [os.pidfd_open(int(owner.stdout.readline())) for _ in range(WORKERS)]
    finally:
        owner.kill()
        owner.wait()
    assert all_end(workers), "a worker outlived its bot"  # its own watch ended it
