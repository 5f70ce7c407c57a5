"""``ancath-bot web`` in a child process, as a newcomer starts it, on a free port of
127.0.0.1 (``--port 0``: the first line it prints says which): for the tests and the
benchmark that reach the pages over real HTTP."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["WebServer", "web_server"]

ROOT = Path(__file__).resolve().parents[2]


class WebServer:
    """The server's process; its first line and address are read when first asked for,
    so the caller may do other work while it starts."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.rest = ""
        """What it printed after the first line, once it stopped."""
        self._first: str | None = None

    @property
    def first_line(self) -> str:
        if self._first is None:
            assert self.process.stderr is not None
            self._first = self.process.stderr.readline()
            assert "serving http://" in self._first, self._first + self.process.stderr.read()
        return self._first

    @property
    def address(self) -> str:
        """``http://127.0.0.1:<port>/``"""
        return self.first_line.split("serving ", 1)[1].split()[0]


@contextmanager
def web_server(db: str, *, token: str | None = None) -> Iterator[WebServer]:
    """``ancath-bot web --db <db> --port 0``, behind ``token`` when given (in
    ``$ANCATH_WEB_TOKEN``); stopped with Ctrl-C (SIGINT) on leaving."""
    env = {k: v for k, v in os.environ.items() if k != "ANCATH_WEB_TOKEN"}
    if token:
        env["ANCATH_WEB_TOKEN"] = token
    server = WebServer(subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "web", "--db", db, "--port", "0"], cwd=ROOT, env=env,
        stderr=subprocess.PIPE, text=True))
    try:
        yield server
    finally:
        server.process.send_signal(signal.SIGINT)
        _, server.rest = server.process.communicate(timeout=20)
