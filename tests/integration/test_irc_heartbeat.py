"""``ancath-bot run`` on ngircd writes its heartbeat, and ``ancath-bot status`` (the
container's HEALTHCHECK) reads it: healthy once registered, unhealthy while the server
is gone, healthy again once it is back, unhealthy once the bot is stopped."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from ircserver import NgircdServer

from bot.heartbeat import status as read

CONFIG = """\
database: {db}
irc:
  server: 127.0.0.1
  port: {port}
  tls: false
  nick: Ref
  channels: ["#arena"]
"""


def test_status_follows_the_running_bot(ngircd: NgircdServer, tmp_path: Path) -> None:
    config = tmp_path / "bot.yaml"
    config.write_text(CONFIG.format(db=tmp_path / "club.sqlite3", port=ngircd.port))
    where = f"to 127.0.0.1:{ngircd.port}"
    beat = tmp_path / "club.sqlite3.heartbeat"

    def status() -> tuple[int, str]:
        said = subprocess.run([sys.executable, "-m", "bot.cli", "status", "--config",
                               str(config)], capture_output=True, text=True, timeout=60)
        assert said.stderr == "" and said.stdout.count("\n") == 1, said
        return said.returncode, said.stdout.split(" (heartbeat")[0]

    def until(expected: str, seconds: float = 60) -> None:
        """Until the heartbeat says ``expected`` (read here: a status is a process)."""
        deadline = time.monotonic() + seconds
        while (now := read(beat)[1].split(" (heartbeat")[0]) != expected and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        assert now == expected, (now, (tmp_path / "bot.log").read_text())

    with (tmp_path / "bot.log").open("w") as log:
        bot = subprocess.Popen([sys.executable, "-m", "bot.cli", "run", "--config",
                                str(config)], stdout=subprocess.DEVNULL, stderr=log)
    try:
        until(f"healthy: connected as Ref {where}")
        assert status() == (0, f"healthy: connected as Ref {where}")
        ngircd.stop()
        until(f"unhealthy: connecting {where}")
        ngircd.start()
        until(f"healthy: connected as Ref {where}")
        bot.send_signal(signal.SIGTERM)
        assert bot.wait(timeout=60) == 0
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    assert read(beat)[1].startswith("unhealthy: stopped (heartbeat")
    assert "Traceback" not in (tmp_path / "bot.log").read_text()
