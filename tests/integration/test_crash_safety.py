"""Crash safety: a worker process playing fights through ``Store`` is killed with SIGKILL
at random moments, again and again, on one SQLite file; after every kill the database
must open, prove its ledger, and rebuild every unfinished fight exactly by replay.
"""

from __future__ import annotations

import random
import re
import signal
from pathlib import Path

import pytest
from crashes import WORKED, killed_runs, records_whole

from rules.ancath.system import AN_CATH
from rules.contest.system import CONTEST
from rules.general.system import GENERAL
from storage.db import open_database
from storage.store import Store

WORKER = Path(__file__).with_name("crash_worker.py")
KILLS = 32
BUDGET_S = 55.0
"""Stop killing (after at least 30 kills) when the test has run this long."""

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def test_killed_at_random_moments_the_records_stay_whole(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'crash.sqlite3'}"
    kills = unfinished = acknowledged = 0
    for output in killed_runs(WORKER, url, tmp_path, random.Random(0xA11CA7), kills=KILLS,
                              at_least=30, budget_s=BUDGET_S):
        kills += 1
        acknowledged += len(re.findall(r"^rec ", output, re.MULTILINE))
        unfinished += records_whole(url, output)

    print(f"{kills} kills, {acknowledged} commands acknowledged, "
          f"{unfinished} unfinished fights rebuilt after kills")
    assert kills >= 30
    assert acknowledged >= WORKED * kills, "the worker hardly did anything between kills"
    assert unfinished >= 10, "kills rarely caught a fight in progress"
    engine = open_database(url)          # and the schema upgrade is still a no-op
    try:
        assert Store(engine, systems=[AN_CATH, CONTEST, GENERAL]).verify() == []
    finally:
        engine.dispose()
