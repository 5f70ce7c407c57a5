"""``ancath-bot run`` on ngircd, stopped by SIGTERM (the service manager) or SIGINT
(Ctrl-C): the SQLite file alone then holds every record, so a copy of it without its
``-wal`` and ``-shm`` files is the whole club."""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from ircbot import BOT_NICK, from_bot, player
from ircserver import NgircdServer

CONFIG = """\
database: {db}
irc:
  server: 127.0.0.1
  port: {port}
  tls: false
  nick: {nick}
  channels: ["#arena"]
"""


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stopped_bots_file_alone_holds_its_records(
        ngircd: NgircdServer, tmp_path: Path, stop: signal.Signals) -> None:
    club = tmp_path / "club.sqlite3"
    config = tmp_path / "bot.yaml"
    config.write_text(CONFIG.format(db=club, port=ngircd.port, nick=BOT_NICK))
    log = tmp_path / "bot.log"
    with log.open("w") as sink:
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
            await ann.quit()

        asyncio.run(scenario())
        bot.send_signal(stop)
        bot.wait(timeout=60)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    said = log.read_text()
    assert bot.returncode == 0, said
    assert "Traceback" not in said and "not checkpointed" not in said, said

    copy = tmp_path / "copy" / "club.sqlite3"
    copy.parent.mkdir()
    shutil.copyfile(club, copy)   # the file only: no -wal, no -shm
    ledger = subprocess.run([sys.executable, "-m", "bot.cli", "ledger", "--db", str(copy),
                             "--format", "json"], capture_output=True, text=True, timeout=60)
    assert ledger.returncode == 0, ledger.stderr
    rows = [row for row in json.loads(ledger.stdout) if row["warrior"]]   # not the claim
    assert [(row["warrior"], row["entry"]) for row in rows] == [("Olaf", "created"),
                                                                ("Gorbag", "created")]
    # ann has no services account: known by user@host
    assert {row["actor"] for row in rows} == {"~ann@127.0.0.1"}
