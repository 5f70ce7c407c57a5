"""Crash tests' common part: a worker process started again and again on one database
and killed with SIGKILL at random moments, and what its database must hold after each
kill (``records_whole``).

A worker prints ``ready`` once it has started up, then one line for each write it saw
committed: ``open F`` (fight F opened), ``rec F S`` or ``undo F S`` (fight F has its
command S). Workers are forked from a process that imported the worker once
(``Zygote``): a run starts at once, not after 1.6 s of imports, so the kills fit the
suite's time.
"""

from __future__ import annotations

import os
import random
import re
import select
import signal
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest
from replays import ledger_matches_replays, replay_stored
from sqlalchemy import Engine, text

from rules.ancath.system import AN_CATH
from rules.contest.system import CONTEST
from rules.general.system import GENERAL
from storage.db_engines import make_engine
from storage.schema_revision import head_revision
from storage.store import Store

SYSTEMS = (AN_CATH, CONTEST, GENERAL)
"""The rules systems these stores are handed (storage alone, no bot)."""

__all__ = ["WORKED", "killed_runs", "killed_together", "records_whole"]

WORKED = 2
"""Acknowledged commands per worker and kill, at least, on average: a worker that hardly
works between kills tests nothing. Far below what one does on an idle 2-core machine
(10-25), so a loaded one still passes: one CI run asked 150 in all of two workers and
24 rounds (3 a worker and kill) and got 145."""


def killed_runs(worker: Path, url: str, tmp_path: Path, rng: random.Random, *, kills: int,
                at_least: int, budget_s: float) -> Iterator[str]:
    """The output of ``worker URL RUN`` after each kill: every eighth run is killed while
    it starts up, the others a moment after its ``ready``; ``kills`` runs, or
    ``at_least`` once ``budget_s`` seconds have passed."""
    for outputs in killed_together(worker, url, tmp_path, rng, [[]], kills=kills,
                                   at_least=at_least, budget_s=budget_s):
        yield outputs[0]


def killed_together(worker: Path, url: str, tmp_path: Path, rng: random.Random,
                    extra: list[list[str]], *, kills: int, at_least: int, budget_s: float,
                    ) -> Iterator[list[str]]:
    """As :func:`killed_runs` with one worker per item of ``extra`` (its own arguments)
    running at once, each killed at a random moment of its own; a round's RUN numbers
    are the workers' places in it (round 3 of two workers: 6 and 7). Yields their
    outputs once all are dead."""
    started = time.monotonic()
    with Zygote(worker) as zygote:
        for round_ in range(kills):
            if round_ >= at_least and time.monotonic() - started > budget_s:
                return
            outs = [tmp_path / f"worker-{round_}-{place}.out" for place in range(len(extra))]
            processes: list[Forked] = []
            try:
                for place, (out, args) in enumerate(zip(outs, extra, strict=True)):
                    processes.append(zygote.fork(out, [url, str(round_ * len(extra) + place),
                                                       "--seconds", "60", *args]))
                if round_ > 0 and round_ % 8 == 0:   # while they start up and recover
                    delays = [rng.uniform(0.0, 0.4) for _ in processes]
                else:
                    for out, process in zip(outs, processes, strict=True):
                        wait_for(out, "ready", process, timeout=30)
                    delays = [rng.uniform(0.02, 0.5) for _ in processes]   # mid-fight
                waited = 0.0
                for delay, process, out in sorted(zip(delays, processes, outs, strict=True),
                                                  key=lambda item: item[0]):
                    time.sleep(delay - waited)
                    waited = delay
                    assert process.alive(), f"worker stopped by itself:\n{out.read_text()}"
                    process.kill()
            finally:
                for process in processes:
                    process.kill()
            outputs = [out.read_text() for out in outs]
            for output in outputs:
                assert "Traceback" not in output, output
            yield outputs


FORKER = """\
import os, runpy, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)   # the kernel reaps the workers
worker = runpy.run_path(sys.argv[1], run_name="crash_worker")   # imported, not run
print("forking", flush=True)
for line in sys.stdin:
    out, *args = line.split("\\0")
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        sys.argv = [sys.argv[1], *[arg.rstrip("\\n") for arg in args]]
        try:
            code = worker["main"]()
        except SystemExit as error:
            code = error.code
        sys.stdout.flush()
        os._exit(code if isinstance(code, int) else 1)
    print(pid, flush=True)
"""
"""A process that imports a worker once and forks it for each run: a run starts in
milliseconds instead of the 1.6 s its imports take, and is killed as a process of its
own (what it does after the fork, opening the database and resuming, is all there)."""


class Forked:
    """A worker forked by the zygote: alive or dead (through a pidfd), and killed."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        try:
            self._fd: int | None = os.pidfd_open(pid)
        except ProcessLookupError:   # already ended and reaped
            self._fd = None

    def _ended(self, fd: int, within_ms: int) -> bool:
        """Whether it ends within ``within_ms`` (its pidfd turns readable)."""
        poll = select.poll()
        poll.register(fd, select.POLLIN)
        return bool(poll.poll(within_ms))

    def alive(self) -> bool:
        return self._fd is not None and not self._ended(self._fd, 0)

    def kill(self) -> None:
        """SIGKILL, and wait until it is gone."""
        if self._fd is None:
            return
        with suppress(ProcessLookupError):
            signal.pidfd_send_signal(self._fd, signal.SIGKILL)
        assert self._ended(self._fd, 30_000), f"worker {self.pid} outlived SIGKILL"
        os.close(self._fd)
        self._fd = None


class Zygote:
    """``FORKER`` running ``worker``: ``fork(out, args)`` starts a run writing to ``out``."""

    def __init__(self, worker: Path) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen([sys.executable, "-c", FORKER, str(worker)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, env=env)
        assert self._read() == "forking"

    def _read(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def fork(self, out: Path, args: list[str]) -> Forked:
        assert self.process.stdin is not None
        self.process.stdin.write("\0".join([str(out), *args]) + "\n")
        self.process.stdin.flush()
        return Forked(int(self._read()))

    def __enter__(self) -> Zygote:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.process.kill()
        self.process.wait(timeout=30)


def wait_for(path: Path, word: str, process: Forked, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and re.search(rf"^{word}\b", path.read_text(), re.MULTILINE):
            return
        if not process.alive():
            pytest.fail(f"worker ended:\n{path.read_text()}")
        time.sleep(0.01)
    pytest.fail(f"worker printed no {word!r} in {timeout}s:\n{path.read_text()}")


def _acknowledged(output: str) -> tuple[dict[int, int], set[int]]:
    """What the worker saw committed before it died: last seq per fight, fights opened."""
    last: dict[int, int] = defaultdict(int)
    opened: set[int] = set()
    for line in output.splitlines():
        words = line.split()
        if words[:1] == ["open"]:
            opened.add(int(words[1]))
        elif words[:1] in (["rec"], ["undo"]) and len(words) == 3:
            last[int(words[1])] = max(last[int(words[1])], int(words[2]))
    return last, opened


def records_whole(url: str, output: str) -> int:
    """Everything a restart relies on, and everything ``output`` acknowledged, is in the
    database at ``url``; returns how many fights were left unfinished."""
    engine = make_engine(url)
    try:
        return _check(engine, output)
    finally:
        engine.dispose()


def _check(engine: Engine, output: str) -> int:
    with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            assert connection.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
        assert connection.execute(text("SELECT version_num FROM alembic_version")
                                  ).scalar_one() == head_revision()
        stored = dict(connection.execute(text(
            "SELECT f.id, COALESCE(MAX(c.seq), 0) FROM fights f "
            "LEFT JOIN fight_commands c ON c.fight_id = f.id GROUP BY f.id")).all())
    last, opened = _acknowledged(output)
    assert opened <= set(stored), "a fight the worker saw opened is gone"
    for fight_id, seq in last.items():
        assert stored[fight_id] >= seq, f"fight {fight_id}: acknowledged seq {seq} lost"

    assert Store(engine, systems=SYSTEMS).verify() == []
    with engine.connect() as connection:
        networks = connection.execute(text("SELECT DISTINCT network FROM fights")).scalars()
        stores = [Store(engine, systems=SYSTEMS, network=network) for network in networks]
    unfinished = 0
    for store in stores:   # each network's, as its process resumes them
        fights, problems = store.open_fights()
        assert problems == []
        unfinished += len(fights)
        for fight in fights:
            state, commands, _ = replay_stored(engine, fight.id)
            assert fight.state == state
            assert list(fight.commands) == commands
            assert fight.state.outcome is None
    problems = ledger_matches_replays(engine)
    assert problems == [], problems
    return unfinished
