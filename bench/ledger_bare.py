"""The bare loops ``bench/ledger_memory.py`` measures the ledger tools against: the
least any tool must do with the rows, the standard library (and ``cryptography`` for
the signatures) alone.

    python bench/ledger_bare.py csv|json|json-dumps|verify DATABASE PUBLIC_KEY_HEX

``csv``: every ledger row with its warrior's name in one ``sqlite3`` query, written by
``csv.writer``; ``json``: the same rows as the text ``json.dumps(row, indent=1)`` gives
each, written the cheapest way the standard library has (each value through
``json.encoder``'s scalar encoders into a template of the keys: the indented
``json.dumps`` itself runs the slower pure-Python encoder);
``json-dumps``: each row through ``json.dumps(row, indent=1)``; ``verify``:
each row's SHA-256 link over its canonical content recomputed and its Ed25519 signature
checked (exit 1 at the first that does not hold). Output on stdout."""

from __future__ import annotations

import csv
import hashlib
import json
import sqlite3
import sys
from collections.abc import Callable
from json.encoder import encode_basestring_ascii
from typing import Any

SCALARS: dict[type, Callable[[Any], str]] = {
    str: encode_basestring_ascii, int: int.__repr__, float: float.__repr__,
    type(None): lambda _: "null"}
"""Each value of a row as ``json.dumps`` writes it (the ledger holds no NaN)."""

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
        if form == "json-dumps":
            sep = "[\n"
            for row in rows:
                sys.stdout.write(sep + json.dumps(dict(zip(names, row, strict=True)), indent=1))
                sep = ",\n"
            print("\n]")
            return
        item = " {" + ",".join(f"\n  {json.dumps(name)}: %s" for name in names) + "\n }"
        sep = "[\n"
        while chunk := rows.fetchmany(500):
            sys.stdout.write(sep + ",\n".join(
                item % tuple([SCALARS[value.__class__](value) for value in row])
                for row in chunk))
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
