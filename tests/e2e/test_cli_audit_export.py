"""A club member checks the records with the club's public key alone: the export, and
every forgery of a leadership audit against it (issue 30), through the command line on
real SQLite files, forged with ``sqlite3`` the way a database writer without the key
would.

    ancath-bot key public [--db X]
    ancath-bot audit export [--db X] --out FILE
    ancath-bot audit verify --export FILE --public-key KEY [--anchor N:HASH] [--anchors LOG]
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import sqlite3
from pathlib import Path

import pytest
from test_cli_ledger_trust import DUEL, DUEL_DICE, cli, console

CONTENT = ("id", "warrior_id", "entry", "bp", "spent", "skill", "skill_value", "status",
           "captor_id", "detail", "actor", "moderator", "fight_id", "command_seq", "reason",
           "created_at")
MODERATOR = "moderators: [olaf]\n"


@pytest.fixture
def club(tmp_path: Path) -> Path:
    """A practice duel to a kill, then a moderator's grant to Gorbag."""
    db = tmp_path / "club.sqlite3"
    config = tmp_path / "mod.yaml"
    config.write_text(MODERATOR, encoding="utf-8")
    assert console(db, DUEL, dice=DUEL_DICE).returncode == 0
    granted = console(db, "olaf !mod bp Gorbag +2.0 a fine loss\n", "--config", str(config))
    assert granted.returncode == 0, granted.stderr
    return db


def public(db: Path) -> str:
    result = cli("key", "public", "--db", str(db))
    assert result.returncode == 0, result.stderr
    (line,) = result.stdout.splitlines()
    assert re.fullmatch(r"ed25519:[0-9a-f]{64}", line)
    return line


def export(db: Path) -> Path:
    out = db.with_suffix(".jsonl")
    result = cli("audit", "export", "--db", str(db), "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


def check(file: Path, key: str, *more: str) -> tuple[int, str]:
    result = cli("audit", "verify", "--export", str(file), "--public-key", key, *more)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout + result.stderr


def test_an_honest_club_is_proved_with_the_public_key_alone(club: Path) -> None:
    key = public(club)
    file = export(club)
    club.unlink()                              # no database, and no secret is given
    (club.parent / "club.sqlite3.key").unlink()
    code, said = check(file, key)
    assert code == 0, said
    assert "ledger intact; every total matches" in said
    assert re.search(r"^1\. Gorbag \(gob\): 2\.1 BP \(0 spent\), free, leather armour; "
                     r"club 30, move 30, spear 30$", said, re.M), said
    assert re.search(r"^2\. Olaf \(olaf\): 0\.2 BP \(0 spent\), free", said, re.M), said
    assert re.search(r"note: the head is ledger #\d+ [0-9a-f]{16}", said)


def test_another_key_proves_nothing(club: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite3"
    assert console(other, "gob !create Gorbag goblin club spear\n").returncode == 0
    code, said = check(export(club), public(other))
    assert code == 1 and "none of them the key given" in said, said


def forge_bp_row(db: Path, with_secret: bool) -> int:
    """A moderator's +10.0 BP row with a correct SHA-256 (or HMAC under the secret),
    the warrior's BP raised to match; returns its id."""
    with sqlite3.connect(db) as raw:
        newest, prev = raw.execute("SELECT id, hash FROM ledger ORDER BY id DESC").fetchone()
        row = dict.fromkeys(CONTENT)
        row.update(id=newest + 1, warrior_id=2, entry="moderator-bp", bp=100, spent=0,
                   actor="mod", moderator="mod", reason="forged", created_at="x")
        key_id = None
        content = dict(row)
        if with_secret:
            secret = next(line for line in Path(f"{db}.key").read_text().splitlines()
                          if not line.startswith("#")).encode()
            key_id = content["key_id"] = hashlib.sha256(secret).hexdigest()[:16]
            text = prev + json.dumps(content, sort_keys=True, separators=(",", ":"))
            forged = hmac.new(secret, text.encode(), hashlib.sha256).hexdigest()
        else:
            text = prev + json.dumps(content, sort_keys=True, separators=(",", ":"))
            forged = hashlib.sha256(text.encode()).hexdigest()
        raw.execute("INSERT INTO ledger (id, warrior_id, entry, bp, spent, actor, moderator, "
                    "reason, created_at, prev_hash, hash, key_id) VALUES (?, 2, "
                    "'moderator-bp', 100, 0, 'mod', 'mod', 'forged', 'x', ?, ?, ?)",
                    (newest + 1, prev, forged, key_id))
        raw.execute("UPDATE ledger_head SET last_id = ?, last_hash = ?", (newest + 1, forged))
        raw.execute("UPDATE warriors SET bp = bp + 100 WHERE id = 2")
    return int(newest) + 1


@pytest.mark.parametrize("with_secret", [False, True], ids=["sha256", "hmac-with-the-secret"])
def test_a_forged_award_is_named(club: Path, with_secret: bool) -> None:
    key = public(club)
    forged = forge_bp_row(club, with_secret)
    code, said = check(export(club), key)
    assert code == 1 and f"ledger row {forged}: not signed, after signed rows" in said, said


def test_a_row_deleted_and_the_rest_renumbered(club: Path) -> None:
    key = public(club)
    with sqlite3.connect(club) as raw:
        raw.execute("DELETE FROM ledger WHERE id = 3")
        raw.execute("UPDATE ledger SET id = id - 1 WHERE id > 3")
        last, _ = raw.execute("SELECT id, hash FROM ledger ORDER BY id DESC").fetchone()
        raw.execute("UPDATE ledger_head SET last_id = ?", (last,))
    code, said = check(export(club), key)
    assert code == 1 and "ledger row 3: chain broken before it" in said, said


def test_owner_theft_in_the_stored_columns(club: Path) -> None:
    key = public(club)
    with sqlite3.connect(club) as raw:
        raw.execute("UPDATE warriors SET owner = 'mallory' WHERE name_key = 'olaf'")
    code, said = check(export(club), key)
    assert code == 1 and "warrior Olaf: owner is 'mallory', ledger says 'olaf'" in said, said


def test_a_stored_bp_changed(club: Path) -> None:
    key = public(club)
    with sqlite3.connect(club) as raw:
        raw.execute("UPDATE warriors SET bp = 77 WHERE name_key = 'olaf'")
    code, said = check(export(club), key)
    assert code == 1 and "warrior Olaf: BP is 7.7, ledger says 0.2" in said, said


def test_an_award_edited_in_place(club: Path) -> None:
    key = public(club)
    with sqlite3.connect(club) as raw:
        (row,) = raw.execute("SELECT id FROM ledger WHERE entry = 'moderator-bp'").fetchone()
        raw.execute("UPDATE ledger SET bp = 200 WHERE id = ?", (row,))
        raw.execute("UPDATE warriors SET bp = bp + 180 WHERE name_key = 'gorbag'")
    code, said = check(export(club), key)
    assert code == 1 and f"ledger row {row}: content does not match its hash" in said, said


def test_a_finished_fights_log_rewritten(club: Path) -> None:
    key = public(club)
    with sqlite3.connect(club) as raw:
        raw.execute("UPDATE fight_commands SET actor = 'mallory' WHERE seq = 1")
    code, said = check(export(club), key)
    assert code == 1 and "fight 1: its command log differs from ledger row" in said, said


def test_a_rewind_passes_alone_and_is_caught_with_an_anchor(club: Path, tmp_path: Path) -> None:
    key = public(club)
    head = re.search(r"the head is ledger #(\d+) ([0-9a-f]{16})",
                     cli("audit", "verify", "--db", str(club)).stdout)
    assert head is not None
    with sqlite3.connect(club) as raw:
        newest, bp, prev = raw.execute(
            "SELECT id, bp, prev_hash FROM ledger ORDER BY id DESC").fetchone()
        raw.execute("DELETE FROM ledger WHERE id = ?", (newest,))
        raw.execute("UPDATE warriors SET bp = bp - ? WHERE name_key = 'gorbag'", (bp,))
        raw.execute("UPDATE ledger_head SET last_id = ?, last_hash = ?", (newest - 1, prev))
    file = export(club)
    assert check(file, key)[0] == 0                  # the known limit without an anchor
    code, said = check(file, key, "--anchor", f"{head[1]}:{head[2]}")
    assert code == 1 and f"there is no row {head[1]}" in said, said
    log = tmp_path / "channel.log"
    log.write_text(f"<ancath> Olaf wins. ledger #{head[1]} {head[2]}\n", encoding="utf-8")
    assert check(file, key, "--anchors", str(log))[0] == 1


def lines(file: Path) -> list[str]:
    return file.read_text(encoding="utf-8").splitlines(keepends=True)


def test_the_export_file_edited_dropped_reordered_or_inserted_into(club: Path) -> None:
    key = public(club)
    file = export(club)
    rows = [i for i, line in enumerate(lines(file)) if '"record":"row"' in line]
    honest = lines(file)

    def forged(changed: list[str]) -> str:
        file.write_text("".join(changed), encoding="utf-8")
        code, said = check(file, key)
        assert code == 1, said
        return said

    edited = list(honest)
    edited[rows[2]] = edited[rows[2]].replace('"actor":"bot"', '"actor":"mallory"', 1) \
        .replace('"actor":"gob"', '"actor":"mallory"', 1)
    assert edited != honest
    assert "ledger row 3: content does not match its hash" in forged(edited)
    dropped = [line for i, line in enumerate(honest) if i != rows[1]]
    assert "ledger rows 2..2 are missing" in forged(dropped)
    swapped = list(honest)
    swapped[rows[1]], swapped[rows[2]] = swapped[rows[2]], swapped[rows[1]]
    assert "ledger row 3" in forged(swapped)
    inserted = [*honest[:rows[2]], honest[rows[1]], *honest[rows[2]:]]
    assert "ledger row 2" in forged(inserted)
    cut = [line for line in honest if '"record":"end"' not in line]
    assert "the export ends early or was cut" in forged(cut)


def test_an_unreadable_file_is_one_line_and_exit_2(club: Path, tmp_path: Path) -> None:
    key = public(club)
    for name, content in (("garbage.jsonl", b"\x00\xff garbage\n"),
                          ("text.jsonl", b"not json at all\n"),
                          ("empty.jsonl", b"")):
        path = tmp_path / name
        path.write_bytes(content)
        code, said = check(path, key)
        assert code == 2 and len(said.strip().splitlines()) == 1, said
    code, said = check(tmp_path / "missing.jsonl", key)
    assert code == 2 and "cannot read" in said
    bad = cli("audit", "verify", "--export", str(export(club)), "--public-key", "ed25519:12")
    assert bad.returncode == 2 and "not a public key" in bad.stderr
    alone = cli("audit", "verify", "--export", str(export(club)))
    assert alone.returncode == 2 and "--public-key" in alone.stderr


def test_a_chain_signed_by_another_key_that_only_introduces_the_clubs_key_proves_nothing(
        club: Path, tmp_path: Path) -> None:
    """The whole chain signed again by a forger's own key, ending with a key-rotated row
    (signed by the forger) that names the club's public key: the club's key never
    signed a row, so it vouches for nothing."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    key = public(club)
    forger = Ed25519PrivateKey.generate()
    raw = forger.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    forger_id = hashlib.sha256(raw).hexdigest()[:16]
    records = [json.loads(line) for line in lines(export(club))]
    rows = [r for r in records if r["record"] == "row"]
    rows.append({**rows[-1], "id": rows[-1]["id"] + 1, "entry": "key-rotated",
                 "warrior_id": None, "bp": 0, "spent": 0, "skill": None, "skill_value": None,
                 "status": None, "captor_id": None, "fight_id": None, "command_seq": None,
                 "detail": {"public_key": key, "previous": "ed25519:" + raw.hex()},
                 "reason": "rotation", "actor": "bot", "moderator": None})
    previous = "0" * 64
    for row in rows:
        row["key_id"], row["prev_hash"] = forger_id, previous
        content = {name: row[name] for name in (*CONTENT, "key_id")}
        text = previous + json.dumps(content, sort_keys=True, separators=(",", ":"))
        row["hash"] = previous = hashlib.sha256(text.encode()).hexdigest()
        row["signature"] = forger.sign(b"ancath-bot ledger row " + row["hash"].encode()).hex()
    header = {**records[0], "public_keys": ["ed25519:" + raw.hex()],
              "head": {"id": rows[-1]["id"], "hash": previous}}
    rest = [r for r in records if r["record"] in ("fight", "warrior")]
    end = {**records[-1], "rows": len(rows)}
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(json.dumps(r) + "\n" for r in [header, *rows, *rest, end]),
                      encoding="utf-8")
    code, said = check(forged, key)
    assert code == 1 and "none of them the key given" in said, said


def test_after_a_rotation_the_new_public_key_alone_proves_the_club(tmp_path: Path) -> None:
    """The old secret dropped once the new key is introduced: the new public key (what
    ``key public`` now prints) proves every row, the old key's too, through the
    key-rotated row that names both."""
    from test_cli_ledger_trust import ENV_KEY, OTHER_KEY

    from storage.keys import KEY_ENV

    db = tmp_path / "club.sqlite3"
    old, new = {KEY_ENV: OTHER_KEY}, {KEY_ENV: ENV_KEY}
    assert console(db, DUEL, dice=DUEL_DICE, env=old).returncode == 0
    rotated = console(db, "gob !create Grishnakh goblin club spear\n",
                      env={KEY_ENV: f"{ENV_KEY}\n{OTHER_KEY}"})
    assert rotated.returncode == 0, rotated.stderr
    assert console(db, "gob !create Ugluk goblin club spear\n", env=new).returncode == 0
    key = cli("key", "public", "--db", str(db), env=new).stdout.strip()
    out = tmp_path / "club.jsonl"
    assert cli("audit", "export", "--db", str(db), "--out", str(out), env=new).returncode == 0
    code, said = check(out, key)
    assert code == 0, said
    verified = cli("audit", "verify", "--db", str(db), env=new)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_chain_signed_by_a_key_nobody_gave_proves_nothing_without_a_key(
        club: Path, tmp_path: Path) -> None:
    """The whole chain signed again by a forger who names their own key in a row: with
    no key kept or given, verify cannot prove it (exit 2), as with the club's own."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    forger = Ed25519PrivateKey.generate()
    raw_key = forger.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    forger_id = hashlib.sha256(raw_key).hexdigest()[:16]
    (club.parent / "club.sqlite3.key").unlink()
    with sqlite3.connect(club) as raw:
        raw.row_factory = sqlite3.Row
        rows = [dict(r) for r in raw.execute("SELECT * FROM ledger ORDER BY id")]
        newest = rows[-1]["id"]
        rows.append({**rows[-1], "id": newest + 1, "entry": "key-rotated", "warrior_id": None,
                     "bp": 0, "detail": json.dumps({"public_key": "ed25519:" + raw_key.hex(),
                                                    "previous": "ed25519:" + raw_key.hex()})})
        previous = "0" * 64
        for row in rows:
            row["key_id"], row["prev_hash"] = forger_id, previous
            content = {name: row[name] for name in CONTENT}
            content["detail"] = json.loads(row["detail"]) if row["detail"] else None
            content["key_id"] = forger_id
            text = previous + json.dumps(content, sort_keys=True, separators=(",", ":"))
            row["hash"] = previous = hashlib.sha256(text.encode()).hexdigest()
            row["signature"] = forger.sign(b"ancath-bot ledger row " + row["hash"].encode()
                                           ).hex()
        raw.execute("DELETE FROM ledger")
        for row in rows:
            raw.execute(f"INSERT INTO ledger ({', '.join(row)}) VALUES "
                        f"({', '.join('?' for _ in row)})", list(row.values()))
        raw.execute("UPDATE ledger_head SET last_id = ?, last_hash = ?, key_id = ?",
                    (newest + 1, previous, forger_id))
    verified = cli("audit", "verify", "--db", str(club))
    assert verified.returncode == 2, verified.stdout + verified.stderr
    assert "ledger intact" not in verified.stdout
