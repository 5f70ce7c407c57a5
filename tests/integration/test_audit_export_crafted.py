"""An audit export crafted by someone without the key, checked with the club's public key:
every field of the wrong type is refused (``ExportError``: one line, exit 2), and what
the hashes do not cover (a fight or warrior twice, a log that goes on after its end, no
rows at all) is a problem (exit 1); never a traceback, never "intact"."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from club import Club

from bot.systems.registry import SYSTEMS
from storage.audit_export import ExportError, verify_export
from storage.keys import load_keyring
from storage.signing import PublicKey

Records = list[dict[str, Any]]


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> tuple[Records, PublicKey]:
    club = Club(tmp_path_factory.mktemp("crafted"))
    for line, rolls in (("gob !create Gorbag goblin club spear", ()),
                        ("olaf !create Olaf free-clans broadsword shield", ()),
                        ("olaf !challenge Gorbag", ()), ("gob !accept", (50, 40)),
                        ("olaf !first", ()), ("olaf !attack", (20,)), ("gob !dodge", (80, 5))):
        club.dice.push(*rolls)
        club.say(line)
    out = io.StringIO()
    club.referee.store.export_audit(out)
    key = load_keyring(club.db, create=False).signer().public
    return [json.loads(line) for line in out.getvalue().splitlines()], key


def first(records: Records, kind: str, **where: Any) -> dict[str, Any]:
    return next(r for r in records if r["record"] == kind
                and all(r.get(k) == v for k, v in where.items()))


def checked(records: Records, key: PublicKey) -> list[str]:
    lines = [json.dumps(r) for r in records]
    return verify_export(lines, [key], systems=SYSTEMS.rules).report.problems


def test_the_honest_export_is_proved(honest: tuple[Records, PublicKey]) -> None:
    assert checked(*honest) == []


WRONG_TYPES: dict[str, Callable[[Records], None]] = {
    "header public_keys": lambda r: r[0].update(public_keys=5),
    "header head": lambda r: r[0].update(head="x"),
    "row warrior_id": lambda r: first(r, "row", id=1).update(warrior_id=[1]),
    "row skill": lambda r: first(r, "row", id=1).update(skill=["x"]),
    "row bp as text": lambda r: first(r, "row", id=1).update(bp="1"),
    "row bp as bool": lambda r: first(r, "row", id=1).update(bp=True),
    "row bp as float": lambda r: first(r, "row", id=1).update(bp=1.5),
    "warrior without name": lambda r: first(r, "warrior").pop("name"),
    "warrior profile": lambda r: first(r, "warrior").update(profile="x"),
    "warrior id": lambda r: first(r, "warrior").update(id={}),
    "fight command": lambda r: first(r, "fight").update(commands=[{"a": 1}]),
    "fight id": lambda r: first(r, "fight").update(id=[1]),
    "fight side": lambda r: first(r, "fight").update(sides=[[0, "x", None]]),
}


@pytest.mark.parametrize("craft", WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
def test_a_field_of_the_wrong_type_is_refused_in_one_line(
        honest: tuple[Records, PublicKey], craft: Callable[[Records], None]) -> None:
    records = copy.deepcopy(honest[0])
    craft(records)
    with pytest.raises(ExportError) as refused:
        checked(records, honest[1])
    assert "\n" not in str(refused.value)


def test_nan_and_deep_nesting_are_not_json(honest: tuple[Records, PublicKey]) -> None:
    lines = [json.dumps(r) for r in honest[0]]
    fight = next(i for i, line in enumerate(lines) if '"record": "fight"' in line)
    nan = [*lines[:fight], lines[fight].replace('"commands": [[1,', '"commands": [[NaN,'),
           *lines[fight + 1:]]
    assert nan != lines
    with pytest.raises(ExportError, match="not JSON"):
        verify_export(nan, [honest[1]], systems=SYSTEMS.rules)
    deep = [*lines[:1], "[" * 200_000 + "]" * 200_000, *lines[1:]]
    with pytest.raises(ExportError, match="not JSON"):
        verify_export(deep, [honest[1]], systems=SYSTEMS.rules)


def test_a_detail_of_the_wrong_type_is_a_forged_row(honest: tuple[Records, PublicKey]) -> None:
    records = copy.deepcopy(honest[0])
    first(records, "row", id=1)["detail"] = {"name": 5, "skills": 5}
    assert "ledger row 1: content does not match its hash (edited)" in checked(
        records, honest[1])
    first(records, "row", id=1)["detail"] = ["x"]
    with pytest.raises(ExportError, match="'detail' has the wrong type"):
        checked(records, honest[1])


def test_what_the_hashes_do_not_cover_is_a_problem(honest: tuple[Records, PublicKey]) -> None:
    records, key = honest
    fight = first(records, "fight")
    end = first(records, "end")
    forged_fight = {**copy.deepcopy(fight)}
    forged_fight["commands"][-1][2] = "mallory"
    twice = [*records[:-1], forged_fight, {**end, "fights": end["fights"] + 1}]
    assert any("fight 1 is in the export twice" in p for p in checked(twice, key))
    warrior = copy.deepcopy(first(records, "warrior"))
    doubled = [*records[:-1], warrior, {**end, "warriors": end["warriors"] + 1}]
    assert any(f"warrior {warrior['id']} is in the export twice" in p
               for p in checked(doubled, key))
    late = copy.deepcopy(records)
    events = first(late, "fight")["events"]
    events.append([events[-1][0] + 1, 0, {"type": "FightEnded"}])
    assert any("events of commands" in p and "come after its end" in p
               for p in checked(late, key))
    empty = [records[0], {"record": "end", "rows": 0, "fights": 0, "warriors": 0}]
    empty[0] = {**records[0], "head": {"id": 0, "hash": ""}}
    assert "the export holds no ledger rows: it proves nothing" in checked(empty, key)


def test_a_bom_is_read(honest: tuple[Records, PublicKey], tmp_path: Path) -> None:
    file = tmp_path / "bom.jsonl"
    file.write_text("\ufeff" + "".join(json.dumps(r) + "\n" for r in honest[0]),
                    encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "bot.cli", "audit", "verify", "--export",
                           str(file), "--public-key", honest[1].text],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
