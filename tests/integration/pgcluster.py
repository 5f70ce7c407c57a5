"""A throwaway PostgreSQL cluster of a test's own, which the test may stop and start
again (an outage), made as ``.ci/run`` makes CI's: ``initdb`` and ``pg_ctl`` from
Debian's ``/usr/lib/postgresql/<version>/bin`` (or ``PATH``), in a temporary directory
the ``postgres`` account can reach when the tests run as root (``initdb`` refuses root),
on a free port of 127.0.0.1.

    with PgCluster() as cluster:
        url = cluster.url          # postgresql+psycopg://postgres@127.0.0.1:<port>/postgres
        cluster.stop()             # the server is down
        cluster.start()            # and back, on the same port
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

__all__ = ["PgCluster", "find_pg_bin"]


def find_pg_bin() -> Path | None:
    """The directory of ``initdb`` and ``pg_ctl``, or None when PostgreSQL is missing."""
    found = shutil.which("initdb")
    if found is None:
        versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                          key=lambda p: [int(x) for x in p.parts[-3].split(".") if x.isdigit()])
        found = str(versions[-1]) if versions else None
    return Path(found).resolve().parent if found else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PgCluster:
    """One cluster: made and started on ``__enter__``, stopped and removed on exit."""

    def __init__(self) -> None:
        binary = find_pg_bin()
        if binary is None:
            raise FileNotFoundError("initdb not found (apt-get install postgresql)")
        self.bin = binary
        self.dir = Path(tempfile.mkdtemp(prefix="ancath-pg-", dir="/tmp"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if os.getuid() == 0:   # initdb and postgres refuse root: run them as postgres
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def __enter__(self) -> PgCluster:
        if os.getuid() == 0:
            shutil.chown(self.dir, "postgres")
        self._run("initdb", "-A", "trust", "-U", "postgres", "--no-locale", "-E", "UTF8",
                  "-D", str(self.data))
        self.start()
        return self

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.dir / "server.log"), "-w",
                  "-t", "60", "-o", f"-h 127.0.0.1 -p {self.port} -k {self.dir}", "start")

    def stop(self) -> None:
        """Stop the server at once (``-m immediate``: its clients' connections break)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)
