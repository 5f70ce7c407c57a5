"""After a clean stop the SQLite file alone is the club: a duel piped through ``ancath-bot
console`` to the end of its input, then a copy of ``club.sqlite3`` without its ``-wal``
and ``-shm`` files holds every ledger row the bot announced, and proves them. (``run``
stopped by SIGTERM or SIGINT: tests/integration/test_irc_run_stop.py.)"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from test_cli_ledger_trust import DUEL, DUEL_DICE, cli


def test_the_file_alone_holds_the_session_after_end_of_input(tmp_path: Path) -> None:
    club = tmp_path / "club.sqlite3"
    played = cli("console", "--db", str(club), "--dice", DUEL_DICE, stdin=DUEL)
    assert played.returncode == 0, played.stderr
    assert "Olaf wins by a kill" in played.stdout and "ledger #5 " in played.stdout

    copy = tmp_path / "copy" / "club.sqlite3"
    copy.parent.mkdir()
    shutil.copyfile(club, copy)   # the file only: no -wal, no -shm
    ledger = cli("ledger", "--db", str(copy), "--format", "json")
    assert ledger.returncode == 0, ledger.stderr
    assert [(row["id"], row["warrior"], row["entry"]) for row in json.loads(ledger.stdout)] == [
        (1, "Gorbag", "created"),
        (2, "Olaf", "created"),
        (3, "Olaf", "award"),
        (4, "Gorbag", "award"),
        (5, None, "fight-closed"),
    ]
    verified = cli("audit", "verify", "--db", str(copy), "--key-file", f"{club}.key")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "ledger intact; every total matches" in verified.stdout
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "club.sqlite3", "club.sqlite3.key", "copy"]   # the log was emptied into the file
