"""Benchmark: ``ancath-bot audit verify --export`` beside a bare loop over the same file.

    python bench/audit_export_verify.py [--rows N] [--warriors W] [--dir DIR]

Fills two new SQLite files with a valid signed ledger of N/10 and N rows (default
1,000,000: the issue's 100k and 1M) as ``bench/ledger_memory.py`` does, writes each one's
audit export with ``ancath-bot audit export``, then times, each in a child process of
its own and on the same file:

- ``verify``: ``ancath-bot audit verify --export FILE --public-key KEY``, the whole
  check a club member runs (every link, signature and seal, every warrior rebuilt and
  compared, every fight against its closing digests, the standings printed);
- ``bare``: the least any checker must do (this file's ``bare_check``): read each line,
  parse its JSON, hash each row's canonical content with the previous hash (SHA-256) and
  check its Ed25519 signature; nothing else.

Both children start a Python interpreter, so each time includes one start-up. Prints one
figure per line, ``name value``: for ``small`` and ``large``,
``audit_export.<size>.rows``, ``.verify_seconds``, ``.bare_seconds``, ``.ratio``
(verify over bare; goal: at most 2), ``.verify_rows_per_second``,
``.verify_peak_rss_kb`` (the verifying child's own peak, not the parent's it would
inherit at fork and exec), ``.export_seconds`` and
``.file_mb``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:  # run as a script from anywhere: make the repository importable
    sys.path.insert(0, ROOT)

CONTENT = ("id", "warrior_id", "entry", "bp", "spent", "skill", "skill_value", "status",
           "captor_id", "detail", "actor", "moderator", "fight_id", "command_seq", "reason",
           "created_at")
ROW_CONTEXT = b"ancath-bot ledger row "


def bare_check(path: str, public_key: str) -> int:
    """The bare reference: every row's hash and signature, nothing else; rows checked.
    Exits 1 on the first row that does not hold."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key.split(":")[-1]))
    previous, rows = "0" * 64, 0
    with open(path, encoding="utf-8") as file:
        for line in file:
            record = json.loads(line)
            if record["record"] != "row":
                continue
            content = {name: record[name] for name in CONTENT}
            content["key_id"] = record["key_id"]
            text = json.dumps(content, sort_keys=True, separators=(",", ":"))
            digest = hashlib.sha256((previous + text).encode()).hexdigest()
            if digest != record["hash"] or record["prev_hash"] != previous:
                raise SystemExit(f"row {record['id']} does not hold")
            key.verify(bytes.fromhex(record["signature"]), ROW_CONTEXT + digest.encode())
            previous, rows = digest, rows + 1
    return rows


def run_measured(args: list[str]) -> tuple[float, int, str]:
    """Run ``args`` in a child; its wall seconds, its own peak RSS in KB (under
    ``/usr/bin/time``: ``bench/child_memory.py``) and its stdout."""
    from child_memory import own_peak

    seconds, peak, out = own_peak(args)
    return seconds, peak, out.decode()


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows in the large ledger")
    parser.add_argument("--warriors", type=int, default=50)
    parser.add_argument("--dir", help="where to put the files (default: a temp dir)")
    parser.add_argument("--bare", nargs=2, metavar=("FILE", "KEY"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bare:
        print(bare_check(*args.bare))
        return {}
    if args.rows < 20 or args.warriors < 1:
        parser.error("--rows must be at least 20, --warriors at least 1")
    from ledger_memory import fill  # the same bulk-written signed ledger

    from storage.keys import new_key

    figures: dict[str, float] = {}
    cli = [sys.executable, "-m", "bot.cli"]
    with tempfile.TemporaryDirectory(prefix="ancath-bench-", dir=args.dir) as scratch:
        key = new_key()
        key_file = Path(scratch) / "ledger.key"
        key_file.write_text(key + "\n", encoding="utf-8")
        key_file.chmod(0o600)
        for label, rows in {"small": args.rows // 10, "large": args.rows}.items():
            db, out = Path(scratch) / f"{label}.sqlite3", Path(scratch) / f"{label}.jsonl"
            fill(db, rows, args.warriors, key)
            keys = ["--db", str(db), "--key-file", str(key_file)]
            public = run_measured([*cli, "key", "public", *keys])[2].strip()
            exported = run_measured([*cli, "audit", "export", *keys, "--out", str(out)])[0]
            verify, peak, said = run_measured([*cli, "audit", "verify", "--export", str(out),
                                               "--public-key", public])
            if "ledger intact" not in said:
                raise SystemExit(f"audit verify did not prove the {label} export: {said}")
            bare, _, counted = run_measured([sys.executable, __file__, "--bare", str(out),
                                             public])
            name = f"audit_export.{label}"
            figures[f"{name}.rows"] = int(counted)
            figures[f"{name}.verify_seconds"] = round(verify, 2)
            figures[f"{name}.bare_seconds"] = round(bare, 2)
            figures[f"{name}.ratio"] = round(verify / bare, 2)
            figures[f"{name}.verify_rows_per_second"] = round(int(counted) / verify)
            figures[f"{name}.verify_peak_rss_kb"] = peak
            figures[f"{name}.export_seconds"] = round(exported, 2)
            figures[f"{name}.file_mb"] = round(out.stat().st_size / 1e6, 1)
            db.unlink()
            out.unlink()
    for name, value in figures.items():
        print(f"{name} {value}")
    return figures


if __name__ == "__main__":
    main()
    sys.exit(0)
