"""Issue 31, item 5: the legacy back door, through the command line, on real SQLite
files edited with ``sqlite3`` as a writer without the key would.

A chain of legacy rows (plain SHA-256, no key id) is anyone's to write: the bot never
seals one on its own. Its start stops with one line naming the command the operator
runs once when upgrading a club from before ledger keys, ``ancath-bot db seal-legacy``,
and ``audit verify`` with the key fails (exit 1) naming it; the command refuses a chain
the bot proved signed before (its signed note), so a signed club rewritten as legacy
rows is sealed by nobody.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from storage.keys import KEY_ENV

ROOT = Path(__file__).resolve().parents[2]
CREATE = "gob !create Gorbag goblin club spear\nolaf !create Olaf free-clans broadsword shield\n"
DUEL = CREATE + "olaf !challenge Gorbag\ngob !accept\nolaf !first\nolaf !attack\ngob !dodge\n"
DUEL_DICE = "50,40,20,80,5"
CONTENT = ("id", "warrior_id", "entry", "bp", "spent", "skill", "skill_value", "status",
           "captor_id", "detail", "actor", "moderator", "fight_id", "command_seq", "reason",
           "created_at")
"""What a legacy row's hash covers, so what the writer hashes."""
SEAL = "ancath-bot db seal-legacy [--db X | --config C]"


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != KEY_ENV}
    result = subprocess.run([sys.executable, "-m", "bot.cli", *args], input=stdin,
                            capture_output=True, text=True, timeout=60, env=environ, cwd=ROOT)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def legacy_hash(previous: str, row: dict[str, object]) -> str:
    content = json.dumps({name: row[name] for name in CONTENT}, sort_keys=True,
                         separators=(",", ":"))
    return hashlib.sha256((previous + content).encode()).hexdigest()


def rows(raw: sqlite3.Connection) -> list[dict[str, object]]:
    raw.row_factory = sqlite3.Row
    found = [dict(row) for row in raw.execute("SELECT * FROM ledger ORDER BY id")]
    for row in found:
        row["detail"] = json.loads(str(row["detail"])) if row["detail"] else None
    return found


def count(db: Path) -> int:
    with sqlite3.connect(db) as raw:
        return int(raw.execute("SELECT COUNT(*) FROM ledger").fetchone()[0])


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    """The one line a refusal says (after the first start's line of a new key, if any)."""
    assert result.returncode == 2, result.stdout + result.stderr
    said = [line for line in result.stderr.splitlines() if line.startswith("ancath-bot:")]
    assert len(said) == 1 and result.stderr.endswith(said[0] + "\n"), result.stderr
    return said[0]


def test_a_signed_chain_rewritten_as_legacy_rows_is_sealed_by_nobody(tmp_path: Path) -> None:
    db = tmp_path / "club.sqlite3"
    assert cli("console", "--db", str(db), "--dice", DUEL_DICE, stdin=DUEL).returncode == 0
    assert cli("console", "--db", str(db), stdin="").returncode == 0   # proved, and noted
    assert cli("audit", "verify", "--db", str(db)).returncode == 0
    with sqlite3.connect(db) as raw:           # Olaf's award made 40.0 BP, every row rehashed
        previous = "0" * 64
        for row in rows(raw):
            if row["entry"] == "award" and row["warrior_id"] == 2:
                row["bp"] = 400
            row["prev_hash"], row["hash"] = previous, legacy_hash(previous, row)
            previous = str(row["hash"])
            raw.execute("UPDATE ledger SET bp = ?, prev_hash = ?, hash = ?, key_id = NULL, "
                        "signature = NULL WHERE id = ?",
                        (row["bp"], row["prev_hash"], row["hash"], row["id"]))
        raw.execute("UPDATE warriors SET bp = 400 WHERE id = 2")
        raw.execute("UPDATE ledger_head SET last_hash = ?, key_id = NULL", (previous,))
    before = count(db)

    verified = cli("audit", "verify", "--db", str(db))
    assert verified.returncode == 1, verified.stdout
    assert "no signed row seals" in verified.stdout and "ancath-bot db seal-legacy" \
        in verified.stdout and "ledger intact" not in verified.stdout
    started = one_line(cli("console", "--db", str(db), stdin="olaf !sheet Olaf\n"))
    assert SEAL in started and "legacy rows" in started
    refused = one_line(cli("db", "seal-legacy", "--db", str(db)))
    assert "the bot proved this ledger signed through row" in refused
    assert "nothing sealed" in refused
    assert count(db) == before                 # nothing signed the forgery


def test_a_club_from_before_keys_starts_once_the_operator_seals_it(tmp_path: Path) -> None:
    db = tmp_path / "club.sqlite3"
    assert cli("db", "upgrade", "--db", str(db)).returncode == 0
    with sqlite3.connect(db) as raw:           # as the code before keys left them
        previous = "0" * 64
        for wid, (name, owner, culture, armour, skills) in enumerate((
                ("Gorbag", "gob", "goblin", "leather", {"club": 30, "spear": 30, "move": 30}),
                ("Olaf", "olaf", "free-clans", "highlander",
                 {"broadsword": 30, "shield": 30, "move": 30})), 1):
            profile = {"culture": culture, "armour": armour, "skills": skills}
            raw.execute("INSERT INTO warriors (id, name, name_key, owner, system, profile, bp, "
                        "bp_spent, status, created_at) VALUES (?, ?, ?, ?, 'ancath', ?, 0, 0, "
                        "'free', '2024-01-01')", (wid, name, name.lower(), owner,
                                                   json.dumps(profile)))
            row: dict[str, object] = {
                **dict.fromkeys(CONTENT), "id": wid, "warrior_id": wid, "entry": "created",
                "bp": 0, "spent": 0, "detail": {"skills": skills, "armour": armour},
                "actor": owner, "reason": "warrior created", "created_at": "2024-01-01"}
            row["hash"] = legacy_hash(previous, row)
            raw.execute("INSERT INTO ledger (id, warrior_id, entry, bp, spent, detail, actor, "
                        "reason, created_at, prev_hash, hash) VALUES (?, ?, 'created', 0, 0, "
                        "?, ?, 'warrior created', '2024-01-01', ?, ?)",
                        (wid, wid, json.dumps(row["detail"]), owner, previous, row["hash"]))
            previous = str(row["hash"])
        raw.execute("UPDATE ledger_head SET last_id = 2, last_hash = ?", (previous,))

    started = one_line(cli("console", "--db", str(db), stdin="olaf !sheet Olaf\n"))
    assert SEAL in started and "ledger rows 1..2 are legacy rows" in started
    assert count(db) == 2                      # the start wrote nothing
    verified = cli("audit", "verify", "--db", str(db))
    assert verified.returncode == 1 and "ancath-bot db seal-legacy" in verified.stdout
    sealed = cli("db", "seal-legacy", "--db", str(db))
    assert sealed.returncode == 0, sealed.stderr
    assert sealed.stdout.startswith("sealed 2 ledger rows (1..2) with key "), sealed.stdout
    assert "the signed ledger-keyed row #3 names them, and 2 attested rows follow it" \
        in sealed.stdout
    with sqlite3.connect(db) as raw:
        (detail,) = raw.execute("SELECT detail FROM ledger WHERE id = 3").fetchone()
    assert json.loads(detail)["sealed"] == 2   # the signed row names the count
    assert cli("audit", "verify", "--db", str(db)).returncode == 0
    played = cli("console", "--db", str(db), "--dice", DUEL_DICE,
                 stdin=DUEL.removeprefix(CREATE))
    assert played.returncode == 0 and "wins by a kill" in played.stdout, played.stderr
    assert cli("audit", "verify", "--db", str(db)).returncode == 0
    again = cli("db", "seal-legacy", "--db", str(db))
    assert again.returncode == 0 and again.stdout.startswith("nothing to seal"), again.stdout
