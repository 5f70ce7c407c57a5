"""Forged copies of a played club (``club_history.played``), each with one thing
changed by SQL as someone with the database but not the bot would: what the
leadership pages must show as not proved.

``copy(club, dest, *statements)`` copies the club's SQLite file (SQLite's backup, so a
copy of one moment while the bot holds it open) and its ledger key beside it, then runs
the statements on the copy."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from club import Club

__all__ = ["FIGHT_LOG", "FORGERIES", "LEDGER_ROW", "STORED_BP", "copy", "first_award"]

STORED_BP = ("UPDATE warriors SET bp = 77 WHERE name = 'Bran'",)
"""Bran's stored BP made 7.7 (the ledger gives him 0.1): the standings would rank him
first."""
LEDGER_ROW = ("UPDATE ledger SET reason = 'a prize for valour', bp = 20 WHERE id = "
              "(SELECT min(id) FROM ledger WHERE entry = 'award')",)
"""The first award (Olaf's +0.2 for fight 1) made +2.0 with another reason."""
FIGHT_LOG = ("UPDATE fight_commands SET command = '{\"side\":0,\"type\":\"Roll\","
             "\"value\":90}' WHERE fight_id = 1 AND seq = 8",)
"""Fight 1's hit (a roll of 20) made a miss (90), after the fight ended."""
FORGERIES = {"stored-bp": STORED_BP, "ledger-row": LEDGER_ROW, "fight-log": FIGHT_LOG}


def copy(club: Club, dest: Path, *statements: str) -> str:
    """A copy of ``club``'s database in ``dest`` with ``statements`` run on it; its path."""
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / "club.sqlite3"
    with sqlite3.connect(club.db) as source, sqlite3.connect(path) as copied:
        source.backup(copied)
        for statement in statements:
            copied.execute(statement)
        copied.commit()
    source.close()
    copied.close()
    shutil.copy(f"{club.db}.key", f"{path}.key")
    return str(path)


def first_award(club: Club) -> int:
    """The id of the row ``LEDGER_ROW`` edits."""
    return min(r["id"] for r in club.referee.store.ledger() if r["entry"] == "award")
