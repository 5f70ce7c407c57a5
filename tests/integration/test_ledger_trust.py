"""Attacks on the records by someone who can write the database but has none of the bot's
secrets, each made with raw SQL the way such an attacker would, on every backend.

The attacker has the code, so they can recompute a plain SHA-256 chain; they do not have
the ledger key. Every attack here passed ``audit verify`` before the ledger was keyed
(checked on 3a8b4df, where ``Store.verify()`` returned [] after each; commit 2b86559 has
them as strict xfails), and the cut-off tail still passes without an anchor.

Then what the keys and anchors add: an anchor catches the cut-off tail, a missing key is
named, a retired key used after a rotation is caught, an undone and re-closed fight is
checked by its newest closing row, and a database from before keys is sealed by the
first keyed row (its warriors and finished fights attested).
"""

from __future__ import annotations

import hashlib
import json
from argparse import Namespace
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from replays import as_json
from sqlalchemy import Connection, Engine, event, inspect, select, text
from sqlalchemy.orm import Session
from transcript import command, warrior  # tests/unit, put on the path by conftest.py

from bot.app import build_referee
from bot.config import BotConfig
from bot.odds.worker import InlineExecutor
from bot.systems.registry import SYSTEMS
from rules.ancath.stored import buy, mod_bp
from rules.ancath.system import AN_CATH
from rules.ancath.tables import Skill
from rules.codec import encode
from rules.contest.model import parse_fighter
from rules.replay import replay
from storage import ledger
from storage.chained import Chained
from storage.db import open_database, open_read_only
from storage.errors import StorageError
from storage.keys import Keyring, KeyringError
from storage.ledger import Anchor, LegacyRows
from storage.models import LedgerHead, LedgerRow
from storage.signing import signing_key
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
KEY = "the-ledger-key-of-these-tests-0123456789abcdef"
NEW_KEY = "a-newer-ledger-key-after-a-rotation-0123456789"



# -- the records the attacks start from ---------------------------------------------------


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = open_database(database_url)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture
def store(engine: Engine) -> Store:
    return Store(engine, systems=SYSTEMS.rules, keyring=Keyring.of(KEY))


def play(store: Store, fight: OpenFight, script: str) -> OpenFight:
    for line in script.strip().splitlines():
        if not line.split("#", 1)[0].strip():
            continue
        cmd = command(fight.state, line)
        state, new = AN_CATH.apply(fight.state, cmd)
        fight = store.record(fight, cmd, "referee", state, new)
    return fight


def filled(store: Store, legacy: bool = False) -> OpenFight:
    """Two warriors, a finished practice fight, a grant, a purchase and a later grant
    (``legacy``: by the code before keys, whose rows no signed row seals yet)."""
    store.create_warrior(warrior("Olaf", "free-clans", "broadsword", "shield"), "olaf_acct")
    store.create_warrior(warrior("Gorbag", "goblin", "club", "spear"), "gorbag_acct")
    fight, _ = store.open_fight("#arena", AN_CATH, "practice",
                                [("Olaf", "olaf_acct"), ("Gorbag", "gorbag_acct")], "olaf_acct")
    fight = play(store, fight, START + KILL)
    assert fight.state.outcome is not None
    store.change_sheet("Olaf", mod_bp(30, "mod", "grant"))
    store.change_sheet("Olaf", buy(Skill.BROADSWORD, "olaf_acct"))
    store.change_sheet("Gorbag", mod_bp(5, "mod", "late grant"))
    problems = store.verify()
    if legacy:   # with the key, legacy rows no signed row seals are a failure
        assert len(problems) == 1 and "ancath-bot db seal-legacy" in problems[0], problems
    else:
        assert problems == []
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


def forge_row(connection: Connection, as_legacy: bool, sign_with: str | None = None,
              **fields: Any) -> int:
    """Append a row with a correct SHA-256 hash (and the newest row's key id unless
    ``as_legacy``), or one signed with the key ``sign_with`` (a leaked key); returns
    its id."""
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
    if sign_with is not None:
        signer = signing_key(sign_with.encode())
        row["key_id"] = values["key_id"] = signer.public.id
        row["hash"] = values["hash"] = ledger.signed_hash(newest["hash"], Namespace(**row))
        values["signature"] = signer.sign(row["hash"])
        columns.append("signature")
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
        replayed = replay(AN_CATH, "practice",
                          [AN_CATH.codec.decode(s) for s in setup["sheets"]],
                          [AN_CATH.codec.decode(as_json(data)) for _, data in stored])
        state = replayed.state
        logged = list(zip([0, *(row_seq for row_seq, _ in stored)], replayed.steps,
                          strict=True))
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


# -- anchors ---------------------------------------------------------------------------------


def test_a_fights_end_gives_the_head_as_its_anchor(store: Store) -> None:
    fight = filled(store)
    assert fight.anchor is not None
    with store.engine.connect() as connection:
        closing = connection.execute(text(
            "SELECT id, hash FROM ledger WHERE entry = 'fight-closed'")).one()
    assert fight.anchor == Anchor(closing.id, closing.hash[:16])
    assert str(fight.anchor) == f"ledger #{closing.id} {closing.hash[:16]}"
    report = store.audit([fight.anchor, store.anchor()])    # old and newest both hold
    assert report.problems == []
    assert naming(report.notes, f"anchor ledger #{closing.id}", "holds")


def test_newest_rows_deleted_and_the_head_rewound_are_caught_by_an_anchor(store: Store) -> None:
    filled(store)
    published = store.anchor()
    assert published is not None
    _cut_newest(store.engine)
    assert store.verify() == []
    problems = store.audit([published]).problems
    assert problems == [f"anchor {published}: there is no row {published.id} (the ledger "
                        f"ends at #{published.id - 1}): newest rows removed and the head "
                        "rewound?"]


def test_an_anchor_names_a_chain_rewritten_up_to_it(store: Store) -> None:
    filled(store)
    published = store.anchor()
    assert published is not None
    with store.engine.begin() as connection:
        grant = connection.execute(text("SELECT id FROM ledger WHERE reason = 'grant'")
                                   ).scalar_one()
        connection.execute(text("UPDATE ledger SET reason = 'rewritten' WHERE id = :id"),
                           {"id": grant})
        rehash(connection, grant)
    problems = store.audit([published]).problems
    assert naming(problems, f"anchor {published}", "rewritten"), problems


def test_anchors_are_found_in_any_text() -> None:
    log = ("[12:01] <AnCath> Olaf wins by a kill. BP: Olaf +0.2. ledger #41 9F2C1A7E\n"
           "topic: records at ledger #57 0123abcd4567ef89 | ledger #41 9f2c1a7e again\n"
           "ledger #9 12345 (too short) ledger 12 deadbeef (no #)\n")
    assert ledger.anchors_in(log) == [Anchor(41, "9f2c1a7e"), Anchor(57, "0123abcd4567ef89")]
    assert Anchor.parse("#4123:9F2C1A7E") == Anchor(4123, "9f2c1a7e")
    with pytest.raises(ValueError, match="4123:9f2c1a7e"):
        Anchor.parse("4123 9f2c1a7e")


# -- keys ------------------------------------------------------------------------------------


def public_id(key: str) -> str:
    return signing_key(key.encode()).public.id


def test_rows_signed_by_a_key_that_is_not_available_are_named(store: Store) -> None:
    filled(store)
    other = Store(store.engine, systems=SYSTEMS.rules,
                  keyring=Keyring.of(NEW_KEY, source="a key file"))
    report = other.audit()
    kid = public_id(KEY)
    assert list(report.missing) == [kid] and report.problems == []
    (line,) = report.missing_keys(other.keyring)
    assert line.startswith(f"ledger key {kid} is not available: it signed ledger rows 1..")
    assert "a key is looked for in a key file" in line
    assert other.verify() == [line]


def test_a_rotated_key_is_introduced_by_a_row_the_old_key_signs(store: Store) -> None:
    filled(store)
    rotated = Store(store.engine, systems=SYSTEMS.rules, keyring=Keyring.of(NEW_KEY, KEY))
    rotated.change_sheet("Olaf", mod_bp(5, "mod", "after the rotation"))
    with store.engine.connect() as connection:
        kids, entries = zip(*connection.execute(text(
            "SELECT key_id, entry FROM ledger ORDER BY id")), strict=True)
    assert set(kids[:-1]) == {public_id(KEY)} and kids[-1] == public_id(NEW_KEY)
    assert entries[-2:] == ("key-rotated", "moderator-bp")
    assert rotated.verify() == []
    new_public = signing_key(NEW_KEY.encode()).public
    assert store.verify() == []                   # the old key's row vouches for the new one
    assert Store(store.engine, systems=SYSTEMS.rules,
                 keyring=Keyring()).audit(trusted=[new_public]).problems == []


def test_a_retired_key_used_after_a_rotation_is_caught(store: Store) -> None:
    """The old key leaked, so it was rotated out of signing: a row it signs after the
    newer key took over is named, though its signature is right."""
    filled(store)
    Store(store.engine, systems=SYSTEMS.rules,
          keyring=Keyring.of(NEW_KEY, KEY)).change_sheet("Olaf", mod_bp(5, "mod", "later"))
    with pytest.raises(KeyringError, match="not available"):    # the bot will not
        Store(store.engine, systems=SYSTEMS.rules,
              keyring=Keyring.of(KEY)).change_sheet("Olaf", mod_bp(5, "mod", "old key"))
    with store.engine.begin() as connection:
        forged_id = forge_row(connection, False, warrior_id=1, entry="moderator-bp", bp=100,
                              sign_with=KEY)
        connection.execute(text("UPDATE warriors SET bp = bp + 100 WHERE id = 1"))
    problems = Store(store.engine, systems=SYSTEMS.rules, keyring=Keyring.of(NEW_KEY, KEY)).verify()
    assert naming(problems, f"ledger row {forged_id}:", f"signed by key {public_id(KEY)}",
                  "in force"), problems


def test_a_row_hash_is_sha256_over_the_previous_hash_and_the_content_signed_by_ed25519(
    store: Store,
) -> None:
    filled(store)
    public = signing_key(KEY.encode()).public
    with Session(store.engine) as session:
        first, second = session.scalars(select(LedgerRow).order_by(LedgerRow.id).limit(2))
        content = {name: getattr(second, name) for name in CONTENT}
        content["key_id"] = second.key_id
        message = first.hash + json.dumps(content, sort_keys=True, separators=(",", ":"))
        assert second.prev_hash == first.hash and second.key_id == public.id
        assert second.hash == hashlib.sha256(message.encode()).hexdigest()
        assert second.signature is not None
        Ed25519PublicKey.from_public_bytes(public.raw).verify(
            bytes.fromhex(second.signature), b"ancath-bot ledger row " + second.hash.encode())
        assert KEY not in json.dumps([r.detail for r in session.scalars(select(LedgerRow))])


# -- what else the chain proves --------------------------------------------------------------


def test_an_undone_and_reclosed_fight_is_checked_by_its_newest_closing_row(store: Store) -> None:
    fight = filled(store)
    reopened = store.undo(fight.id, "mod", "the dodge roll was misread")
    assert reopened.state.outcome is None and reopened.anchor is not None
    assert store.verify() == []
    again = play(store, reopened, "Gorbag: dodge\nGorbag rolls 90\nOlaf rolls 7")
    assert again.state.outcome is not None and again.anchor is not None
    assert store.verify() == []
    with store.engine.connect() as connection:
        marks = connection.execute(text(
            "SELECT entry FROM ledger WHERE fight_id = :id AND entry LIKE 'fight-%' "
            "ORDER BY id"), {"id": fight.id}).scalars().all()
        ended = connection.execute(text("SELECT ended_at FROM fights WHERE id = :id"),
                                   {"id": fight.id}).scalar_one()
    assert marks == ["fight-closed", "fight-reopened", "fight-closed"]
    with store.engine.begin() as connection:     # the first end is no longer the fight's
        first = connection.execute(text(
            "SELECT detail FROM ledger WHERE entry = 'fight-closed' ORDER BY id")).first()
        assert first is not None
        connection.execute(text("UPDATE fights SET ended_at = :at WHERE id = :id"),
                           {"at": as_json(first.detail)["ended_at"], "id": fight.id})
    assert naming(store.verify(), f"fight {fight.id}: ended_at", repr(ended)), store.verify()


def test_a_fights_end_holds_its_logs_digests_as_written_and_as_audit_computes_them(
    store: Store,
) -> None:
    """A fight this process wrote all of keeps its logs' digests as it goes
    (``storage/log_digests.py``): its end reads neither log back, and ``audit verify``,
    which always hashes the stored rows, agrees. One loaded from the database (as after
    a restart) has none, and its end reads them."""
    logs_read: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        said = " ".join(statement.split()).upper()
        if said.startswith("SELECT") and ("FROM FIGHT_COMMANDS" in said or
                                          "FROM FIGHT_EVENTS" in said):
            logs_read.append(said)

    event.listen(store.engine, "before_cursor_execute", seen)
    store.create_warrior(warrior("Olaf", "free-clans", "broadsword", "shield"), "olaf_acct")
    store.create_warrior(warrior("Gorbag", "goblin", "club", "spear"), "gorbag_acct")
    sides = [("Olaf", "olaf_acct"), ("Gorbag", "gorbag_acct")]
    fight, _ = store.open_fight("#arena", AN_CATH, "practice", sides, "olaf_acct")
    fight = play(store, fight, START + KILL)
    assert fight.state.outcome is not None and fight.logs is not None and logs_read == []
    assert store.verify() == []
    store.create_warrior(warrior("Ulf", "free-clans", "broadsword", "shield"), "ulf_acct")
    store.create_warrior(warrior("Grak", "goblin", "club", "spear"), "grak_acct")

    def renamed(script: str) -> str:
        return script.replace("Olaf", "Ulf").replace("Gorbag", "Grak")

    again, _ = store.open_fight("#pit", AN_CATH, "practice",
                                [("Ulf", "ulf_acct"), ("Grak", "grak_acct")], "ulf_acct")
    again = play(store, again, renamed(START))
    loaded = next(f for f in store.open_fights()[0] if f.id == again.id)
    assert loaded.logs is None
    logs_read.clear()
    ended = play(store, loaded, renamed(KILL))
    assert ended.state.outcome is not None and ended.logs is None and logs_read != []
    assert store.verify() == []


def test_a_finished_fight_reopened_by_hand_or_extended_is_caught(store: Store) -> None:
    fight = filled(store)
    with store.engine.begin() as connection:
        connection.execute(text("INSERT INTO fight_commands (fight_id, seq, command, actor, "
                                "created_at) VALUES (:id, :seq, :c, 'bot', 'x')"),
                           {"id": fight.id, "seq": fight.seq + 1,
                            "c": json.dumps({"type": "Roll", "side": 0, "value": 1})})
    assert naming(store.verify(), f"fight {fight.id}: commands {fight.seq + 1}..", "after its end")
    with store.engine.begin() as connection:
        connection.execute(text("DELETE FROM fight_commands WHERE seq > :seq"),
                           {"seq": fight.seq})
        connection.execute(text("UPDATE fights SET active = true WHERE id = :id"),
                           {"id": fight.id})
    assert naming(store.verify(), f"fight {fight.id}: stored as unfinished", "ended it")


def test_a_deleted_fight_and_a_warrior_added_by_hand_are_named(store: Store) -> None:
    fight = filled(store)
    with store.engine.begin() as connection:
        for table in ("fight_events", "fight_commands", "fight_sides"):
            connection.execute(text(f"DELETE FROM {table} WHERE fight_id = :id"),
                               {"id": fight.id})
        connection.execute(text("DELETE FROM fights WHERE id = :id"), {"id": fight.id})
        connection.execute(text(
            "INSERT INTO warriors (name, name_key, owner, system, profile, bp, bp_spent, status, "
            "created_at) VALUES ('Mallory', 'mallory', 'mallory', 'ancath', '{\"culture\": "
            "\"goblin\", \"armour\": \"leather\", \"skills\": {}}', 400, 0, 'free', 'x')"))
    problems = store.verify()
    assert naming(problems, f"fight {fight.id}: not in the database", "deleted"), problems
    assert naming(problems, "warrior Mallory: no ledger rows"), problems


def test_another_systems_profile_is_in_the_chain(store: Store) -> None:
    store.create_fighter("contest", parse_fighter("Alain", "15W", "sword^3", 2), "al")
    assert store.verify() == []
    with store.engine.begin() as connection:
        profile = as_json(connection.execute(text(
            "SELECT profile FROM warriors WHERE name_key = 'alain'")).scalar_one())
        profile["rating"] = 20
        connection.execute(text("UPDATE warriors SET profile = :p WHERE name_key = 'alain'"),
                           {"p": json.dumps(profile)})
    assert naming(store.verify(), "warrior Alain: profile", "'rating': 20"), store.verify()


def test_audit_reads_through_a_read_only_engine_and_sees_the_newest_commits(
    store: Store, database_url: str,
) -> None:
    filled(store)
    reader = open_read_only(database_url)    # the bot's engine is still open: a live file
    try:
        store.change_sheet("Gorbag", mod_bp(1, "mod", "just now"))
        checker = Store(reader, systems=SYSTEMS.rules, keyring=Keyring.of(KEY))
        assert checker.verify() == []
        assert checker.anchor() == store.anchor()
        with pytest.raises(Exception, match=r"(?i)read.?only"), reader.begin() as connection:
            connection.execute(text("UPDATE warriors SET bp = 0"))
    finally:
        reader.dispose()


# -- a database from before keys -------------------------------------------------------------


def _legacy_append(session: Session, keyring: Keyring, **fields: Any) -> LedgerRow:
    """``ledger.append`` as the code before keys had it: plain SHA-256, no key id, and a
    creation row that holds only the sheet."""
    head = session.execute(select(LedgerHead).where(LedgerHead.id == 1).with_for_update()
                           ).scalar_one()
    fields = {"bp": 0, "spent": 0, **fields}
    if fields["entry"] == "created":
        fields["detail"] = {k: v for k, v in fields["detail"].items()
                            if k in ("skills", "armour", "profile") and v is not None}
    row = LedgerRow(id=head.last_id + 1, prev_hash=head.last_hash, hash="", **fields)
    row.hash = ledger.row_hash(head.last_hash, row)
    session.add(row)
    head.last_id, head.last_hash = row.id, row.hash
    return row


@pytest.fixture
def legacy(store: Store, monkeypatch: pytest.MonkeyPatch) -> OpenFight:
    """The records as the code before keys left them: no fight rows, no names or owners
    in the chain. Returns the finished fight."""
    with monkeypatch.context() as patched:
        patched.setattr(ledger, "append", _legacy_append)
        patched.setattr(Store, "_append_fight", lambda *args, **kwargs: None)
        patched.setattr(Chained, "check", lambda _self, _session, row: {"owner": row.owner})
        fight = filled(store, legacy=True)
    with store.engine.connect() as connection:
        assert connection.execute(text("SELECT COUNT(*) FROM ledger WHERE key_id IS NOT NULL "
                                       "OR entry LIKE 'fight-%'")).scalar_one() == 0
    return fight


def test_a_database_from_before_keys_verifies_with_notes(store: Store, legacy: OpenFight) -> None:
    report = store.audit()
    assert report.missing == {} and not report.keyed
    # with the key, legacy rows no signed row seals are a failure naming the one command
    assert len(report.problems) == 1 and naming(report.problems, "ledger rows 1..", "legacy "
                                                "rows", "no signed row seals", "db seal-legacy")
    unkeyed = Store(store.engine, systems=SYSTEMS.rules,
                    keyring=Keyring()).audit()   # without it: a note
    assert naming(unkeyed.notes, "ledger rows 1..", "legacy rows", "can still rewrite them")
    assert naming(report.notes, "2 warriors come from before")
    assert naming(report.notes, f"fights {legacy.id} ended before")


def test_the_first_keyed_row_seals_the_legacy_past(store: Store, legacy: OpenFight) -> None:
    with store.engine.connect() as connection:
        legacy_rows = connection.execute(text("SELECT COUNT(*) FROM ledger")).scalar_one()
    with pytest.raises(LegacyRows, match="ancath-bot db seal-legacy"):
        store.set_setting("fairy_folk_open", True, "mod", "no append seals legacy rows")
    assert store.seal_legacy(legacy=True) == 4   # the operator's ancath-bot db seal-legacy
    store.change_sheet("Gorbag", mod_bp(1, "mod", "the first keyed row"))
    entries = [(r["entry"], r["key"]) for r in store.ledger()][legacy_rows:]
    kid = public_id(KEY)
    assert entries == [("ledger-keyed", kid), ("attested", kid), ("attested", kid),
                       ("fight-closed", kid), ("moderator-bp", kid)]
    report = store.audit()
    assert report.problems == [] and report.keyed
    assert naming(report.notes, "legacy rows", "the first signed row seals them")

    with store.engine.begin() as connection:      # owner theft of a legacy warrior
        connection.execute(text("UPDATE warriors SET owner = 'mallory' WHERE name_key = 'olaf'"))
    assert naming(store.verify(), "warrior Olaf: owner is 'mallory'", "'olaf_acct'")
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE warriors SET owner = 'olaf_acct' WHERE name_key = 'olaf'"))
        connection.execute(text("UPDATE fight_events SET event = :e WHERE fight_id = :id AND "
                                "seq = 0 AND idx = 0"),
                           {"e": json.dumps({"type": "Forged"}), "id": legacy.id})
    assert naming(store.verify(), f"fight {legacy.id}: its event log differs")


def test_rewriting_the_legacy_past_breaks_the_first_keyed_row(
    store: Store, legacy: OpenFight,
) -> None:
    store.seal_legacy(legacy=True)
    store.change_sheet("Gorbag", mod_bp(1, "mod", "the first keyed row"))
    with store.engine.begin() as connection:
        grant = connection.execute(text("SELECT id, warrior_id FROM ledger "
                                        "WHERE reason = 'grant'")).one()
        connection.execute(text("UPDATE ledger SET bp = 300 WHERE id = :id"), {"id": grant.id})
        connection.execute(text("UPDATE warriors SET bp = bp + 270 WHERE id = :id"),
                           {"id": grant.warrior_id})
        legacy_rows = connection.execute(text(
            "SELECT id FROM ledger WHERE key_id IS NULL ORDER BY id")).scalars().all()
        # re-hash the legacy part only (the attacker cannot redo the keyed rows)
        previous = GENESIS
        for row in rows(connection):
            if row["id"] not in legacy_rows:
                break
            if row["id"] >= grant.id:
                row["prev_hash"], row["hash"] = previous, sha256_hash(previous, row)
                connection.execute(text("UPDATE ledger SET prev_hash = :prev_hash, "
                                        "hash = :hash WHERE id = :id"), row)
            previous = row["hash"]
    problems = store.verify()
    sealing = legacy_rows[-1] + 1
    assert problems == [f"ledger row {sealing}: chain broken before it (row removed or "
                        "changed)", f"ledger row {sealing}: its seal does not match rows "
                        f"1..{sealing - 1} (an older row edited, dropped or inserted)"], problems


def test_the_bot_starts_on_a_database_from_before_keys_once_the_operator_seals_it(
    store: Store, legacy: OpenFight, database_url: str, caplog: pytest.LogCaptureFixture,
) -> None:
    with store.engine.begin() as connection:      # before the seal: not caught yet
        connection.execute(text("UPDATE warriors SET owner = 'mallory' WHERE name_key = 'olaf'"))
    (unsealed,) = store.verify()
    assert "ancath-bot db seal-legacy" in unsealed
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE warriors SET owner = 'olaf_acct' WHERE name_key = 'olaf'"))
    with pytest.raises(LegacyRows, match="ancath-bot db seal-legacy"):   # never on its own
        build_referee(BotConfig(), database=database_url, keyring=Keyring.of(KEY),
                      odds_workers=InlineExecutor())
    assert store.seal_legacy(legacy=True) == 4    # the operator's ancath-bot db seal-legacy
    referee = build_referee(BotConfig(), database=database_url, keyring=Keyring.of(KEY),
                            odds_workers=InlineExecutor())
    try:
        assert "ledger rows written at the start" not in caplog.text
        assert referee.store.seal_legacy() == 0                      # once only
        with store.engine.begin() as connection:  # after it: caught, no write needed
            connection.execute(text(
                "UPDATE warriors SET owner = 'mallory' WHERE name_key = 'olaf'"))
        assert naming(store.verify(), "warrior Olaf: owner is 'mallory'")
    finally:
        referee.store.engine.dispose()


# -- a club whose rows were HMAC-keyed, before signatures ------------------------------------


def _hmac_append(session: Session, keyring: Keyring, **fields: Any) -> LedgerRow:
    """``ledger.append`` as the code before signatures had it: an HMAC-SHA256 under the
    secret, its key id the secret's fingerprint, no signature."""
    head = session.execute(select(LedgerHead).where(LedgerHead.id == 1).with_for_update()
                           ).scalar_one()
    kid, key = keyring.signing()
    row = LedgerRow(id=head.last_id + 1, prev_hash=head.last_hash, hash="", key_id=kid,
                    **{"bp": 0, "spent": 0, **fields})
    row.hash = ledger.row_mac(key, head.last_hash, row)
    session.add(row)
    head.last_id, head.last_hash, head.key_id = row.id, row.hash, kid
    return row


@pytest.fixture
def hmac_club(store: Store, monkeypatch: pytest.MonkeyPatch) -> int:
    """The records as the HMAC-keyed code left them; returns how many rows."""
    with monkeypatch.context() as patched:
        patched.setattr(ledger, "append", _hmac_append)
        filled(store)
    with store.engine.connect() as connection:
        assert connection.execute(text("SELECT COUNT(*) FROM ledger WHERE signature IS NOT "
                                       "NULL")).scalar_one() == 0
        return int(connection.execute(text("SELECT COUNT(*) FROM ledger")).scalar_one())


def test_an_hmac_club_is_sealed_by_one_signed_row_and_the_public_key_then_proves_it(
    store: Store, hmac_club: int,
) -> None:
    public = signing_key(KEY.encode()).public
    unsigned = Store(store.engine, systems=SYSTEMS.rules, keyring=Keyring())
    assert naming(unsigned.audit(trusted=[public]).problems, "no ledger row is signed")
    assert store.verify() == []                     # the secret still proves the MACs
    assert store.seal_legacy() == 1 and store.seal_legacy() == 0
    (keyed,) = [r for r in store.ledger() if r["entry"] == "ledger-keyed"]
    assert keyed["id"] == hmac_club + 1
    assert store.verify() == []
    assert unsigned.audit(trusted=[public]).problems == []     # the public key alone


def test_an_hmac_row_edited_after_the_seal_fails_with_the_public_key_alone(
    store: Store, hmac_club: int,
) -> None:
    store.seal_legacy()
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE ledger SET bp = 300 WHERE reason = 'grant'"))
        connection.execute(text("UPDATE warriors SET bp = bp + 270 WHERE name_key = 'olaf'"))
    public = signing_key(KEY.encode()).public
    problems = Store(store.engine, systems=SYSTEMS.rules,
                     keyring=Keyring()).audit(trusted=[public]).problems
    assert naming(problems, f"ledger row {hmac_club + 1}: its seal does not match"), problems


def test_an_hmac_chain_that_does_not_verify_is_never_sealed(
    store: Store, hmac_club: int,
) -> None:
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE ledger SET bp = 300 WHERE reason = 'grant'"))
    with pytest.raises(StorageError, match=r"does not verify .*not sealed"):
        store.seal_legacy()
    with store.engine.connect() as connection:
        assert connection.execute(text("SELECT COUNT(*) FROM ledger")).scalar_one() == hmac_club


def test_legacy_rows_then_hmac_rows_wait_for_the_operators_seal(
    store: Store, legacy: OpenFight, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 31, item 5: HMAC rows after legacy ones prove nothing of them to the public
    key, so the bot seals them only on the operator's ``db seal-legacy`` (an HMAC club
    alone is still sealed at the start: above)."""
    with monkeypatch.context() as patched:        # the HMAC-keyed code, after the legacy
        patched.setattr(ledger, "append", _hmac_append)
        patched.setattr(Chained, "check", lambda _self, _session, row: {"owner": row.owner})
        store.change_sheet("Gorbag", mod_bp(1, "mod", "an hmac row"))
    with store.engine.connect() as connection:
        before = connection.execute(text("SELECT COUNT(*) FROM ledger")).scalar_one()
    assert naming(store.verify(), "legacy rows", "no signed row seals", "db seal-legacy")
    with pytest.raises(LegacyRows, match="ancath-bot db seal-legacy"):
        store.seal_legacy()                       # as the bot's start calls it
    with pytest.raises(LegacyRows):
        store.set_setting("fairy_folk_open", True, "mod", "nor any append")
    assert store.seal_legacy(legacy=True) == 1    # the operator's: the ledger-keyed row
    (keyed,) = [r for r in store.ledger() if r["entry"] == "ledger-keyed"]
    assert keyed["id"] == before + 1
    assert not naming(store.verify(), "no signed row seals")
