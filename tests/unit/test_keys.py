"""Ledger keys: where they come from, the default key file, ids, rotation order."""

from __future__ import annotations

import hashlib
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from storage.keys import KEY_ENV, Keyring, KeyringError, key_id, load_keyring, new_key

A = "a" * 40
B = "b" * 40


def test_a_key_id_is_a_fingerprint_never_the_key() -> None:
    assert key_id(A.encode()) == hashlib.sha256(A.encode()).hexdigest()[:16]
    ring = Keyring.of(A, B)
    assert ring.ids == (key_id(A.encode()), key_id(B.encode()))
    assert ring.signing() == (key_id(A.encode()), A.encode())    # the first key signs
    assert ring.get(key_id(B.encode())) == B.encode()            # every key verifies
    assert ring.rank(key_id(B.encode())) == 1 and ring.get("0" * 16) is None
    assert A not in ring.describe() and key_id(A.encode()) in ring.describe()


def test_the_first_start_makes_a_0600_key_beside_a_sqlite_file_and_reuses_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    db = tmp_path / "club.sqlite3"
    first = load_keyring(f"sqlite:///{db}", environ={})
    path = tmp_path / "club.sqlite3.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert str(path) in caplog.text and "keep a copy" in caplog.text
    assert len(first.keys) == 1 and len(first.keys[0]) == 64
    assert first.keys[0].decode() in path.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["club.sqlite3.key"]   # no temp file left
    caplog.clear()
    assert load_keyring(str(db), environ={}) == first                      # a bare path too
    assert "made a new" not in caplog.text


def test_the_environment_overrides_the_key_file(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'club.sqlite3'}"
    ring = load_keyring(db, environ={KEY_ENV: f"{A}\n{B}\n"})
    assert ring.keys == (A.encode(), B.encode()) and ring.source == f"${KEY_ENV}"
    assert not (tmp_path / "club.sqlite3.key").exists()
    keys = tmp_path / "keys"
    keys.write_text(f"# rotated in May\n{B}\n\n{A}\n")
    assert load_keyring(db, keys, environ={}).keys == (B.encode(), A.encode())
    assert load_keyring(db, keys, environ={KEY_ENV: A}).keys == (A.encode(),)


def test_postgresql_without_a_key_is_one_clear_line() -> None:
    with pytest.raises(KeyringError) as error:
        load_keyring("postgresql+psycopg://bot@db/club", environ={})
    message = str(error.value)
    assert "\n" not in message and KEY_ENV in message and "ledger_key_file" in message
    assert load_keyring("postgresql+psycopg://bot@db/club", create=False, environ={}).keys == ()


def test_a_read_only_load_makes_no_file(tmp_path: Path) -> None:
    ring = load_keyring(str(tmp_path / "club.sqlite3"), create=False, environ={})
    assert ring.keys == () and list(tmp_path.iterdir()) == []
    assert KEY_ENV in ring.looked and str(tmp_path / "club.sqlite3.key") in ring.looked
    with pytest.raises(KeyringError, match=KEY_ENV):
        ring.signing()


@pytest.mark.parametrize(("text", "problem"), [
    ("short\n", "at least 32 characters"),
    ("# only a comment\n", "holds no ledger key"),
])
def test_bad_key_files_are_named(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "keys"
    path.write_text(text)
    with pytest.raises(KeyringError, match=problem) as error:
        load_keyring("postgresql://x/y", path, environ={})
    assert str(path) in str(error.value)
    with pytest.raises(KeyringError, match="cannot read"):
        load_keyring("postgresql://x/y", tmp_path / "missing", environ={})


def test_new_keys_are_random_and_long_enough() -> None:
    assert new_key() != new_key() and len(new_key()) == 64


def test_processes_starting_at_once_share_one_key(tmp_path: Path) -> None:
    db = str(tmp_path / "club.sqlite3")
    with ThreadPoolExecutor(8) as pool:
        rings = list(pool.map(lambda _: load_keyring(db, environ={}), range(8)))
    assert len({ring.keys for ring in rings}) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["club.sqlite3.key"]
