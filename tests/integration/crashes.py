"""Crash tests' common part: a worker process started again and again on one database
and killed with SIGKILL at random moments, and what its database must hold after each
kill (``records_whole``).

A worker prints ``ready`` once it has started up, then one line for each write it saw
committed: ``open F`` (fight F opened), ``rec F S`` or ``undo F S`` (fight F has its
command S).
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from replays import ledger_matches_replays, replay_stored
from sqlalchemy import Engine, text

from storage.db import head_revision, make_engine
from storage.store import Store

__all__ = ["killed_runs", "killed_together", "records_whole"]


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
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    started = time.monotonic()
    for round_ in range(kills):
        if round_ >= at_least and time.monotonic() - started > budget_s:
            return
        outs = [tmp_path / f"worker-{round_}-{place}.out" for place in range(len(extra))]
        processes: list[subprocess.Popen[bytes]] = []
        try:
            for place, (out, args) in enumerate(zip(outs, extra, strict=True)):
                with out.open("wb") as sink:
                    processes.append(subprocess.Popen(
                        [sys.executable, str(worker), url, str(round_ * len(extra) + place),
                         "--seconds", "60", *args],
                        stdout=sink, stderr=subprocess.STDOUT, env=env,
                    ))
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
                assert process.poll() is None, f"worker stopped by itself:\n{out.read_text()}"
                process.send_signal(signal.SIGKILL)
        finally:
            for process in processes:
                process.send_signal(signal.SIGKILL)
                process.wait(timeout=30)
        outputs = [out.read_text() for out in outs]
        for output in outputs:
            assert "Traceback" not in output, output
        yield outputs


def wait_for(path: Path, word: str, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and re.search(rf"^{word}\b", path.read_text(), re.MULTILINE):
            return
        if process.poll() is not None:
            pytest.fail(f"worker exited with {process.returncode}:\n{path.read_text()}")
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

    assert Store(engine).verify() == []
    with engine.connect() as connection:
        networks = connection.execute(text("SELECT DISTINCT network FROM fights")).scalars()
        stores = [Store(engine, network=network) for network in networks]
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
    assert ledger_matches_replays(engine) == []
    return unfinished
