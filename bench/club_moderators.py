"""Benchmark: reading the moderators named in chat on a large ledger (migration 0008).

    python bench/club_moderators.py [--rows N] [--reads R]

Every bot process reads the moderators named in chat from their ``moderator-added``
and ``moderator-removed`` ledger rows (``Store.moderators``) at its start and again
whenever the club's settings or moderators change, on the lane every channel's writes
wait in. On a new SQLite file at the newest schema, N ledger rows (default 500,000) of
other entries are written straight through the driver (they are never verified here),
then the read is timed R times (default 20) with the ledger's ``entry`` index and
again with it dropped. Prints one figure per line, ``name value``:

- ``moderators.ms_p50_indexed`` and ``moderators.ms_p50_unindexed``: one read;
- ``moderators.x_faster``: the second over the first.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:  # run as a script from anywhere: make the repository importable
    sys.path.insert(0, ROOT)

from rules.ancath.system import AN_CATH  # noqa: E402
from rules.contest.system import CONTEST  # noqa: E402
from rules.general.system import GENERAL  # noqa: E402
from storage.db import open_database  # noqa: E402
from storage.keys import Keyring, new_key  # noqa: E402
from storage.store import Store  # noqa: E402

ENTRIES = ("fight-closed", "bp-award", "created", "moderator-bp")
_ROW = ("INSERT INTO ledger (id, entry, bp, spent, actor, reason, created_at, prev_hash, "
        "hash) VALUES (?, ?, 1, 0, 'bench', 'a row', '2026-12-04', ?, ?)")


def p50_ms(store: Store, reads: int) -> float:
    timings = []
    for _ in range(reads):
        started = time.perf_counter()
        store.moderators()
        timings.append(time.perf_counter() - started)
    return statistics.median(timings) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--reads", type=int, default=20)
    args = parser.parse_args(argv)
    if args.rows < 1 or args.reads < 1:
        parser.error("--rows and --reads must be at least 1")
    with tempfile.TemporaryDirectory(prefix="ancath-bench-") as scratch:
        engine = open_database(f"sqlite:///{Path(scratch) / 'club.sqlite3'}")
        try:
            raw = engine.raw_connection()
            try:
                raw.cursor().executemany(_ROW, [(i, ENTRIES[i % len(ENTRIES)], "0" * 64,
                                                 "f" * 64) for i in range(1, args.rows + 1)])
                raw.commit()
            finally:
                raw.close()
            store = Store(engine, systems=[AN_CATH, CONTEST, GENERAL],
                          keyring=Keyring.of(new_key(), source="the bench's own key"))
            indexed = p50_ms(store, args.reads)
            with engine.begin() as connection:
                connection.exec_driver_sql("DROP INDEX ix_ledger_entry")
            unindexed = p50_ms(store, args.reads)
        finally:
            engine.dispose()
    print(f"moderators.ms_p50_indexed {indexed:.3f}")
    print(f"moderators.ms_p50_unindexed {unindexed:.3f}")
    print(f"moderators.x_faster {unindexed / indexed:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
