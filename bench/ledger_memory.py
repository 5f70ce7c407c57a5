"""Benchmark: peak memory of ``ancath-bot ledger`` and ``audit verify`` as the ledger grows.

    python bench/ledger_memory.py [--rows N] [--warriors W] [--dir DIR]

Fills two new SQLite files with a valid signed ledger, N/10 and N rows (default 100000):
W warriors (default 50) created through ``storage.store.Store``, then moderator BP
changes written in bulk, each row MAC'd and chained as ``storage.ledger.append`` does,
the warriors' cached BP and the ledger head set to match, so ``audit verify`` proves it
all. Then, for each file, runs ``ledger --format csv``, ``ledger --format json`` (output
discarded) and ``audit verify`` in child processes, and reads each child's peak RSS
(``ru_maxrss``, the per-child ``RUSAGE_CHILDREN`` that ``os.wait4`` returns).

Prints one figure per line, ``name value``: for each command ``ledger_csv``,
``ledger_json`` and ``audit_verify``, ``ledger_memory.<command>.peak_rss_kb_small`` and
``..._large`` and ``.ratio`` (large over small: near 1 when memory stays flat as the
ledger grows), and ``ledger_memory.fill_rows_per_second``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:  # run as a script from anywhere: make the repository importable
    sys.path.insert(0, ROOT)

from sqlalchemy import insert, update  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from rules.ancath.sheet import create_warrior  # noqa: E402
from rules.ancath.system import AN_CATH  # noqa: E402
from rules.ancath.tables import Culture, Skill  # noqa: E402
from rules.contest.system import CONTEST  # noqa: E402
from rules.general.system import GENERAL  # noqa: E402
from storage.db import open_database  # noqa: E402
from storage.keys import Keyring, new_key  # noqa: E402
from storage.ledger import signed_hash  # noqa: E402
from storage.models import LedgerHead, LedgerRow, Warrior  # noqa: E402
from storage.signing import signing_key  # noqa: E402
from storage.store import Store  # noqa: E402

CHUNK = 5000
COMMANDS = {
    "ledger_csv": ("ledger", "--format", "csv"),
    "ledger_json": ("ledger", "--format", "json"),
    "audit_verify": ("audit", "verify"),
}


def fill(path: Path, rows: int, warriors: int, key: str) -> float:
    """A new SQLite file at ``path`` with ``rows`` valid ledger rows; rows per second."""
    started = time.perf_counter()
    engine = open_database(str(path))
    try:
        store = Store(engine, systems=[AN_CATH, CONTEST, GENERAL], keyring=Keyring.of(key))
        names = [f"W{n:04d}" for n in range(min(warriors, rows))]
        for name in names:
            sheet, _ = create_warrior(name, Culture.GOBLIN, [Skill.CLUB, Skill.SPEAR])
            store.create_warrior(sheet, name.lower())
        signer = signing_key(key.encode())
        kid = signer.public.id
        with Session(engine) as session, session.begin():
            chain = session.get_one(LedgerHead, 1)
            ids = [w.id for w in session.query(Warrior).order_by(Warrior.id)]
            totals = dict.fromkeys(ids, 0)
            previous, next_id = chain.last_hash, chain.last_id + 1
            batch: list[dict[str, Any]] = []
            for n in range(rows - len(names)):
                warrior = ids[n % len(ids)]
                tenths = 1 if totals[warrior] == 0 else -1
                totals[warrior] += tenths
                fields = {
                    "id": next_id, "warrior_id": warrior, "entry": "moderator-bp",
                    "bp": tenths, "spent": 0, "skill": None, "skill_value": None,
                    "status": None, "captor_id": None, "detail": None, "actor": "mod",
                    "moderator": "mod", "fight_id": None, "command_seq": None,
                    "reason": f"bench adjustment number {n}",
                    "created_at": "2024-05-01T12:00:00.000000+00:00",
                    "prev_hash": previous, "key_id": kid,
                }
                fields["hash"] = previous = signed_hash(previous, LedgerRow(**fields))
                fields["signature"] = signer.sign(previous)
                batch.append(fields)
                next_id += 1
                if len(batch) == CHUNK:
                    session.execute(insert(LedgerRow), batch)
                    batch = []
            if batch:
                session.execute(insert(LedgerRow), batch)
            for warrior, bp in totals.items():
                session.execute(update(Warrior).where(Warrior.id == warrior).values(bp=bp))
            chain.last_id, chain.last_hash, chain.key_id = next_id - 1, previous, kid
    finally:
        engine.dispose()
    return rows / (time.perf_counter() - started)


def peak_rss_kb(args: tuple[str, ...], db: Path, key_file: Path) -> int:
    """Run ``ancath-bot <args>`` on ``db``, output discarded; the child's peak RSS in KB."""
    keys = ("--key-file", str(key_file)) if args[0] == "audit" else ()
    child = subprocess.Popen([sys.executable, "-m", "bot.cli", *args, "--db", str(db), *keys],
                             cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    errors = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    child.stderr.close()
    if child.returncode != 0:
        raise SystemExit(f"ancath-bot {' '.join(args)} exited {child.returncode}: "
                         f"{errors.decode(errors='replace')}")
    return usage.ru_maxrss


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000, help="rows in the large ledger")
    parser.add_argument("--warriors", type=int, default=50)
    parser.add_argument("--dir", help="where to put the databases (default: a temp dir)")
    args = parser.parse_args(argv)
    if args.rows < 20 or args.warriors < 1:
        parser.error("--rows must be at least 20, --warriors at least 1")
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="ancath-bench-", dir=args.dir) as scratch:
        key = new_key()
        key_file = Path(scratch) / "ledger.key"
        key_file.write_text(key + "\n", encoding="utf-8")
        key_file.chmod(0o600)
        sizes = {"small": args.rows // 10, "large": args.rows}
        rates = []
        dbs = {}
        for label, rows in sizes.items():
            dbs[label] = Path(scratch) / f"{label}.sqlite3"
            rates.append(fill(dbs[label], rows, args.warriors, key))
        for name, command in COMMANDS.items():
            peak = {label: peak_rss_kb(command, db, key_file) for label, db in dbs.items()}
            figures[f"ledger_memory.{name}.peak_rss_kb_small"] = peak["small"]
            figures[f"ledger_memory.{name}.peak_rss_kb_large"] = peak["large"]
            figures[f"ledger_memory.{name}.ratio"] = round(peak["large"] / peak["small"], 2)
        figures["ledger_memory.fill_rows_per_second"] = round(min(rates), 1)
    for name, value in figures.items():
        print(f"{name} {value}")
    return figures


if __name__ == "__main__":
    main()
    sys.exit(0)
