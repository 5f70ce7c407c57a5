"""The record-keeping half of the command-line contract, on a real SQLite file."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from rules.ancath.sheet import create_warrior
from rules.ancath.stored import mod_bp
from rules.ancath.system import AN_CATH
from rules.ancath.tables import Culture, Skill
from rules.contest.model import parse_fighter
from rules.contest.system import CONTEST
from rules.general.model import GeneralFighter, parse_dice
from rules.general.system import GENERAL
from storage.db import open_database
from storage.store import Store

SYSTEMS = (AN_CATH, CONTEST, GENERAL)
"""The rules systems these stores are handed (storage alone, no bot)."""


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True,
                          text=True, timeout=60)


def test_db_upgrade_show_ledger_and_verify(tmp_path: Path) -> None:
    db = str(tmp_path / "club.sqlite3")
    assert cli("db", "upgrade", "--db", db).returncode == 0
    store = Store(open_database(db), systems=SYSTEMS)
    sheet, _ = create_warrior("Gorbag", Culture.GOBLIN, [Skill.CLUB, Skill.SPEAR])
    store.create_warrior(sheet, "gob")
    store.change_sheet("Gorbag", mod_bp(12, "mod", "tournament prize"))

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


def test_show_a_simple_contest_fighter(tmp_path: Path) -> None:
    db = str(tmp_path / "club.sqlite3")
    Store(open_database(db), systems=SYSTEMS).create_fighter(
        "contest", parse_fighter("Alain", "15W", "sword^3", 2), "al")
    shown = cli("warrior", "show", "alain", "--db", db, "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == {
        "name": "Alain", "owner": "al", "system": "contest", "rating": 15, "masteries": 1,
        "weapon": "sword", "edge": 3, "edge_mastery": False, "armour": 2,
        "status": "free", "captor": None,
    }
    plain = cli("warrior", "show", "Alain", "--db", db)
    assert plain.returncode == 0, plain.stderr
    assert "system: contest" in plain.stdout.splitlines()


def test_show_a_general_rules_fighter(tmp_path: Path) -> None:
    db = str(tmp_path / "club.sqlite3")
    fighter = GeneralFighter("Farthan", 25, 13, 14, parse_dice("1d10"), parse_dice("2d6+1"),
                             0, 2)
    Store(open_database(db), systems=SYSTEMS).create_fighter("general", fighter, "far")
    shown = cli("warrior", "show", "farthan", "--db", db, "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == {
        "name": "Farthan", "owner": "far", "system": "general", "health": 25, "strength": 13,
        "skill": 14, "weapon": "1d10", "base": "2d6+1", "defense": 0, "protection": 2,
        "status": "free", "captor": None,
    }
    plain = cli("warrior", "show", "Farthan", "--db", db)
    assert plain.returncode == 0, plain.stderr
    assert "weapon: 1d10" in plain.stdout.splitlines()


def test_show_an_an_cath_warrior_in_plain_text(tmp_path: Path) -> None:
    db = str(tmp_path / "club.sqlite3")
    sheet, _ = create_warrior("Gorbag", Culture.GOBLIN, [Skill.CLUB, Skill.SPEAR])
    Store(open_database(db), systems=SYSTEMS).create_warrior(sheet, "gob")
    plain = cli("warrior", "show", "Gorbag", "--db", db)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.splitlines()[:3] == ["name: Gorbag", "owner: gob", "culture: goblin"]
    assert "system" not in plain.stdout


def test_the_ledger_csv_neutralises_formulas_as_the_web_download_does(tmp_path: Path) -> None:
    """One writer (``bot.ledger_csv``): the same bytes from the command line and the web,
    each reason a spreadsheet would run kept as text."""
    from starlette.testclient import TestClient

    from bot.web.app import make_app
    from storage.db import open_read_only
    from storage.keys import Keyring

    db = str(tmp_path / "club.sqlite3")
    store = Store(open_database(db), systems=SYSTEMS)
    sheet, _ = create_warrior("Gorbag", Culture.GOBLIN, [Skill.CLUB, Skill.SPEAR])
    store.create_warrior(sheet, "gob")
    reasons = ['=HYPERLINK("http://x","y")', "+1", "-2+3", "@SUM(A1)", "\tx", "\r=x"]
    for reason in reasons:
        store.change_sheet("Gorbag", mod_bp(1, "mod", reason))
    store.engine.dispose()
    shown = subprocess.run([sys.executable, "-m", "bot.cli", "ledger", "--db", db, "--format",
                            "csv"], capture_output=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    engine = open_read_only(db)
    web = TestClient(make_app(Store(engine, systems=SYSTEMS, keyring=Keyring()))).get("/ledger.csv")
    engine.dispose()
    assert web.status_code == 200 and web.content == shown.stdout
    got = [row["reason"] for row in csv.DictReader(io.StringIO(shown.stdout.decode(),
                                                               newline=""))]
    assert got[1:] == ["'" + reason for reason in reasons]


def test_setting_changes_from_the_command_line_are_ledger_rows_anyone_can_prove(
        tmp_path: Path) -> None:
    """``db home-network`` and ``moderator password`` write a ``setting-changed`` row each
    (a password's by its key only, never the hash); the books still balance, by the
    secret and by the public key alone."""
    db = tmp_path / "club.sqlite3"
    config = tmp_path / "bot.yaml"
    config.write_text(f"database: {db}\nmoderators: [boss]\n")
    assert cli("db", "upgrade", "--db", str(db)).returncode == 0
    made = cli("db", "home-network", "libera", "--db", str(db))
    assert made.returncode == 0, made.stderr
    password = subprocess.run(
        [sys.executable, "-m", "bot.cli", "moderator", "password", "boss", "--config",
         str(config), "--password-stdin"], input="hunter2hunter2\n", capture_output=True,
        text=True, timeout=60)
    assert password.returncode == 0, password.stderr

    rows = json.loads(cli("ledger", "--db", str(db), "--format", "json").stdout)
    assert [(r["entry"], r["warrior"], r["actor"], r["reason"], r["detail"]) for r in rows] == [
        ("setting-changed", None, "command line",
         "home network set on the command line (was none)", "accounts:home set to libera"),
        ("setting-changed", None, "cli", "password for boss",
         "moderator-password:boss set (a secret, not recorded)")]
    with sqlite3.connect(db) as raw:
        (stored,) = raw.execute("SELECT value FROM settings WHERE key = "
                                "'moderator-password:boss'").fetchone()
        chain = "\n".join(map(str, raw.execute("SELECT * FROM ledger")))
    assert json.loads(stored)["value"]["hash"] not in chain
    text = cli("ledger", "--db", str(db)).stdout.splitlines()
    assert [line.split("  ")[2:] for line in text] == [
        ["club", "setting-changed", "accounts:home set to libera", "command line",
         "home network set on the command line (was none)"],
        ["club", "setting-changed", "moderator-password:boss set (a secret, not recorded)",
         "cli", "password for boss"]]

    assert cli("audit", "verify", "--db", str(db)).returncode == 0
    key = cli("key", "public", "--db", str(db)).stdout.strip()
    out = tmp_path / "club.jsonl"
    assert cli("audit", "export", "--db", str(db), "--out", str(out)).returncode == 0
    proved = cli("audit", "verify", "--export", str(out), "--public-key", key)
    assert proved.returncode == 0, proved.stdout + proved.stderr
