"""Crash safety: a worker process playing fights through ``Store`` is killed with SIGKILL
at random moments, again and again, on one SQLite file; after every kill the database
must open, prove its ledger, and rebuild every unfinished fight exactly by replay.
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
from pathlib import Path

import pytest
from replays import ledger_matches_replays, replay_stored
from sqlalchemy import Engine, text

from storage.db import head_revision, make_engine, open_database
from storage.store import Store

WORKER = Path(__file__).with_name("crash_worker.py")
KILLS = 32
BUDGET_S = 55.0
"""Stop killing (after at least 30 kills) when the test has run this long."""

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def _wait_for(path: Path, word: str, process: subprocess.Popen[bytes], timeout: float) -> None:
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


def _check(engine: Engine, output: str) -> int:
    """Everything a restart relies on; returns how many fights were left unfinished."""
    with engine.connect() as connection:
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

    store = Store(engine)
    assert store.verify() == []
    fights, problems = store.open_fights()
    assert problems == []
    for fight in fights:
        state, commands, _ = replay_stored(engine, fight.id)
        assert fight.state == state
        assert list(fight.commands) == commands
        assert fight.state.outcome is None
    assert ledger_matches_replays(engine) == []
    return len(fights)


def test_killed_at_random_moments_the_records_stay_whole(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'crash.sqlite3'}"
    rng = random.Random(0xA11CA7)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    started = time.monotonic()
    kills = unfinished = acknowledged = 0
    for run in range(KILLS):
        if run >= 30 and time.monotonic() - started > BUDGET_S:
            break
        out = tmp_path / f"worker-{run}.out"
        with out.open("wb") as sink:
            process = subprocess.Popen(
                [sys.executable, str(WORKER), url, str(run), "--seconds", "60"],
                stdout=sink, stderr=subprocess.STDOUT, env=env,
            )
        try:
            if run > 0 and run % 8 == 0:
                time.sleep(rng.uniform(0.0, 0.4))        # while it starts up and recovers
            else:
                _wait_for(out, "ready", process, timeout=30)
                time.sleep(rng.uniform(0.02, 0.5))       # in the middle of its fights
            assert process.poll() is None, f"worker stopped by itself:\n{out.read_text()}"
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
        kills += 1
        output = out.read_text()
        assert "Traceback" not in output, output
        acknowledged += len(re.findall(r"^rec ", output, re.MULTILINE))
        engine = make_engine(url)
        try:
            unfinished += _check(engine, output)
        finally:
            engine.dispose()

    print(f"{kills} kills, {acknowledged} commands acknowledged, "
          f"{unfinished} unfinished fights rebuilt after kills")
    assert kills >= 30
    assert acknowledged >= 200, "the worker hardly did anything between kills"
    assert unfinished >= 10, "kills rarely caught a fight in progress"
    engine = open_database(url)          # and the schema upgrade is still a no-op
    try:
        assert Store(engine).verify() == []
    finally:
        engine.dispose()
