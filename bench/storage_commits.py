"""Benchmark: durable commits of fight commands through ``storage.store.Store``.

    python bench/storage_commits.py [--commands N] [--seed S] [--sqlite PATH]
                                    [--pg-url URL | --no-pg]

Records N scripted An Cath fight commands, each in its own transaction, as the bot does
for every accepted command: the command with its roll, its events, and at a fight's end
the ledger rows and warrior changes. Fights follow a random legal policy from
``random.Random(seed)`` (a benchmark may use a seeded PRNG; the bot never does, R1.4),
between four warriors, with a new fight opened whenever one ends. Each fight's commands
are worked out in memory first, so only ``Store.record`` is timed.

Backends:

- SQLite: a new file in a temp dir (or ``--sqlite PATH``), WAL with ``synchronous=FULL``,
  so every commit is synced to disk before ``record`` returns.
- PostgreSQL: ``--pg-url``, else ``ANCATH_BENCH_PG_URL`` or ``ANCATH_TEST_PG_URL``. A
  fresh database is created on that server for the run and dropped afterwards (the URL's
  user needs CREATEDB); ``synchronous_commit`` is the server's (on by default).

Prints one figure per line, ``name value``:

- ``storage.sqlite.commands_per_second``, ``storage.postgresql.commands_per_second``:
  commands recorded per second of time spent in ``record``;
- ``storage.<backend>.ms_per_command_p50`` and ``..._p99``: the per-command latency;
- ``storage.<backend>.bare_commits_per_second``: the bare reference of the same run, on
  a new database of the same kind (same file system, same server): one small row
  INSERTed and committed a transaction straight through the driver (sqlite3 or psycopg),
  none of the store's work around it; measured just before and just after the store's
  run (``_before``, ``_after``), the figure their mean;
- ``storage.<backend>.x_bare_commits``: ``commands_per_second`` over it (1 would be a
  store as fast as a bare commit).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:  # run as a script from anywhere: make the repository importable
    sys.path.insert(0, ROOT)

from sqlalchemy import create_engine, make_url, text  # noqa: E402

from rules.ancath import legal_actions  # noqa: E402
from rules.ancath.commands import Roll  # noqa: E402
from rules.ancath.sheet import create_warrior  # noqa: E402
from rules.ancath.state import Need  # noqa: E402
from rules.ancath.system import AN_CATH  # noqa: E402
from rules.ancath.tables import Culture, Skill  # noqa: E402
from rules.contest.system import CONTEST  # noqa: E402
from rules.general.system import GENERAL  # noqa: E402
from storage.db import open_database  # noqa: E402
from storage.keys import Keyring, new_key  # noqa: E402
from storage.store import Store  # noqa: E402

WARRIORS = (
    ("Olaf", Culture.FREE_CLANS, (Skill.BROADSWORD, Skill.SHIELD)),
    ("Gorbag", Culture.GOBLIN, (Skill.CLUB, Skill.SPEAR)),
    ("Marcus", Culture.INVADERS, (Skill.SHIELD, Skill.SHORTSWORD)),
    ("Fenella", Culture.FAIRY, (Skill.SHORTSWORD, Skill.LAJATANG)),
)
KINDS = ("practice", "duel")
"""No mortal fights: the dead cannot fight again and the four warriors must last."""


def script(state: Any, rng: random.Random) -> list[tuple[Any, Any, tuple[Any, ...]]]:
    """A whole fight from ``state`` by a random legal policy: (command, state, events)."""
    steps = []
    while state.outcome is None:
        awaiting = state.awaiting
        command: Any
        if awaiting.need is Need.ROLL:
            command = Roll(awaiting.side, rng.randint(1, 100))
        else:
            command = rng.choice(legal_actions(state)).command
        state, events = AN_CATH.apply(state, command)
        steps.append((command, state, events))
    return steps


def run(url: str, commands: int, seed: int) -> list[float]:
    """Record ``commands`` commands on a new database at ``url``; each one's seconds."""
    engine = open_database(url)
    try:
        store = Store(engine, systems=[AN_CATH, CONTEST, GENERAL],
                      keyring=Keyring.of(new_key(), source="the bench's own key"))
        for name, culture, skills in WARRIORS:
            sheet, _ = create_warrior(name, culture, skills, fairy_open=True)
            store.create_warrior(sheet, name.lower())
        rng = random.Random(seed)
        timings: list[float] = []
        while len(timings) < commands:
            (a, *_), (b, *_) = rng.sample(WARRIORS, 2)
            fight, _ = store.open_fight("#bench", AN_CATH, rng.choice(KINDS),
                                        [(a, a.lower()), (b, b.lower())], a.lower())
            steps = script(fight.state, rng)[: commands - len(timings)]  # the last may stop
            for command, state, events in steps:
                started = time.perf_counter()
                fight = store.record(fight, command, "bench", state, events)
                timings.append(time.perf_counter() - started)
        problems = store.verify()
        if problems:
            raise SystemExit(f"ledger problems after the run: {problems}")
        return timings
    finally:
        engine.dispose()


def bare(url: str, commits: int, sync: float = 0.0) -> list[float]:
    """Each of ``commits`` bare transactions' seconds on a new database at ``url``: one
    row of about a fight command's size, INSERTed and committed through the driver, each
    commit ``sync`` seconds slower (``group_commit.py --sync-ms``)."""
    engine = open_database(url)
    body = '{"actor":"olaf","command":{"side":"a","type":"Roll","value":42}}' * 3
    try:
        raw = engine.raw_connection()
        try:
            cursor = raw.cursor()
            cursor.execute("CREATE TABLE bare_commits (id INTEGER PRIMARY KEY, body TEXT)")
            raw.commit()
            insert = "INSERT INTO bare_commits (id, body) VALUES (%s, %s)" \
                if engine.dialect.paramstyle in ("format", "pyformat") else \
                "INSERT INTO bare_commits (id, body) VALUES (?, ?)"
            timings = []
            for row in range(commits):
                started = time.perf_counter()
                cursor.execute(insert, (row, body))
                if sync:
                    time.sleep(sync)
                raw.commit()
                timings.append(time.perf_counter() - started)
            return timings
        finally:
            raw.close()
    finally:
        engine.dispose()


@contextmanager
def scratch_pg_database(url: str) -> Iterator[str]:
    """A new database on the server of ``url``, dropped on the way out."""
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    name = f"ancath_bench_{uuid.uuid4().hex[:12]}"
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield make_url(url).set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as connection:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


def report(backend: str, timings: list[float], before: list[float],
           after: list[float]) -> None:
    """Print a backend's figures; ``before`` and ``after`` are the bare commits' seconds."""
    cuts = statistics.quantiles(timings, n=100, method="inclusive")
    rate = len(timings) / sum(timings)
    bare = [len(b) / sum(b) for b in (before, after)]
    print(f"storage.{backend}.commands_per_second {rate:.1f}")
    print(f"storage.{backend}.ms_per_command_p50 {cuts[49] * 1000:.2f}")
    print(f"storage.{backend}.ms_per_command_p99 {cuts[98] * 1000:.2f}")
    print(f"storage.{backend}.bare_commits_per_second {sum(bare) / 2:.1f}")
    print(f"storage.{backend}.bare_commits_per_second_before {bare[0]:.1f}")
    print(f"storage.{backend}.bare_commits_per_second_after {bare[1]:.1f}")
    print(f"storage.{backend}.x_bare_commits {rate / (sum(bare) / 2):.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=2000, help="commands per backend")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sqlite", help="SQLite file to use (default: a new temp file)")
    parser.add_argument("--pg-url", help="PostgreSQL server URL (default: from env)")
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    args = parser.parse_args(argv)
    if args.commands < 2:
        parser.error("--commands must be at least 2")
    if args.sqlite and Path(args.sqlite).exists():
        parser.error(f"{args.sqlite} exists: the benchmark needs a new file")

    with tempfile.TemporaryDirectory(prefix="ancath-bench-") as scratch:
        path = args.sqlite or str(Path(scratch) / "bench.sqlite3")
        before = bare(f"sqlite:///{Path(scratch) / 'bare1.sqlite3'}", args.commands)
        timings = run(f"sqlite:///{path}", args.commands, args.seed)
        report("sqlite", timings, before,
               bare(f"sqlite:///{Path(scratch) / 'bare2.sqlite3'}", args.commands))

    pg_url = pg_server(args, "storage.postgresql")
    if pg_url is not None:
        with scratch_pg_database(pg_url) as url:
            before = bare(url, args.commands)
        with scratch_pg_database(pg_url) as url:
            timings = run(url, args.commands, args.seed)
        with scratch_pg_database(pg_url) as url:
            report("postgresql", timings, before, bare(url, args.commands))
    return 0


def pg_server(args: argparse.Namespace, figures: str) -> str | None:
    """The PostgreSQL server's URL: ``--pg-url``, else from the environment; None (and
    why ``figures`` are skipped) with ``--no-pg`` or none given."""
    url: str | None = args.pg_url or os.environ.get("ANCATH_BENCH_PG_URL") or \
        os.environ.get("ANCATH_TEST_PG_URL")
    if url is None and not args.no_pg:
        print("no PostgreSQL URL (--pg-url, ANCATH_BENCH_PG_URL or ANCATH_TEST_PG_URL): "
              f"skipping {figures}", file=sys.stderr)
    return None if args.no_pg else url


if __name__ == "__main__":
    sys.exit(main())
