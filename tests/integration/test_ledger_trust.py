"""Attacks on the records by someone who can write the database but has none of the bot's
secrets, each made with raw SQL the way such an attacker would, on every backend.

The attacker has the code, so they can recompute a plain SHA-256 chain; they do not have
the ledger key. Every attack here passed ``audit verify`` before the ledger was keyed
(checked on 3a8b4df, where ``Store.verify()`` returned [] after each; commit 2b86559 has
them as strict xfails), and the cut-off tail still passes without an anchor.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from replays import as_json
from sqlalchemy import Connection, Engine, inspect, text
from transcript import command, warrior  # tests/unit, put on the path by conftest.py

from rules.ancath.tables import Skill
from rules.codec import encode
from rules.systems import AN_CATH
from storage.db import open_database
from storage.store import OpenFight, Store

START = """
    Olaf rolls 50          # initiative (equal BP)
    Gorbag rolls 20
    Olaf: first
"""
KILL = """
    Olaf: attack
    Olaf rolls 23          # broadsword 30 - 5 (length 2 vs spear 3): hit
    Gorbag: dodge
    Gorbag rolls 80        # leather dodge 30: fails
    Olaf rolls 5           # kill on leather
"""

GENESIS = "0" * 64
CONTENT = (
    "id", "warrior_id", "entry", "bp", "spent", "skill", "skill_value", "status",
    "captor_id", "detail", "actor", "moderator", "fight_id", "command_seq", "reason",
    "created_at",
)
"""What the shipped code hashes, so what the attacker hashes."""



# -- the records the attacks start from ---------------------------------------------------


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    engine = open_database(database_url)
    try:
        yield Store(engine)
    finally:
        engine.dispose()


def play(store: Store, fight: OpenFight, script: str) -> OpenFight:
    for line in script.strip().splitlines():
        if not line.split("#", 1)[0].strip():
            continue
        cmd = command(fight.state, line)
        state, new = AN_CATH.apply(fight.state, cmd)
        fight = store.record(fight, cmd, "referee", state, new)
    return fight


def filled(store: Store) -> OpenFight:
    """Two warriors, a finished practice fight, a grant, a purchase and a later grant."""
    store.create_warrior(warrior("Olaf", "free-clans", "broadsword", "shield"), "olaf_acct")
    store.create_warrior(warrior("Gorbag", "goblin", "club", "spear"), "gorbag_acct")
    fight, _ = store.open_fight("#arena", AN_CATH, "practice",
                                [("Olaf", "olaf_acct"), ("Gorbag", "gorbag_acct")], "olaf_acct")
    fight = play(store, fight, START + KILL)
    assert fight.state.outcome is not None
    store.adjust_bp("Olaf", 30, "mod", "grant")
    store.buy_skill("Olaf", Skill.BROADSWORD, "olaf_acct")
    store.adjust_bp("Gorbag", 5, "mod", "late grant")
    assert store.verify() == []
    return fight


# -- what the attacker does -----------------------------------------------------------------


def sha256_hash(prev: str, row: dict[str, Any]) -> str:
    content = json.dumps({name: row[name] for name in CONTENT}, sort_keys=True,
                         separators=(",", ":"))
    return hashlib.sha256((prev + content).encode()).hexdigest()


def has_key_column(connection: Connection) -> bool:
    return "key_id" in {c["name"] for c in inspect(connection).get_columns("ledger")}


def rows(connection: Connection) -> list[dict[str, Any]]:
    result = [dict(r._mapping) for r in connection.execute(text(
        "SELECT * FROM ledger ORDER BY id"))]
    for row in result:
        row["detail"] = as_json(row["detail"])
    return result


def rehash(connection: Connection, start: int, as_legacy: bool = False) -> None:
    """Recompute the plain SHA-256 chain from row ``start`` on, and the head: what anyone
    with the code can do. ``as_legacy`` also blanks the key id, so the rows claim to be
    from before the ledger was keyed."""
    keyed = has_key_column(connection)
    previous = GENESIS
    for row in rows(connection):
        if row["id"] >= start:
            row["prev_hash"] = previous
            row["hash"] = sha256_hash(previous, row)
            connection.execute(text(
                "UPDATE ledger SET prev_hash = :prev_hash, hash = :hash WHERE id = :id"), row)
            if keyed and as_legacy:
                connection.execute(text("UPDATE ledger SET key_id = NULL WHERE id = :id"), row)
        previous = row["hash"]
    last = connection.execute(text("SELECT MAX(id) FROM ledger")).scalar_one() or 0
    connection.execute(text("UPDATE ledger_head SET last_id = :id, last_hash = :hash"),
                       {"id": last, "hash": previous})


def forge_row(connection: Connection, as_legacy: bool, **fields: Any) -> int:
    """Append a row with a correct SHA-256 hash (and the newest row's key id unless
    ``as_legacy``); returns its id."""
    newest = rows(connection)[-1]
    row: dict[str, Any] = {name: None for name in CONTENT}
    row.update(bp=0, spent=0, actor="mod", reason="forged", created_at=newest["created_at"])
    row.update(fields)
    row["id"] = newest["id"] + 1
    row["prev_hash"] = newest["hash"]
    row["hash"] = sha256_hash(newest["hash"], row)
    columns = [*CONTENT, "prev_hash", "hash"]
    values = dict(row, detail=json.dumps(row["detail"]) if row["detail"] is not None else None)
    if has_key_column(connection) and not as_legacy:
        columns.append("key_id")
        values["key_id"] = newest["key_id"]
    connection.execute(text(
        f"INSERT INTO ledger ({', '.join(columns)}) VALUES "
        f"({', '.join(':' + c for c in columns)})"), values)
    connection.execute(text("UPDATE ledger_head SET last_id = :id, last_hash = :hash"), row)
    return int(row["id"])


def warrior_id(connection: Connection, name: str) -> int:
    return int(connection.execute(text("SELECT id FROM warriors WHERE name_key = :k"),
                                  {"k": name.casefold()}).scalar_one())


def naming(problems: list[str], *words: str) -> bool:
    return any(all(word in problem for word in words) for problem in problems)


# -- the attacks ----------------------------------------------------------------------------


@pytest.mark.parametrize("as_legacy", [False, True], ids=["key-id-kept", "as-legacy"])
def test_a_forged_bp_row_with_a_correct_sha256_hash(store: Store, as_legacy: bool) -> None:
    filled(store)
    with store.engine.begin() as connection:
        olaf = warrior_id(connection, "Olaf")
        forged = forge_row(connection, as_legacy, warrior_id=olaf, entry="moderator-bp",
                           bp=100, moderator="mod")
        connection.execute(text("UPDATE warriors SET bp = bp + 100 WHERE id = :id"),
                           {"id": olaf})
    problems = store.verify()
    assert naming(problems, f"ledger row {forged}:"), problems


@pytest.mark.parametrize("as_legacy", [False, True], ids=["key-id-kept", "as-legacy"])
def test_a_middle_row_edited_and_the_rest_rehashed(store: Store, as_legacy: bool) -> None:
    filled(store)
    with store.engine.begin() as connection:
        grant = connection.execute(text(
            "SELECT id, warrior_id FROM ledger WHERE reason = 'grant'")).one()
        connection.execute(text("UPDATE ledger SET bp = 300 WHERE id = :id"), {"id": grant.id})
        connection.execute(text("UPDATE warriors SET bp = bp + 270 WHERE id = :id"),
                           {"id": grant.warrior_id})
        rehash(connection, grant.id, as_legacy)
    problems = store.verify()
    assert naming(problems, f"ledger row {grant.id}:"), problems


def test_a_row_deleted_and_the_rest_renumbered(store: Store) -> None:
    filled(store)
    with store.engine.begin() as connection:
        grant = connection.execute(text(
            "SELECT id, warrior_id, bp FROM ledger WHERE reason = 'grant'")).one()
        connection.execute(text("DELETE FROM ledger WHERE id = :id"), {"id": grant.id})
        later = connection.execute(text(
            "SELECT id FROM ledger WHERE id > :id ORDER BY id"), {"id": grant.id}).scalars()
        for row_id in list(later):
            connection.execute(text("UPDATE ledger SET id = id - 1 WHERE id = :id"),
                               {"id": row_id})
        connection.execute(text("UPDATE warriors SET bp = bp - :bp WHERE id = :id"),
                           {"bp": grant.bp, "id": grant.warrior_id})
        rehash(connection, grant.id)
    problems = store.verify()
    assert naming(problems, f"ledger row {grant.id}:"), problems


def test_owner_theft(store: Store) -> None:
    filled(store)
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE warriors SET owner = 'mallory' WHERE name_key = 'olaf'"))
    problems = store.verify()
    assert naming(problems, "Olaf", "owner", "mallory", "olaf_acct"), problems


@pytest.mark.parametrize("as_legacy", [False, True], ids=["key-id-kept", "as-legacy"])
def test_owner_theft_with_a_forged_ledger_row(store: Store, as_legacy: bool) -> None:
    filled(store)
    with store.engine.begin() as connection:
        olaf = warrior_id(connection, "Olaf")
        connection.execute(text("UPDATE warriors SET owner = 'mallory' WHERE id = :id"),
                           {"id": olaf})
        forged = forge_row(connection, as_legacy, warrior_id=olaf, entry="owner-changed",
                           detail={"owner": "mallory", "was": "olaf_acct"})
    problems = store.verify()
    assert naming(problems, f"ledger row {forged}:"), problems


def test_a_warrior_renamed(store: Store) -> None:
    filled(store)
    with store.engine.begin() as connection:
        connection.execute(text(
            "UPDATE warriors SET name = 'Mallory', name_key = 'mallory' WHERE name_key = 'olaf'"))
    problems = store.verify()
    assert naming(problems, "name", "'Mallory'", "'Olaf'"), problems


def test_a_finished_fights_commands_and_events_rewritten_consistently(store: Store) -> None:
    fight = filled(store)
    with store.engine.begin() as connection:
        seq = connection.execute(text(
            "SELECT MIN(seq) FROM fight_commands WHERE fight_id = :id"), {"id": fight.id}
        ).scalar_one()
        # Olaf's initiative roll 50 becomes 60: he still wins it, so the fight replays as
        # before; the events are rewritten from that replay, so they agree with it.
        connection.execute(text(
            "UPDATE fight_commands SET command = :c WHERE fight_id = :id AND seq = :seq"),
            {"c": json.dumps(encode(command(fight.state, "Olaf rolls 60"))), "id": fight.id,
             "seq": seq})
        setup = as_json(connection.execute(text("SELECT setup FROM fights WHERE id = :id"),
                                           {"id": fight.id}).scalar_one())
        stored = connection.execute(text(
            "SELECT seq, command FROM fight_commands WHERE fight_id = :id ORDER BY seq"),
            {"id": fight.id}).all()
        state, events = AN_CATH.start("practice",
                                      [AN_CATH.codec.decode(s) for s in setup["sheets"]])
        logged = [(0, events)]
        for row_seq, data in stored:
            state, events = AN_CATH.apply(state, AN_CATH.codec.decode(as_json(data)))
            logged.append((row_seq, events))
        assert state.outcome == fight.state.outcome
        connection.execute(text("DELETE FROM fight_events WHERE fight_id = :id"),
                           {"id": fight.id})
        for row_seq, events in logged:
            for idx, event in enumerate(events):
                connection.execute(text(
                    "INSERT INTO fight_events (fight_id, seq, idx, event) "
                    "VALUES (:f, :s, :i, :e)"),
                    {"f": fight.id, "s": row_seq, "i": idx, "e": json.dumps(encode(event))})
    assert store.fight_events(fight.id) != []
    problems = store.verify()
    assert naming(problems, f"fight {fight.id}", "command"), problems
    assert naming(problems, f"fight {fight.id}", "event"), problems


def test_a_finished_fights_winner_changed(store: Store) -> None:
    fight = filled(store)
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE fights SET winner = 1 WHERE id = :id"),
                           {"id": fight.id})
    problems = store.verify()
    assert naming(problems, f"fight {fight.id}", "winner"), problems


def _cut_newest(engine: Engine) -> None:
    """Delete the newest row and rewind the head (and the cached total) to the one
    before: the chain that is left is whole."""
    with engine.begin() as connection:
        newest = rows(connection)[-1]
        assert newest["reason"] == "late grant"
        connection.execute(text("DELETE FROM ledger WHERE id = :id"), newest)
        connection.execute(text("UPDATE warriors SET bp = bp - :bp WHERE id = :warrior_id"),
                           newest)
        connection.execute(text("UPDATE ledger_head SET last_id = :id - 1, last_hash = :prev"),
                           {"id": newest["id"], "prev": newest["prev_hash"]})


def test_newest_rows_deleted_and_the_head_rewound_pass_without_an_anchor(store: Store) -> None:
    filled(store)
    _cut_newest(store.engine)
    assert store.verify() == []   # the known limit: only an anchor kept elsewhere shows it
