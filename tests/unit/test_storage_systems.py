"""Storage is handed its rules systems at start-up (issue 33): no storage module imports
a rules system or names one in its code, and a store handed none of a warrior's system
refuses it in one line. One registry of systems (the bot's), and no An Cath change
named on the store: it writes the change it is handed (``change_sheet``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rules.ancath.sheet import create_warrior
from rules.ancath.stored import buy, mod_bp
from rules.ancath.system import AN_CATH
from rules.ancath.tables import Culture, Skill
from rules.contest.model import ContestFighter
from rules.contest.system import CONTEST
from rules.general.system import GENERAL
from storage.db import open_database
from storage.errors import StorageError
from storage.keys import Keyring
from storage.store import Store

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PACKAGES = ("rules.ancath", "rules.contest", "rules.general", "rules.systems")


def _named_systems(path: Path) -> list[str]:
    """What of a storage module's code imports a rules system or names ``ancath``
    (docstrings and comments may)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        modules = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        found += [f"imports {m}" for m in modules
                  if m.startswith(SYSTEM_PACKAGES) and m.split(".")[1]]
        if isinstance(node, ast.Constant) and node.value == "ancath":
            found.append(f"names 'ancath' on line {node.lineno}")
    return found


def test_no_storage_module_imports_or_names_a_rules_system() -> None:
    named = {str(p.relative_to(ROOT)): found for p in sorted(ROOT.glob("storage/*.py"))
             if (found := _named_systems(p))}
    assert named == {}


@pytest.fixture
def contest_club(tmp_path: Path) -> tuple[Store, Store]:
    """One database, as a club with every system and as one handed no An Cath."""
    engine = open_database(f"sqlite:///{tmp_path / 'club.sqlite3'}")
    keyring = Keyring.of("k" * 40)
    return (Store(engine, keyring=keyring, systems=[AN_CATH, CONTEST, GENERAL]),
            Store(engine, keyring=keyring, systems=[CONTEST, GENERAL]))


def _one_line(error: pytest.ExceptionInfo[StorageError]) -> str:
    said = str(error.value)
    assert "\n" not in said and "Traceback" not in said
    return said


def test_a_store_without_an_cath_refuses_an_an_cath_warrior_in_one_line(
        contest_club: tuple[Store, Store]) -> None:
    full, contest_only = contest_club
    sheet, _ = create_warrior("Gorbag", Culture.GOBLIN, [Skill.CLUB, Skill.SPEAR])
    with pytest.raises(StorageError) as made:
        contest_only.create_warrior(sheet, "gob")
    assert _one_line(made) == ("no rules system this club plays fights with a Sheet: start "
                               "the bot with it")
    full.create_warrior(sheet, "gob")
    with pytest.raises(StorageError) as read:
        contest_only.warrior("Gorbag")
    assert "its rules system 'ancath' is none the bot knows" in _one_line(read)
    with pytest.raises(StorageError) as bought:
        contest_only.change_sheet("Gorbag", buy(Skill.CLUB, "gob"))
    assert "is none the bot knows" in _one_line(bought)
    astrid = ContestFighter("Astrid", 15, 1, "sword", 3, False, 2)
    contest_only.create_fighter("contest", astrid, "ast")
    assert contest_only.warrior("Astrid").system == "contest"


def test_one_registry_of_systems_and_no_an_cath_change_named_on_the_store() -> None:
    assert not (ROOT / "rules" / "systems.py").exists()   # the bot's registry is the one
    assert {"buy_skill", "adjust_bp", "set_skill", "set_armour"}.isdisjoint(dir(Store))


def test_an_an_cath_change_of_another_systems_fighter_is_refused_in_one_line(
        contest_club: tuple[Store, Store]) -> None:
    full, _ = contest_club
    full.create_fighter("contest", ContestFighter("Astrid", 15, 1, "sword", 3, False, 2), "ast")
    with pytest.raises(StorageError) as refused:   # !mod bp Astrid +1 a gift
        full.change_sheet("Astrid", mod_bp(10, "mod", "a gift"))
    assert str(refused.value) == "Astrid fights by contest rules: no BP or skills there"
    assert [row["entry"] for row in full.ledger("Astrid")] == ["created"]   # nothing written
