"""The record-keeping half of the command-line contract, on a real SQLite file."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from rules.ancath.sheet import create_warrior
from rules.ancath.tables import Culture, Skill
from storage.db import open_database
from storage.store import Store


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True,
                          text=True, timeout=60)


def test_db_upgrade_show_ledger_and_verify(tmp_path: Path) -> None:
    db = str(tmp_path / "club.sqlite3")
    assert cli("db", "upgrade", "--db", db).returncode == 0
    store = Store(open_database(db))
    sheet, _ = create_warrior("Gorbag", Culture.GOBLIN, [Skill.CLUB, Skill.SPEAR])
    store.create_warrior(sheet, "gob")
    store.adjust_bp("Gorbag", 12, "mod", "tournament prize")

    shown = cli("warrior", "show", "gorbag", "--db", db, "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == {
        "name": "Gorbag", "owner": "gob", "culture": "goblin", "armour": "leather",
        "skills": {"club": 30, "move": 30, "spear": 30}, "bp": 1.2, "bp_spent": 0,
        "test": 42, "status": "free", "captor": None,
    }
    rows = json.loads(cli("ledger", "--db", db, "--format", "json").stdout)
    assert [(r["entry"], r["bp"], r["moderator"]) for r in rows] == [
        ("created", 0.0, None), ("moderator-bp", 1.2, "mod")]
    assert "tournament prize" in cli("ledger", "--warrior", "Gorbag", "--db", db).stdout
    assert cli("ledger", "--db", db, "--format", "csv").stdout.startswith("id,at,warrior")
    assert cli("audit", "verify", "--db", db).returncode == 0

    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE ledger SET bp = 120 WHERE id = 2")
    verdict = cli("audit", "verify", "--db", db)
    assert verdict.returncode == 1
    assert "ledger row 2" in verdict.stdout


def test_unknown_warrior_is_a_clear_error(tmp_path: Path) -> None:
    result = cli("warrior", "show", "Nobody", "--db", str(tmp_path / "x.sqlite3"), "--json")
    assert result.returncode == 2
    assert "no warrior named Nobody" in result.stderr
    assert "Traceback" not in result.stderr
