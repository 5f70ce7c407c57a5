"""Benchmark: ``ancath-bot ledger`` and ``audit verify`` as the ledger grows, each beside
a bare loop over the same rows, and each child's own peak memory beside its import floor.

    python bench/ledger_memory.py [--rows N] [--warriors W] [--dir DIR] [--keep DIR]
                                  [--commands ledger_csv,ledger_json,audit_verify]

Fills two new SQLite files with a valid signed ledger, N/10 and N rows (default 100000):
W warriors (default 50) created through ``storage.store.Store``, then moderator BP
changes written in bulk, each row signed and chained as ``storage.ledger.append`` does,
the warriors' cached BP and the ledger head set to match, so ``audit verify`` proves it
all (``--keep DIR``: the files and their key are kept in DIR and used again by later
runs of the same N and W). Then, on each file, each in a child process of its own
(``bench/child_memory.py``: the child's own peak RSS, not the parent's it would inherit
at fork and exec, and its CPU time):

- ``ledger --format csv``, ``ledger --format json`` (output discarded) and ``audit
  verify``, timed from start to exit;
- the bare loop of the same run for each, right after it (``bench/ledger_bare.py``, a
  new interpreter that imports no more than it needs): the same rows read through
  ``sqlite3`` alone in one query, written by ``csv.writer``, or as the text
  ``json.dumps(row, indent=1)`` gives each, by the cheapest means the standard library
  has (each value through ``json.encoder``'s scalar encoders into a template of the
  keys), or for ``audit verify`` each row's SHA-256 link recomputed and its Ed25519
  signature checked; nothing else;
- the import floor: a child that only imports the modules the command's child had
  loaded at its end.

Prints one figure a line, ``ledger_memory.<command>.<name> value``, for ``ledger_csv``,
``ledger_json`` and ``audit_verify``: ``peak_rss_kb_small``, ``_large``, ``.ratio``
(large over small: near 1 when memory stays flat as the ledger grows),
``import_floor_kb``, ``seconds_small``, ``_large``, ``bare_seconds_small``, ``_large``,
``cpu_seconds_large``, ``bare_cpu_seconds_large``, ``x_bare_loop`` (wall, at the large
size), ``x_bare_loop_cpu`` and ``goal_2x_bare_loop met`` (both at most 2) or
``missed``; then ``ledger_memory.fill_rows_per_second`` (when it filled a file).
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

from child_memory import Usage, import_floor_kb, module_usage, usage  # noqa: E402
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

    run: Usage
    bare: Usage
    modules: list[str]


def measure(name: str, db: Path, key_file: Path, public: str) -> Measured:
    """``name``'s run (with its modules) and its bare loop's, on ``db``."""
    args = COMMANDS[name]
    keys = ("--key-file", str(key_file)) if args[0] == "audit" else ()
    run, modules = module_usage("bot.cli", [*args, "--db", str(db), *keys])
    form = {"ledger_csv": "csv", "ledger_json": "json", "audit_verify": "verify"}[name]
    bare = usage([sys.executable, str(BARE), form, str(db), public])
    return Measured(run, bare, modules)


def databases(where: Path, rows: int, warriors: int, keep: bool) -> tuple[dict[str, Path],
                                                                       Path, str, list[float]]:
    """The small and the large file in ``where``, their key file, the public key (hex)
    and the fill rates; with ``keep``, files an earlier run left there are used again
    (each is filled beside its name, then renamed: a file there is whole)."""
    key_file = where / "ledger.key"
    if not (keep and key_file.exists()):
        key_file.write_text(new_key() + "\n", encoding="utf-8")
        key_file.chmod(0o600)
    key = key_file.read_text(encoding="utf-8").strip()
    public = signing_key(key.encode()).public.raw.hex()
    dbs, rates = {}, []
    for label, count in {"small": rows // 10, "large": rows}.items():
        dbs[label] = where / f"ledger-{count}-{warriors}.sqlite3"
        if keep and dbs[label].exists():
            continue
        partial = where / f".partial-{dbs[label].name}"
        partial.unlink(missing_ok=True)
        rates.append(fill(partial, count, warriors, key))
        partial.rename(dbs[label])
    return dbs, key_file, public, rates


def main(argv: list[str] | None = None) -> dict[str, float | str]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000, help="rows in the large ledger")
    parser.add_argument("--warriors", type=int, default=50)
    parser.add_argument("--dir", help="where to put the databases (default: a temp dir)")
    parser.add_argument("--keep", metavar="DIR", help="keep the databases in DIR and use "
                        "them again in later runs of the same --rows and --warriors")
    parser.add_argument("--commands", default=",".join(COMMANDS),
                        help=f"which to run, of {','.join(COMMANDS)} (default: all)")
    args = parser.parse_args(argv)
    if args.rows < 20 or args.warriors < 1:
        parser.error("--rows must be at least 20, --warriors at least 1")
    chosen = args.commands.split(",")
    if not set(chosen) <= set(COMMANDS):
        parser.error(f"--commands: choose of {','.join(COMMANDS)}")
    figures: dict[str, float | str] = {}
    with tempfile.TemporaryDirectory(prefix="ancath-bench-", dir=args.dir) as scratch:
        where = Path(args.keep or scratch)
        where.mkdir(parents=True, exist_ok=True)
        dbs, key_file, public, rates = databases(where, args.rows, args.warriors,
                                                 args.keep is not None)
        for name in chosen:
            got = {label: measure(name, db, key_file, public) for label, db in dbs.items()}
            at = f"ledger_memory.{name}"
            for label, one in got.items():
                figures[f"{at}.peak_rss_kb_{label}"] = one.run.peak
            figures[f"{at}.ratio"] = round(got["large"].run.peak / got["small"].run.peak, 2)
            figures[f"{at}.import_floor_kb"] = import_floor_kb(got["large"].modules)
            for label, one in got.items():
                figures[f"{at}.seconds_{label}"] = round(one.run.seconds, 2)
                figures[f"{at}.bare_seconds_{label}"] = round(one.bare.seconds, 2)
            large = got["large"]
            figures[f"{at}.cpu_seconds_large"] = round(large.run.cpu, 2)
            figures[f"{at}.bare_cpu_seconds_large"] = round(large.bare.cpu, 2)
            ratio = large.run.seconds / large.bare.seconds
            cpu_ratio = large.run.cpu / max(large.bare.cpu, 0.01)
            figures[f"{at}.x_bare_loop"] = round(ratio, 2)
            figures[f"{at}.x_bare_loop_cpu"] = round(cpu_ratio, 2)
            figures[f"{at}.goal_2x_bare_loop"] = "met" if max(ratio, cpu_ratio) <= 2 \
                else "missed"
        if rates:
            figures["ledger_memory.fill_rows_per_second"] = round(min(rates), 1)
    for name, value in figures.items():
        print(f"{name} {value}")
    return figures


if __name__ == "__main__":
    main()
    sys.exit(0)
