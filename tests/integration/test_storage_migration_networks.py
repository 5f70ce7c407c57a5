"""Migration 0007 (networks) on a filled database, down and up again, on every backend
(``database_url``): finished and open fights, pending challenges, channel and
club-wide settings, a moderator's password and one named in chat, all on the network
``default``; before networks as 0006 kept them, and read back identically after, with
``audit verify`` clean at both ends. A database holding another network is not taken
down.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine, inspect, text
from test_storage import KILL, START, play
from transcript import warrior  # tests/unit, put on the path by conftest.py

from bot.systems.registry import SYSTEMS
from rules.ancath.system import AN_CATH
from storage.db_engines import make_engine
from storage.errors import DatabaseProblem
from storage.schema_revision import downgrade, head_revision, upgrade
from storage.store import ChallengeRecord, Store

SETTINGS = {
    "rolls:#duels": "manual", "timelimit:#duels": 5.0, "odds:#arena": "fighters",
    "fairy_folk_open": True, "ignored": ["*!*@spam.example"],
    "moderator-password:bob": "sealed-hash",
}
"""Settings as 0006 kept them: a channel's key is ``<what>:<channel>``."""


def fill(store: Store) -> None:
    """A finished fight in #arena, an open one in #duels, a challenge pending in #yard,
    settings (as the bot writes them) and a moderator named in chat."""
    for name, culture, skills in (("Olaf", "free-clans", ("broadsword", "shield")),
                                  ("Gorbag", "goblin", ("club", "spear")),
                                  ("Bran", "free-clans", ("axe", "shield")),
                                  ("Ulf", "free-clans", ("broadsword", "greatsword")),
                                  ("Aed", "goblin", ("axe", "shield"))):
        store.create_warrior(warrior(name, culture, *skills), name.lower())
    fight, _ = store.open_fight("#arena", AN_CATH, "practice",
                                [("Olaf", "olaf"), ("Gorbag", "gorbag")], "olaf")
    fight, _ = play(store, fight, START + KILL)
    assert fight.state.outcome is not None
    store.open_fight("#duels", AN_CATH, "duel", [("Bran", "bran"), ("Ulf", "ulf")], "bran")
    store.put_challenge(ChallengeRecord("#Yard", "Aed", "aed", "Olaf", "olaf", "mortal"))
    for key, value in SETTINGS.items():
        store.set_setting(key.replace(":#", ":default:#"), value, "mod", "why")
    store.set_moderator("carol", True, "mod", "tourney")


def read_back(store: Store) -> tuple[Any, ...]:
    """What the bot reads of networks, channels and settings."""
    fights, problems = store.open_fights()
    return ([(f.id, f.channel, f.seq, f.state) for f in fights], problems,
            store.latest_fights(), store.challenges(), store.club_state().settings,
            store.moderators(), store.fight_summary(1), store.fight_history("Olaf"))


def schema(engine: Engine) -> dict[str, Any]:
    """The three tables 0007 changes: columns (name, nullable, type), the primary key
    and the indexes (name, columns, unique)."""
    found = inspect(engine)
    return {table: (sorted((c["name"], c["nullable"], str(c["type"]))
                           for c in found.get_columns(table)),
                    found.get_pk_constraint(table)["constrained_columns"],
                    sorted((i["name"], i["column_names"], i["unique"])
                           for i in found.get_indexes(table)))
            for table in ("fights", "challenges", "settings")}


def test_a_filled_database_down_to_0006_and_up_again_reads_back_identically(
    store: Store, database_url: str,
) -> None:
    fill(store)
    before = read_back(store)
    assert before[2] == {"#arena": 1, "#duels": 2} and before[3][0].channel == "#Yard"
    assert before[4] == {key.replace(":#", ":default:#"): value
                         for key, value in SETTINGS.items()}
    assert store.club_version() == len(SETTINGS) + 1
    assert store.verify() == []
    with store.engine.connect() as connection:
        ledger = connection.execute(text("SELECT * FROM ledger ORDER BY id")).all()

    downgrade(store.engine, "0006")

    if database_url.startswith("sqlite"):     # the schema 0006 makes, exactly
        fresh = make_engine(database_url.replace(".sqlite3", "-0006.sqlite3"))
        upgrade(fresh, "0006")
        assert schema(store.engine) == schema(fresh)
        assert "club_version" not in inspect(store.engine).get_table_names()
        fresh.dispose()
    with store.engine.connect() as connection:
        settings = dict(connection.execute(text("SELECT key, value FROM settings")).all())
        challenges = connection.execute(text(
            "SELECT channel_key, channel, challenger, kind FROM challenges")).all()
    assert sorted(settings) == sorted(SETTINGS)
    assert challenges == [("#yard", "#Yard", "Aed", "mortal")]
    assert "network" not in {c["name"] for c in inspect(store.engine).get_columns("fights")}

    upgrade(store.engine)

    with store.engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")
                                  ).scalar_one() == head_revision()
        assert connection.execute(text("SELECT * FROM ledger ORDER BY id")).all() == ledger
        assert connection.execute(text("SELECT DISTINCT network FROM fights")).scalars().all() \
            == ["default"]
    again = Store(store.engine, systems=SYSTEMS.rules)
    assert read_back(again) == before
    assert again.club_version() == 0
    assert again.verify() == []


def test_the_upgraded_database_keeps_working(store: Store) -> None:
    fill(store)
    downgrade(store.engine, "0006")
    upgrade(store.engine)
    store.drop_challenge("#yard")
    store.set_setting("rolls:default:#duels", "auto", "mod")
    fight, _ = store.open_fight("#yard", AN_CATH, "practice",
                                [("Aed", "aed"), ("Olaf", "olaf")], "aed")
    assert (store.challenges(), store.setting("rolls:default:#duels")) == ([], "auto")
    assert store.latest_fights()["#yard"] == fight.id and store.club_version() == 1
    assert store.verify() == []


def test_a_database_with_another_network_is_not_taken_down(
    store: Store, database_url: str,
) -> None:
    fill(store)
    alpha = Store(store.engine, systems=SYSTEMS.rules, network="alpha")
    alpha.open_fight("#duels", AN_CATH, "practice", [("Aed", "aed"), ("Olaf", "olaf")], "aed")
    with pytest.raises(DatabaseProblem, match="other networks than default \\(alpha\\)"):
        downgrade(store.engine, "0006")
    with store.engine.connect() as connection:   # all or nothing: still the newest
        assert connection.execute(text("SELECT version_num FROM alembic_version")
                                  ).scalar_one() == head_revision()
    assert {c["name"] for c in inspect(store.engine).get_columns("fights")} >= {"network"}
    assert len(alpha.open_fights()[0]) == 1 and store.verify() == []


def test_a_setting_too_long_for_the_schema_before_networks_is_not_taken_down(
    store: Store,
) -> None:
    """A 63-character channel's key fits 0007's 128 characters; without its network it
    would not fit the 64 before: refused in one line, nothing changed."""
    fill(store)
    store.set_setting("rolls:default:#" + "c" * 63, "manual", "mod")
    with pytest.raises(DatabaseProblem, match="longer than the 64 characters"):
        downgrade(store.engine, "0006")
    with store.engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")
                                  ).scalar_one() == head_revision()
    assert store.setting("rolls:default:#" + "c" * 63) == "manual"


def test_the_ledger_entry_is_indexed_from_0008(store: Store) -> None:
    """The moderators named in chat are read by their rows' entry (migration 0008)."""
    def indexes() -> set[str]:
        return {str(i["name"]) for i in inspect(store.engine).get_indexes("ledger")}

    assert "ix_ledger_entry" in indexes()
    downgrade(store.engine, "0007")
    assert "ix_ledger_entry" not in indexes()
    upgrade(store.engine)
    assert "ix_ledger_entry" in indexes()
