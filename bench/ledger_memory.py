"""Benchmark: ``ancath-bot ledger`` and ``audit verify`` as the ledger grows, each beside
a bare loop over the same rows, and each child's own peak memory beside its import floor.

    python bench/ledger_memory.py [--rows N] [--warriors W] [--dir DIR]

Fills two new SQLite files with a valid signed ledger, N/10 and N rows (default 100000):
W warriors (default 50) created through ``storage.store.Store``, then moderator BP
changes written in bulk, each row signed and chained as ``storage.ledger.append`` does,
the warriors' cached BP and the ledger head set to match, so ``audit verify`` proves it
all. Then, on each file, each in a child process of its own (``bench/child_memory.py``:
the child's own peak RSS, not the parent's it would inherit at fork and exec):

- ``ledger --format csv``, ``ledger --format json`` (output discarded) and ``audit
  verify``, timed from start to exit;
- the bare loop of the same run for each (``bench/ledger_bare.py``, a new interpreter
  that imports no more than it needs): the same rows read through ``sqlite3`` alone in
  one query, written by ``csv.writer``, or as ``json.dumps(row, indent=1)`` each, or for
  ``audit verify`` each row's SHA-256 link recomputed and its Ed25519 signature
  checked; nothing else;
- the import floor: a child that only imports the modules the command's child had
  loaded at its end.

Prints one figure a line, ``ledger_memory.<command>.<name> value``, for ``ledger_csv``,
``ledger_json`` and ``audit_verify``: ``peak_rss_kb_small``, ``_large``, ``.ratio``
(large over small: near 1 when memory stays flat as the ledger grows),
``import_floor_kb``, ``seconds_small``, ``_large``, ``bare_seconds_small``, ``_large``,
``x_bare_loop`` (at the large size; goal at most 2) and ``goal_2x_bare_loop met`` (or
``missed``); then ``ledger_memory.fill_rows_per_second``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:  # run as a script from anywhere: make the repository importable
    sys.path.insert(0, ROOT)

from child_memory import import_floor_kb, module_peak, own_peak  # noqa: E402
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

BARE = Path(__file__).resolve().parent / "ledger_bare.py"
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


@dataclass(frozen=True)
class Measured:
    """One command's run on one file, and its bare loop's."""

    seconds: float
    peak: int
    bare: float
    modules: list[str]


def measure(name: str, db: Path, key_file: Path, public: str) -> Measured:
    """``name``'s seconds, own peak and modules, and its bare loop's seconds, on ``db``."""
    args = COMMANDS[name]
    keys = ("--key-file", str(key_file)) if args[0] == "audit" else ()
    seconds, peak, _, modules = module_peak("bot.cli", [*args, "--db", str(db), *keys])
    form = {"ledger_csv": "csv", "ledger_json": "json", "audit_verify": "verify"}[name]
    bare_seconds = own_peak([sys.executable, str(BARE), form, str(db), public])[0]
    return Measured(seconds, peak, bare_seconds, modules)


def main(argv: list[str] | None = None) -> dict[str, float | str]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000, help="rows in the large ledger")
    parser.add_argument("--warriors", type=int, default=50)
    parser.add_argument("--dir", help="where to put the databases (default: a temp dir)")
    args = parser.parse_args(argv)
    if args.rows < 20 or args.warriors < 1:
        parser.error("--rows must be at least 20, --warriors at least 1")
    figures: dict[str, float | str] = {}
    with tempfile.TemporaryDirectory(prefix="ancath-bench-", dir=args.dir) as scratch:
        key = new_key()
        public = signing_key(key.encode()).public.raw.hex()
        key_file = Path(scratch) / "ledger.key"
        key_file.write_text(key + "\n", encoding="utf-8")
        key_file.chmod(0o600)
        sizes = {"small": args.rows // 10, "large": args.rows}
        rates = []
        dbs = {}
        for label, rows in sizes.items():
            dbs[label] = Path(scratch) / f"{label}.sqlite3"
            rates.append(fill(dbs[label], rows, args.warriors, key))
        for name in COMMANDS:
            got = {label: measure(name, db, key_file, public) for label, db in dbs.items()}
            at = f"ledger_memory.{name}"
            for label, one in got.items():
                figures[f"{at}.peak_rss_kb_{label}"] = one.peak
            figures[f"{at}.ratio"] = round(got["large"].peak / got["small"].peak, 2)
            figures[f"{at}.import_floor_kb"] = import_floor_kb(got["large"].modules)
            for label, one in got.items():
                figures[f"{at}.seconds_{label}"] = round(one.seconds, 2)
                figures[f"{at}.bare_seconds_{label}"] = round(one.bare, 2)
            ratio = got["large"].seconds / got["large"].bare
            figures[f"{at}.x_bare_loop"] = round(ratio, 2)
            figures[f"{at}.goal_2x_bare_loop"] = "met" if ratio <= 2 else "missed"
        figures["ledger_memory.fill_rows_per_second"] = round(min(rates), 1)
    for name, value in figures.items():
        print(f"{name} {value}")
    return figures


if __name__ == "__main__":
    main()
    sys.exit(0)
