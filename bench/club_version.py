"""Benchmark: what reading the club's version at every command costs (issue 16).

    python bench/club_version.py [--commands N] [--pg URL]

A referee on a real SQLite file (and on a new database of the PostgreSQL server at
``--pg`` or ``ANCATH_TEST_PG_URL``, when given) answers ``!sheet Gorbag``, a reading
command, N times (default 3,000), once as the bot does (the version read first) and
once with the read replaced by the version it already holds; then the read alone, as the
referee makes it (``VersionReader``) and as a transaction of its own
(``Store.club_version``). Prints one figure per line, ``name value``:

- ``version.<backend>.read_us_p50``, ``..._own_transaction_us_p50``: one read;
- ``version.<backend>.sheet_ms_p50``, ``..._without_read_ms_p50``: the whole command;
- ``version.<backend>.share_of_command``: the read's share of the command's p50.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "tests" / "integration"),
                str(Path(__file__).resolve().parent)]

from club import Club  # noqa: E402
from storage_commits import scratch_pg_database  # noqa: E402


def p50_us(job: Callable[[], object], times: int) -> float:
    timings = []
    for _ in range(times):
        started = time.perf_counter()
        job()
        timings.append(time.perf_counter() - started)
    return statistics.median(timings) * 1e6


def measure(backend: str, club: Club, times: int) -> None:
    club.say("gob !create Gorbag goblin club spear")
    referee = club.referee
    reader = referee.settings._version

    def sheet() -> None:
        club.say("ann !sheet Gorbag")

    read = p50_us(reader, times)
    own = p50_us(referee.store.club_version, times)
    held = reader()
    kept = lambda: held  # noqa: E731
    timings: dict[bool, list[float]] = {True: [], False: []}
    for turn in range(2 * times):   # interleaved, so the machine's drift counts in both
        reads = turn % 2 == 0
        referee.settings._version = reader if reads else kept   # type: ignore[assignment]
        started = time.perf_counter()
        sheet()
        timings[reads].append(time.perf_counter() - started)
    referee.settings._version = reader
    with_read, without = (statistics.median(timings[r]) * 1e6 for r in (True, False))
    print(f"version.{backend}.read_us_p50 {read:.1f}")
    print(f"version.{backend}.read_own_transaction_us_p50 {own:.1f}")
    print(f"version.{backend}.sheet_ms_p50 {with_read / 1000:.3f}")
    print(f"version.{backend}.sheet_without_read_ms_p50 {without / 1000:.3f}")
    print(f"version.{backend}.share_of_command {(with_read - without) / with_read:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=3000)
    parser.add_argument("--pg", default=os.environ.get("ANCATH_TEST_PG_URL"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        measure("sqlite", Club(Path(scratch)), args.commands)
    if args.pg:
        os.environ.setdefault("ANCATH_LEDGER_KEY", "bench-ledger-key-0123456789abcdef0123")
        with scratch_pg_database(args.pg) as url, tempfile.TemporaryDirectory() as scratch:
            club = Club(Path(scratch), database=url)
            try:
                measure("postgresql", club, args.commands)
            finally:
                club.referee.store.engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
