"""The bare loops ``bench/ledger_memory.py`` measures the ledger tools against: the
least any tool must do with the rows, the standard library (and ``cryptography`` for
the signatures) alone.

    python bench/ledger_bare.py csv|json|verify DATABASE PUBLIC_KEY_HEX

``csv``: every ledger row with its warrior's name in one ``sqlite3`` query, written by
``csv.writer``; ``json``: the same rows, each ``json.dumps(row, indent=1)``; ``verify``:
each row's SHA-256 link over its canonical content recomputed and its Ed25519 signature
checked (exit 1 at the first that does not hold). Output on stdout."""

from __future__ import annotations

import csv
import hashlib
import json
import sqlite3
import sys

ROW_CONTEXT = b"ancath-bot ledger row "
CONTENT = ("id", "warrior_id", "entry", "bp", "spent", "skill", "skill_value", "status",
           "captor_id", "detail", "actor", "moderator", "fight_id", "command_seq", "reason",
           "created_at")
SHOWN = ("l.id, l.created_at, w.name, l.entry, l.bp / 10.0, l.spent, l.skill, l.skill_value,"
         " l.status, l.actor, l.moderator, l.fight_id, l.reason, l.detail, l.hash, l.key_id")


def bare(form: str, db: str, public: str) -> None:
    """The bare loop for ``form`` on the SQLite file ``db``."""
    connection = sqlite3.connect(db)
    if form != "verify":
        rows = connection.execute(f"SELECT {SHOWN} FROM ledger l LEFT JOIN warriors w "
                                  "ON w.id = l.warrior_id ORDER BY l.id")
        names = [c[0] for c in rows.description]
        if form == "csv":
            csv.writer(sys.stdout).writerows(rows)
            return
        sep = "[\n"
        for row in rows:
            sys.stdout.write(sep + json.dumps(dict(zip(names, row, strict=True)), indent=1))
            sep = ",\n"
        print("\n]")
        return
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public))
    previous = "0" * 64
    for row in connection.execute(f"SELECT {', '.join(CONTENT)}, key_id, prev_hash, hash, "
                                  "signature FROM ledger ORDER BY id"):
        content = dict(zip((*CONTENT, "key_id"), row[:-3], strict=True))
        if content["detail"] is not None:
            content["detail"] = json.loads(content["detail"])
        text = json.dumps(content, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256((previous + text).encode()).hexdigest()
        if digest != row[-2] or row[-3] != previous:
            raise SystemExit(f"row {row[0]} does not hold")
        key.verify(bytes.fromhex(row[-1]), ROW_CONTEXT + digest.encode())
        previous = digest




if __name__ == "__main__":
    bare(*sys.argv[1:4])
