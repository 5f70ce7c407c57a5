"""``ancath-bot warrior show [--json]`` and ``ledger [--format json|csv|table]``: the
club's records as leadership reads them (``ledger`` reads only: no keys needed, none
made)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any

from bot.commandline.audit import printable
from bot.ledger_csv import csv_value_chunks
from bot.ledger_json import json_chunks
from bot.systems.registry import PLUGINS, SYSTEMS
from storage.db import open_database, open_read_only
from storage.keys import Keyring
from storage.records import LedgerEntry
from storage.store import Store

__all__ = ["ledger", "print_ledger", "warrior_show"]


def warrior_show(args: argparse.Namespace, url: str) -> int:
    """``warrior show <name> [--json]``: one field a line, or one JSON object."""
    data = _warrior_json(Store(open_database(url), systems=SYSTEMS.rules), args.name)
    if args.json:
        print(json.dumps(data))
    else:
        print("\n".join(f"{k}: {v}" for k, v in data.items()))
    return 0


def ledger(args: argparse.Namespace, url: str) -> int:
    """``ledger [--warrior NAME] [--format ...]``, read only. The JSON is the text
    ``json.dumps(rows, indent=1)`` gives (:mod:`bot.ledger_json`); the CSV the web
    download's (:mod:`bot.ledger_csv`)."""
    store = Store(open_read_only(url), systems=SYSTEMS.rules, keyring=Keyring())
    if args.format in ("csv", "json"):   # the values, streamed through their encoders
        chunks = (csv_value_chunks if args.format == "csv" else json_chunks)(
            store.ledger_values(args.warrior))
        sys.stdout.writelines(chunks)
        return 0
    print_ledger(store.ledger_rows(args.warrior))
    return 0


def _warrior_json(store: Store, name: str) -> dict[str, Any]:
    """``warrior show``'s fields, as the warrior's rules system gives them."""
    record = store.warrior(name)
    return PLUGINS[record.system].fighters.show(record)


def print_ledger(rows: Iterable[LedgerEntry]) -> None:
    """The table: a row a line, its fields apart."""
    for row in rows:
        bp = f"{row['bp']:+.1f}" if row["bp"] else ""
        spent = f"spent {row['spent']}" if row["spent"] else ""
        skill = f"{row['skill']}={row['skill_value']}" if row["skill"] else ""
        who = row["actor"] + (f" (mod {row['moderator']})" if row["moderator"] else "")
        whose = row["warrior"] or (   # a fight's row is on no warrior; a setting's, a
            f"fight {row['fight']}" if row["fight"] is not None else "club")   # moderator's
        fields = [str(row["id"]), row["at"][:19], whose, row["entry"], bp, spent,
                  skill, row["status"] or "", row["detail"], who, row["reason"]]
        print(printable("  ".join(f for f in fields if f)))
