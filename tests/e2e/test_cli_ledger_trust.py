"""The ledger's keys, anchors and read-only checks through the command line, on real
SQLite files, with SQL edits made the way an attacker would (``sqlite3``, no key).

    ancath-bot audit verify [--db URL] [--key-file FILE] [--anchor ID:MAC]... [--anchors FILE]...
    ancath-bot key new | key ids [--db URL] [--key-file FILE]
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.db_engines import make_engine
from storage.keys import KEY_ENV, key_id
from storage.schema_revision import upgrade
from storage.signing import signing_key

ROOT = Path(__file__).resolve().parents[2]
CREATE = "gob !create Gorbag goblin club spear\nolaf !create Olaf free-clans broadsword shield\n"
DUEL = CREATE + "olaf !challenge Gorbag\ngob !accept\nolaf !first\nolaf !attack\ngob !dodge\n"
DUEL_DICE = "50,40,20,80,5"
"""Initiative 50 to 40, Olaf's attack 20 hits, Gorbag's dodge 80 fails, damage 5 kills."""
ENV_KEY = "the-ledger-key-from-the-environment-0123456789"
OTHER_KEY = "some-other-ledger-key-nobody-signed-with-0123456"


def cli(*args: str, stdin: str = "", env: dict[str, str] | None = None,
        user: int | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != KEY_ENV}
    environ.update(env or {})
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=60, env=environ, cwd=ROOT,
                          user=user)


def console(db: Path, stdin: str, *more: str, dice: str | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    args = ["console", "--db", str(db), *more, *(["--dice", dice] if dice else [])]
    result = cli(*args, stdin=stdin, env=env)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def key_ids(db: Path) -> list[str]:
    with sqlite3.connect(db) as raw:
        return [kid for (kid,) in raw.execute("SELECT key_id FROM ledger ORDER BY id")]


def public_id(secret: str) -> str:
    """The id signed rows hold: the public key's, of the Ed25519 key the secret seeds."""
    return signing_key(secret.encode()).public.id


def file_key(path: Path) -> str:
    (key,) = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    return key


# -- where the key comes from ----------------------------------------------------------------


def test_the_first_start_makes_a_0600_key_beside_the_database_and_reuses_it(
    tmp_path: Path,
) -> None:
    db = tmp_path / "club.sqlite3"
    first = console(db, CREATE)
    assert first.returncode == 0, first.stderr
    key = tmp_path / "club.sqlite3.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert f"made a new ledger key in {key}" in first.stderr
    assert "keep a copy" in first.stderr and "\n" not in first.stderr.strip()
    made = key.read_text()
    again = console(db, "olaf !challenge Gorbag\n")
    assert again.returncode == 0 and again.stderr == ""
    assert key.read_text() == made
    assert set(key_ids(db)) == {public_id(file_key(key))}
    verified = cli("audit", "verify", "--db", str(db))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    ids = cli("key", "ids", "--db", str(db))
    assert ids.stdout == (f"{public_id(file_key(key))} signs and verifies (from {key}; its "
                          f"HMAC id, of older rows: {key_id(file_key(key).encode())})\n")
    assert file_key(key) not in ids.stdout + verified.stdout


def test_the_environment_key_overrides_the_key_file(tmp_path: Path) -> None:
    db = tmp_path / "club.sqlite3"
    assert console(db, CREATE, env={KEY_ENV: ENV_KEY}).returncode == 0
    assert not (tmp_path / "club.sqlite3.key").exists()
    assert set(key_ids(db)) == {public_id(ENV_KEY)}
    assert cli("audit", "verify", "--db", str(db), env={KEY_ENV: ENV_KEY}).returncode == 0

    other = tmp_path / "other.sqlite3"          # signed with its own file's key first
    assert console(other, CREATE).returncode == 0
    old = file_key(tmp_path / "other.sqlite3.key")
    refused = console(other, "olaf !challenge Gorbag\n", env={KEY_ENV: ENV_KEY})
    assert refused.returncode == 2          # the newest row's key is not in the environment
    assert public_id(old) in refused.stderr and KEY_ENV in refused.stderr
    rotated = console(other, "olaf !mod bp Olaf +1.0 x\n", "--config", str(moderator(tmp_path)),
                      env={KEY_ENV: f"{ENV_KEY}\n{old}"})
    assert rotated.returncode == 0, rotated.stderr
    assert key_ids(other)[-1] == public_id(ENV_KEY)
    assert key_ids(other)[0] == public_id(old)
    both = cli("audit", "verify", "--db", str(other), env={KEY_ENV: f"{ENV_KEY}\n{old}"})
    assert both.returncode == 0, both.stdout + both.stderr


def moderator(tmp_path: Path) -> Path:
    config = tmp_path / "bot.yaml"
    config.write_text("moderators: [olaf]\n", encoding="utf-8")
    return config


def test_postgresql_without_a_key_is_one_clear_line(tmp_path: Path) -> None:
    for args in (["console", "--db", "postgresql+psycopg://bot@127.0.0.1:1/club"],
                 ["run", "--config", str(_config(tmp_path, "postgresql://bot@db/club"))]):
        result = cli(*args)
        assert result.returncode == 2
        (line,) = result.stderr.splitlines()
        assert line.startswith("ancath-bot: no ledger key") and KEY_ENV in line
        assert "ledger_key_file" in line


def _config(tmp_path: Path, database: str) -> Path:
    """A configuration for ``run`` (with IRC: without a terminal ``run`` needs it)."""
    config = tmp_path / "pg.yaml"
    config.write_text(f"database: {database}\nheartbeat_file: {tmp_path / 'hb'}\n"
                      "irc: {server: 127.0.0.1, port: 1}\n", encoding="utf-8")
    return config


def test_a_configured_key_file_signs_and_key_new_makes_keys(tmp_path: Path) -> None:
    made = cli("key", "new").stdout.strip()
    assert re.fullmatch(r"[0-9a-f]{64}", made) and made != cli("key", "new").stdout.strip()
    keys = tmp_path / "ledger.keys"
    keys.write_text(f"{made}\n", encoding="utf-8")
    keys.chmod(0o600)
    config = tmp_path / "bot.yaml"
    config.write_text(f"ledger_key_file: {keys}\n", encoding="utf-8")
    db = tmp_path / "club.sqlite3"
    assert console(db, CREATE, "--config", str(config)).returncode == 0
    assert not (tmp_path / "club.sqlite3.key").exists()
    assert set(key_ids(db)) == {public_id(made)}
    assert cli("audit", "verify", "--db", str(db), "--config", str(config)).returncode == 0
    assert cli("audit", "verify", "--db", str(db), "--key-file", str(keys)).returncode == 0


def test_rows_whose_key_is_not_available_exit_2_naming_it(tmp_path: Path) -> None:
    db = tmp_path / "club.sqlite3"
    assert console(db, CREATE).returncode == 0
    signer = public_id(file_key(tmp_path / "club.sqlite3.key"))
    wrong = tmp_path / "wrong.keys"
    wrong.write_text(OTHER_KEY + "\n", encoding="utf-8")
    wrong.chmod(0o600)
    result = cli("audit", "verify", "--db", str(db), "--key-file", str(wrong))
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"ancath-bot: ledger key {signer} is not available: it signed "
                           "ledger rows 1..2; a key is looked for in $ANCATH_LEDGER_KEY")
    assert "ledger_key_file" in line and "intact" not in result.stdout
    (tmp_path / "club.sqlite3.key").unlink()      # no key anywhere
    result = cli("audit", "verify", "--db", str(db))
    assert result.returncode == 2 and signer in result.stderr
    assert f"{db}.key" in result.stderr


# -- attacks, anchors ------------------------------------------------------------------------


def test_sql_edits_fail_audit_verify_naming_the_row_or_field(tmp_path: Path) -> None:
    db = tmp_path / "club.sqlite3"
    assert console(db, DUEL, dice=DUEL_DICE).returncode == 0
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE warriors SET owner = 'mallory' WHERE name_key = 'gorbag'")
    stolen = cli("audit", "verify", "--db", str(db))
    assert stolen.returncode == 1
    assert stolen.stdout.splitlines() == ["warrior Gorbag: owner is 'mallory', ledger says 'gob'"]
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE warriors SET owner = 'gob' WHERE name_key = 'gorbag'")
        newest, prev = raw.execute("SELECT id, hash FROM ledger ORDER BY id DESC").fetchone()
        content = {"id": newest + 1, "warrior_id": 2, "entry": "moderator-bp", "bp": 100,
                   "spent": 0, "skill": None, "skill_value": None, "status": None,
                   "captor_id": None, "detail": None, "actor": "mod", "moderator": "mod",
                   "fight_id": None, "command_seq": None, "reason": "forged", "created_at": "x"}
        forged = hashlib.sha256((prev + json.dumps(content, sort_keys=True,
                                                   separators=(",", ":"))).encode()).hexdigest()
        raw.execute("INSERT INTO ledger (id, warrior_id, entry, bp, spent, actor, moderator, "
                    "reason, created_at, prev_hash, hash) VALUES (?, 2, 'moderator-bp', 100, "
                    "0, 'mod', 'mod', 'forged', 'x', ?, ?)", (newest + 1, prev, forged))
        raw.execute("UPDATE ledger_head SET last_id = ?, last_hash = ?", (newest + 1, forged))
        raw.execute("UPDATE warriors SET bp = bp + 100 WHERE id = 2")
    result = cli("audit", "verify", "--db", str(db))
    assert result.returncode == 1
    assert f"ledger row {newest + 1}: not signed, after signed rows" in result.stdout


def test_a_cut_off_tail_passes_alone_and_is_caught_with_an_anchor(tmp_path: Path) -> None:
    db = tmp_path / "club.sqlite3"
    duel = console(db, DUEL, dice=DUEL_DICE)
    assert duel.returncode == 0
    channel_log = tmp_path / "channel.log"
    channel_log.write_text(duel.stdout, encoding="utf-8")
    closing = re.search(r"ledger #(\d+) ([0-9a-f]{16})$", duel.stdout.splitlines()[-1])
    assert closing is not None
    assert console(db, "olaf !mod bp Olaf +1.0 prize\n", "--config",
                   str(moderator(tmp_path))).returncode == 0
    verified = cli("audit", "verify", "--db", str(db))
    assert verified.returncode == 0
    head = re.search(r"^note: the head is (ledger #(\d+) ([0-9a-f]{16}))", verified.stdout, re.M)
    assert head is not None and int(head[2]) == int(closing[1]) + 1
    topic = tmp_path / "topic.txt"
    topic.write_text(f"An Cath club | records at {head[1]}\n", encoding="utf-8")

    with sqlite3.connect(db) as raw:                 # delete the newest row, rewind the head
        newest, bp, prev = raw.execute(
            "SELECT id, bp, prev_hash FROM ledger ORDER BY id DESC").fetchone()
        raw.execute("DELETE FROM ledger WHERE id = ?", (newest,))
        raw.execute("UPDATE warriors SET bp = bp - ? WHERE name_key = 'olaf'", (bp,))
        raw.execute("UPDATE ledger_head SET last_id = ?, last_hash = ?", (newest - 1, prev))
    alone = cli("audit", "verify", "--db", str(db))
    assert alone.returncode == 0, alone.stdout           # the known limit without an anchor
    for anchors in (["--anchor", f"{head[2]}:{head[3]}"], ["--anchors", str(topic)],
                    ["--anchors", str(channel_log), "--anchors", str(topic)]):
        caught = cli("audit", "verify", "--db", str(db), *anchors)
        assert caught.returncode == 1, anchors
        assert f"anchor ledger #{head[2]} {head[3]}: there is no row {head[2]}" in caught.stdout
    still = cli("audit", "verify", "--db", str(db), "--anchors", str(channel_log))
    assert still.returncode == 0                         # the older anchor still holds
    assert f"note: anchor ledger #{closing[1]} {closing[2]}: holds" in still.stdout
    bad = cli("audit", "verify", "--db", str(db), "--anchor", "12 deadbeef")
    assert bad.returncode == 2 and "12:9f2c1a7e" in bad.stderr.replace("4123", "12")


def test_a_fights_closing_row_is_on_no_warrior_in_the_ledger_listing(tmp_path: Path) -> None:
    db = tmp_path / "club.sqlite3"
    assert console(db, DUEL, dice=DUEL_DICE).returncode == 0
    rows = json.loads(cli("ledger", "--db", str(db), "--format", "json").stdout)
    closing = rows[-1]
    assert (closing["entry"], closing["warrior"], closing["fight"]) == ("fight-closed", None, 1)
    assert closing["key"] == key_ids(db)[-1]
    assert "fight-closed" not in cli("ledger", "--db", str(db), "--warrior", "Olaf").stdout
    assert "fight-closed" in cli("ledger", "--db", str(db)).stdout


# -- read only -------------------------------------------------------------------------------


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory other users can reach (pytest's own are the owner's only)."""
    path = Path(tempfile.mkdtemp(prefix="ancath-ro-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        for item in [path, *path.rglob("*")]:
            item.chmod(0o755 if item.is_dir() else 0o644)
        shutil.rmtree(path)


def other_user() -> int | None:
    """As root, nobody's uid when nobody can run this interpreter (file modes do not stop
    root, so only another user shows that nothing needs write access); else None."""
    if os.geteuid() != 0:
        return None
    try:
        ran = subprocess.run([sys.executable, "-c", "import bot.cli"], cwd=ROOT, user=65534,
                             capture_output=True, timeout=60)
    except OSError:
        return None
    return 65534 if ran.returncode == 0 else None


def snapshot(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in directory.iterdir()}


def test_verify_and_ledger_check_a_read_only_file_and_a_backup_without_changing_them(
    shared_dir: Path,
) -> None:
    live, copy = shared_dir / "live", shared_dir / "backup"
    live.mkdir()
    copy.mkdir()
    db = live / "club.sqlite3"
    assert console(db, DUEL, dice=DUEL_DICE).returncode == 0
    with sqlite3.connect(db) as source, sqlite3.connect(copy / "club.sqlite3") as target:
        source.backup(target)                          # sqlite3's backup API
    key = shared_dir / "ledger.key"                    # kept elsewhere, readable by the checker
    shutil.copy(live / "club.sqlite3.key", key)
    checker = other_user()          # root ignores file modes: check as nobody too, if we can
    if checker is not None:
        os.chown(key, checker, -1)
    key.chmod(0o400)
    for directory in (live, copy):
        for item in directory.iterdir():
            item.chmod(0o444)
        directory.chmod(0o555)
        before = snapshot(directory)
        target = str(directory / "club.sqlite3")
        for user in {None, checker}:
            verified = cli("audit", "verify", "--db", target, "--key-file", str(key), user=user)
            assert verified.returncode == 0, verified.stdout + verified.stderr
            assert verified.stdout.endswith("ledger intact; every total matches\n")
            listed = cli("ledger", "--db", target, "--format", "json", user=user)
            assert listed.returncode == 0, listed.stderr
            assert [r["entry"] for r in json.loads(listed.stdout)][:2] == ["created", "created"]
            assert snapshot(directory) == before, directory   # nothing written, nothing made
    wrong = cli("audit", "verify", "--db", str(copy / "club.sqlite3"))  # no key beside a copy
    assert wrong.returncode == 2 and f"{copy / 'club.sqlite3'}.key" in wrong.stderr


def test_verify_never_migrates_an_old_database(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    engine = make_engine(str(db))
    try:
        upgrade(engine, "0003")
    finally:
        engine.dispose()
    for args in (["audit", "verify"], ["ledger"]):
        result = cli(*args, "--db", str(db))
        assert result.returncode == 2
        assert "revision 0003" in result.stderr and "ancath-bot db upgrade" in result.stderr
    with sqlite3.connect(db) as raw:
        assert raw.execute("SELECT version_num FROM alembic_version").fetchall() == [("0003",)]
    missing = cli("audit", "verify", "--db", str(tmp_path / "nothing.sqlite3"))
    assert missing.returncode == 2 and "no such database file" in missing.stderr
    assert not (tmp_path / "nothing.sqlite3").exists()
