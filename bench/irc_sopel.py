"""Sopel, started for ``bench/irc_latency.py --sopel-python PATH``: the Python of a venv
of its own (Sopel pins SQLAlchemy below 2, which the bot needs), a minimal config (its
dice plugin only, its flood limits lifted as the referee's are), one channel. Sopel
refuses to run as root: under root it runs as ``nobody`` (``setpriv``), in a folder of
its own that user may write.

    python -m venv /work/sopel-venv && /work/sopel-venv/bin/pip install sopel
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

__all__ = ["SopelBot"]

RUN = "import sys; from sopel.cli.run import main; sys.exit(main())"
"""Sopel's command line, whatever its venv's scripts are called."""

CONFIG = """[core]
nick = {nick}
user = {nick}
host = {host}
port = {port}
use_ssl = false
owner = nobody
channels = {channel}
enable = dice
homedir = {home}
logdir = {home}
pid_dir = {home}
flood_burst_lines = 1000000
flood_refill_rate = 1000000
flood_empty_wait = 0
flood_max_wait = 0
flood_text_length = 1000000
"""


class SopelBot:
    """``async with SopelBot(...)``: Sopel running, stopped at the end."""

    def __init__(self, python: str, host: str, port: int, *, nick: str,
                 channel: str) -> None:
        self.python, self.nick, self.channel = python, nick, channel
        self.folder = Path(tempfile.mkdtemp(prefix="sopel-"))
        self.folder.chmod(0o777)   # nobody's, under root
        self.config = self.folder / "sopel.cfg"
        self.config.write_text(CONFIG.format(nick=nick, host=host, port=port,
                                             channel=channel, home=self.folder))
        self.config.chmod(0o644)
        self.process: subprocess.Popen[bytes] | None = None

    async def __aenter__(self) -> SopelBot:
        """Start Sopel (it then joins ``channel``: the caller waits for its JOIN)."""
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] \
            if os.geteuid() == 0 else []
        self.process = subprocess.Popen(
            [*nobody, self.python, "-c", RUN, "start", "-c", str(self.config)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        trace: TracebackType | None) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)
