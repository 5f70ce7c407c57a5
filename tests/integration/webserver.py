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
from dataclasses import dataclass
from pathlib import Path

__all__ = ["WebServer", "web_server"]

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class WebServer:
    """The running server: its process, its first line, and its address."""

    process: subprocess.Popen[str]
    first_line: str
    address: str
    """``http://127.0.0.1:<port>/``"""
    rest: str = ""
    """What it printed after the first line, once it stopped."""


@contextmanager
def web_server(db: str, *, token: str | None = None) -> Iterator[WebServer]:
    """``ancath-bot web --db <db> --port 0``, behind ``token`` when given (in
    ``$ANCATH_WEB_TOKEN``); stopped with Ctrl-C (SIGINT) on leaving."""
    env = {k: v for k, v in os.environ.items() if k != "ANCATH_WEB_TOKEN"}
    if token:
        env["ANCATH_WEB_TOKEN"] = token
    process = subprocess.Popen([sys.executable, "-m", "bot.cli", "web", "--db", db, "--port", "0"],
                               cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    try:
        line = process.stderr.readline()
        assert "serving http://" in line, line + process.stderr.read()
        server = WebServer(process, line, line.split("serving ", 1)[1].split()[0])
        yield server
    finally:
        process.send_signal(signal.SIGINT)
        _, rest = process.communicate(timeout=20)
    server.rest = rest
