"""Crash safety with group commit: a worker playing fights in many channels through the
referee's lanes, its commands sharing transactions, is killed with SIGKILL at random
moments, again and again, on SQLite. Every command it acknowledged (said after its
lines were handed out) is in the database, none was said before its commit, every
unfinished fight rebuilds by replay, and ``audit verify`` passes. On PostgreSQL the same
with two such processes on one database (issue 16), each a network of its own, both
killed at random moments of their own, round after round (one process alone on
PostgreSQL was a test of its own, 40 s of the suite's 15 minutes, and adds nothing the
two do not cover).
"""

from __future__ import annotations

import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from crashes import WORKED, killed_runs, killed_together, records_whole
from sqlalchemy import text

from storage.db_engines import make_engine

WORKER = Path(__file__).with_name("group_commit_worker.py")
KILLS = 24
BUDGET_S = 45.0
"""Stop killing (after at least 20 kills) when the test has run this long."""

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def shared(output: str) -> tuple[int, int]:
    """(commits, commands answered) as the worker last said them; (0, 0) before."""
    counts = re.findall(r"^batches (\d+) (\d+)$", output, re.MULTILINE)
    return (int(counts[-1][0]), int(counts[-1][1])) if counts else (0, 0)


def check_batches(url: str, output: str) -> None:
    """What ``check`` does not read: warriors created, fights ended, nothing said early."""
    assert "Traceback" not in output, output
    assert not re.search(r"^early ", output, re.MULTILINE), output
    created = re.findall(r"^other create (\S+)$", output, re.MULTILINE)
    ended = {int(f) for f in re.findall(r"^end (\d+)$", output, re.MULTILINE)}
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            names = set(connection.execute(text("SELECT name FROM warriors")).scalars())
            closed = set(connection.execute(text(
                "SELECT id FROM fights WHERE ended_at IS NOT NULL")).scalars())
    finally:
        engine.dispose()
    assert set(created) <= names
    assert ended <= closed


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_killed_at_random_moments_every_acknowledged_batch_stays(database_url: str,
                                                                  tmp_path: Path) -> None:
    kills = unfinished = acknowledged = commits = answered = 0
    for output in killed_runs(WORKER, database_url, tmp_path, random.Random(0x6C0),
                              kills=KILLS, at_least=20, budget_s=BUDGET_S):
        kills += 1
        check_batches(database_url, output)
        acknowledged += len(re.findall(r"^rec ", output, re.MULTILINE))
        made, said = shared(output)
        commits, answered = commits + made, answered + said
        unfinished += records_whole(database_url, output)

    print(f"{kills} kills, {acknowledged} fight commands acknowledged, {unfinished} "
          f"unfinished fights rebuilt after kills; {answered} commands in {commits} commits")
    assert kills >= 20
    assert acknowledged >= WORKED * kills, "the worker hardly did anything between kills"
    assert unfinished >= 10, "kills rarely caught a fight in progress"
    assert commits * 2 < answered, "the commands hardly shared a commit"
    audit_verifies(database_url)


@pytest.mark.parametrize("database_url", [pytest.param("postgresql",
                                                       marks=pytest.mark.postgresql)],
                         indirect=True)
def test_two_processes_killed_at_random_moments_keep_every_acknowledged_command(
    database_url: str, tmp_path: Path,
) -> None:
    """Both write the one ledger (its chain, each fight's awards) and both are killed in
    the middle of their batches; after each round the database holds everything either
    acknowledged and both networks' unfinished fights replay."""
    kills = acknowledged = unfinished = commits = answered = 0
    both = [["--network", "north", "--channels", "8"], ["--network", "south", "--channels", "8"]]
    for outputs in killed_together(WORKER, database_url, tmp_path, random.Random(0x2B07),
                                   both, kills=KILLS, at_least=20, budget_s=BUDGET_S):
        kills += 1
        for output in outputs:
            check_batches(database_url, output)
            acknowledged += len(re.findall(r"^rec ", output, re.MULTILINE))
            made, said = shared(output)
            commits, answered = commits + made, answered + said
        unfinished += records_whole(database_url, "\n".join(outputs))

    print(f"{kills} rounds of two kills, {acknowledged} fight commands acknowledged, "
          f"{unfinished} unfinished fights rebuilt after kills; {answered} commands in "
          f"{commits} commits")
    assert kills >= 20
    assert acknowledged >= WORKED * 2 * kills, "the workers hardly did anything between kills"
    assert unfinished >= 10, "kills rarely caught a fight in progress"
    assert commits * 2 < answered, "the commands hardly shared a commit"
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            networks = set(connection.execute(text("SELECT network FROM fights")).scalars())
    finally:
        engine.dispose()
    assert networks == {"north", "south"}
    audit_verifies(database_url)


def audit_verifies(url: str) -> None:
    verified = subprocess.run([sys.executable, "-m", "bot.cli", "audit", "verify", "--db",
                               url], capture_output=True, text=True, timeout=120)
    assert verified.returncode == 0, verified.stdout + verified.stderr
