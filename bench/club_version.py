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
- ``version.<backend>.share_of_command``: the read's share of the command's p50;
- SQLite only, the check a line that needs no storage makes on the event loop
  (``VersionReader.unchanged``: ``PRAGMA data_version`` on a connection that never
  waits): ``version.sqlite.unchanged_us_p50`` beside its bare reference, the same pragma
  on a bare ``sqlite3`` connection of the same file (``..._bare_pragma_us_p50``); then
  both again, alternating, while another process commits without pause
  (``..._under_writes_us_p50``, ``_p99``, ``_max``; the check then says "changed":
  the thread path), with how many commits it made meanwhile.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
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


def timings_us(job: Callable[[], object], times: int) -> list[float]:
    out = []
    for _ in range(times):
        started = time.perf_counter()
        job()
        out.append((time.perf_counter() - started) * 1e6)
    return sorted(out)


_WRITER = """
import sqlite3, sys
other = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
other.execute("PRAGMA journal_mode=WAL")
other.execute("CREATE TABLE IF NOT EXISTS bench_noise (n INTEGER)")
print("ready", flush=True)
while True:
    other.execute("INSERT INTO bench_noise VALUES (1)")
"""


def noise(db: str) -> int:
    with sqlite3.connect(db, isolation_level=None) as bare:
        return int(bare.execute("SELECT COUNT(*) FROM bench_noise").fetchone()[0])


def loop_check(club: Club, times: int) -> None:
    """The event loop's check (SQLite) beside a bare pragma, quiet, then while another
    process commits without pause."""
    reader = club.referee.settings._version
    version = reader()   # read on the probe: the check can say "unchanged"
    assert reader.unchanged(version), "the check should say unchanged on a quiet file"
    bare = sqlite3.connect(club.db, isolation_level=None)

    def pragma() -> object:
        return bare.execute("PRAGMA data_version").fetchone()

    figures = {"unchanged": timings_us(lambda: reader.unchanged(version), times),
               "bare_pragma": timings_us(pragma, times)}
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, club.db],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        before = noise(club.db)
        for turn in range(2 * times):   # interleaved, as above
            job = (lambda: reader.unchanged(version)) if turn % 2 == 0 else pragma
            name = "unchanged_under_writes" if turn % 2 == 0 else "bare_pragma_under_writes"
            figures.setdefault(name, []).extend(timings_us(job, 1))
        commits = noise(club.db) - before
    finally:
        writer.kill()
        writer.wait()
        bare.close()
    for name, values in figures.items():
        values.sort()
        print(f"version.sqlite.{name}_us_p50 {statistics.median(values):.1f}")
        if name.endswith("under_writes"):
            print(f"version.sqlite.{name}_us_p99 {values[int(len(values) * 0.99)]:.1f}")
            print(f"version.sqlite.{name}_us_max {values[-1]:.1f}")
    print(f"version.sqlite.commits_meanwhile {commits}")


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
        club = Club(Path(scratch))
        measure("sqlite", club, args.commands)
        loop_check(club, args.commands)
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
