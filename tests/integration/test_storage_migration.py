"""Migration 0006 on a filled database, down and up again, on every backend
(``database_url``): a club's warriors of all three rules systems, with bought and set
skills, captured armour, BP, a prisoner held by its captor and a finished fight, read
back identically through the store, and ``audit verify`` clean at both ends."""

from __future__ import annotations

from typing import Any

from replays import as_json
from sqlalchemy import Engine, inspect, text
from transcript import command, warrior  # tests/unit, put on the path by conftest.py

from bot.systems.registry import SYSTEMS
from rules.ancath.stored import buy, mod_armour, mod_bp, mod_skill
from rules.ancath.system import AN_CATH
from rules.ancath.tables import Armour, Skill
from rules.contest.model import parse_fighter
from rules.general.model import GeneralFighter, parse_dice
from storage.db_engines import make_engine
from storage.schema_revision import downgrade, head_revision, upgrade
from storage.store import Store

NAMES = ("Olaf", "Gorbag", "Snaga", "Alain", "Farthan")
CAPTURED = """
    Olaf rolls 50          # initiative (equal BP)
    Gorbag rolls 20
    Olaf: first
    Olaf: yield
    Gorbag: accept prisoner ransom ten goats
"""


def fill(store: Store) -> None:
    """The club: Olaf a prisoner of Gorbag after a mortal fight, Snaga in captured mail,
    bought and moderator-set skills, and a fighter of each other rules system."""
    store.create_warrior(warrior("Olaf", "free-clans", "broadsword", "shield"), "olaf_acct")
    store.create_warrior(warrior("Gorbag", "goblin", "club", "spear"), "gorbag_acct")
    store.create_warrior(warrior("Snaga", "goblin", "club", "spear"), "snaga_acct")
    fight, _ = store.open_fight("#arena", AN_CATH, "mortal",
                                [("Olaf", "olaf_acct"), ("Gorbag", "gorbag_acct")], "olaf_acct")
    for line in CAPTURED.strip().splitlines():
        cmd = command(fight.state, line)
        state, events = AN_CATH.apply(fight.state, cmd)
        fight = store.record(fight, cmd, "referee", state, events)
    assert fight.state.outcome is not None
    store.change_sheet("Olaf", mod_bp(50, "mod", "tournament prize"))
    store.change_sheet("Olaf", buy(Skill.BROADSWORD, "olaf_acct"))
    store.change_sheet("Olaf", buy(Skill.GREATSWORD, "olaf_acct"))
    store.change_sheet("Gorbag", mod_skill(Skill.SHIELD, 35, "mod", "correction"))
    store.change_sheet("Snaga", mod_armour(Armour.MAIL, "mod", "taken from a dead legionary"))
    store.create_fighter("contest", parse_fighter("Alain", "15W", "sword^3", 2), "al")
    store.create_fighter("general", GeneralFighter(
        "Farthan", 25, 13, 14, parse_dice("1d10"), parse_dice("2d6+1"), 0, 2), "far")


def columns(engine: Engine) -> list[tuple[str, bool, str]]:
    """The warriors table's columns: name, nullable, type, by name."""
    return sorted((c["name"], c["nullable"], str(c["type"]))
                  for c in inspect(engine).get_columns("warriors"))


def stored(engine: Engine, *names: str) -> dict[str, Any]:
    """The named columns of every warrior, by name, as plain JSON values."""
    with engine.connect() as connection:
        rows = connection.execute(text(
            f"SELECT name, {', '.join(names)} FROM warriors ORDER BY id")).all()
    return {row[0]: tuple(as_json(v) if isinstance(v, str) and v[:1] in "{[" else v
                          for v in row[1:]) for row in rows}


def test_a_filled_database_down_to_0005_and_up_again_reads_back_identically(
    store: Store, database_url: str,
) -> None:
    fill(store)
    before = {name: store.warrior(name) for name in NAMES}
    assert before["Olaf"].status == "prisoner" and before["Olaf"].captor == "Gorbag"
    assert store.verify() == []
    with store.engine.connect() as connection:
        ledger = connection.execute(text("SELECT * FROM ledger ORDER BY id")).all()
    sheets = stored(store.engine, "profile")

    downgrade(store.engine, "0005")

    if database_url.startswith("sqlite"):     # the schema 0005 makes, exactly
        fresh = make_engine(database_url.replace(".sqlite3", "-0005.sqlite3"))
        upgrade(fresh, "0005")
        assert columns(store.engine) == columns(fresh)
        fresh.dispose()
    old = stored(store.engine, "system", "culture", "armour", "skills", "profile IS NULL",
                 "bp", "bp_spent", "status", "captor_id")
    assert old["Olaf"] == ("ancath", "free-clans", "highlander",
                           {"broadsword": 40, "greatsword": 30, "move": 30, "shield": 30},
                           True, before["Olaf"].sheet.bp, 4, "prisoner",
                           before["Gorbag"].id)
    assert old["Snaga"][:5] == ("ancath", "goblin", "mail",
                                {"club": 30, "move": 30, "spear": 30}, True)
    assert old["Gorbag"][3]["shield"] == 35
    for name in ("Alain", "Farthan"):
        assert old[name][1:5] == (None, None, {}, False)
    for name in ("Olaf", "Gorbag", "Snaga"):
        culture, armour, skills = old[name][1:4]
        assert sheets[name] == ({"culture": culture, "armour": armour, "skills": skills},)

    upgrade(store.engine)

    with store.engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")
                                  ).scalar_one() == head_revision()
        assert connection.execute(text("SELECT * FROM ledger ORDER BY id")).all() == ledger
    assert stored(store.engine, "profile") == sheets
    again = Store(store.engine, systems=SYSTEMS.rules)
    assert {name: again.warrior(name) for name in NAMES} == before
    assert again.verify() == []


def test_the_upgraded_database_keeps_working(store: Store) -> None:
    fill(store)
    downgrade(store.engine, "0005")
    upgrade(store.engine)
    store.free("Olaf", "gorbag_acct", "ransom paid")
    store.change_sheet("Snaga", mod_bp(30, "mod", "prize"))
    snaga = store.change_sheet("Snaga", buy(Skill.CLUB, "snaga_acct"))[0]
    assert (snaga.sheet.armour, snaga.sheet.skills[Skill.CLUB]) == (Armour.MAIL, 40)
    assert store.warrior("Olaf").status == "free"
    assert store.verify() == []
