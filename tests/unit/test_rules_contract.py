"""The rules-system contract: what each system's events do to the warriors
(``ledger_effects``, R7.2 with R2.6's cap), the one replay (``rules.replay``), and
storage writing those effects without importing any system."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from transcript import command, warrior

from bot.systems.registry import SYSTEMS
from rules.ancath.commands import Command
from rules.ancath.events import Event
from rules.ancath.sheet import Sheet
from rules.ancath.state import Ending, FightState
from rules.ancath.system import AN_CATH
from rules.common import Roll, Yield
from rules.contest.model import Strike, parse_fighter
from rules.contest.system import CONTEST
from rules.effects import BPChange, Capture, Death
from rules.general.model import GeneralFighter, parse_dice
from rules.general.system import GENERAL
from rules.replay import replay

ROOT = Path(__file__).resolve().parents[2]


def gorbag(bp: int = 5) -> Sheet:
    return warrior("Gorbag", "goblin", "club", "shield", armour="none", bp=bp,
                   club=60, shield=40, move=30)


def snaga() -> Sheet:
    return warrior("Snaga", "goblin", "club", "shield", armour="none",
                   club=60, shield=40, move=30)


def duel(kind: str, script: str, challenger: Sheet | None = None
         ) -> tuple[list[Sheet], list[Command], FightState, list[Event]]:
    """Play a transcript from the start: the sheets, the commands, the last state and
    every event (the start's included)."""
    sheets = [challenger or gorbag(), snaga()]
    state, first = AN_CATH.start(kind, sheets)
    commands: list[Command] = []
    events: list[Event] = list(first)
    for line in script.strip().splitlines():
        commands.append(command(state, line))
        state, new = AN_CATH.apply(state, commands[-1])
        events += new
    return sheets, commands, state, events


MORTAL_KILL = """
    Gorbag: first
    Gorbag: attack
    Gorbag rolls 23      # hits
    Snaga: dodge
    Snaga rolls 99       # fails
    Gorbag rolls 7       # kill
"""

MORTAL_CAPTURE = """
    Gorbag: first
    Gorbag: attack
    Gorbag rolls 99      # misses
    Snaga: yield
    Gorbag: accept prisoner ransom ten goats
"""


# -- ledger effects ---------------------------------------------------------------------


def test_R7_2_a_practice_win_is_two_awards_and_nothing_else() -> None:
    *_, events = duel("practice", """
        Gorbag: first
        mod: end Gorbag
    """)
    assert AN_CATH.ledger_effects(events) == (
        BPChange(0, 2, "win"), BPChange(1, 1, "loss"),
    )


def test_R2_6_an_award_is_capped_at_forty_bp() -> None:
    assert AN_CATH.bp_applied(399, 2) == 1     # 39.9 + 0.2 stops at 40.0
    assert AN_CATH.bp_applied(400, 10) == 0
    assert AN_CATH.bp_applied(398, 2) == 2
    assert AN_CATH.bp_applied(3, -5) == -3     # an undo never takes BP below 0


def test_R7_2_death_in_a_mortal_fight() -> None:
    *_, state, events = duel("mortal", MORTAL_KILL)
    assert state.outcome is not None and state.outcome.ending is Ending.KILL
    assert AN_CATH.ledger_effects(events) == (
        BPChange(0, 5, "mortal"), BPChange(1, 5, "mortal"), BPChange(0, 10, "foe-slain"),
        Death(1, "slain in a mortal fight"),
    )


def test_R7_2_a_prisoner_taken_with_a_ransom() -> None:
    *_, events = duel("mortal", MORTAL_CAPTURE)
    assert AN_CATH.ledger_effects(events) == (
        BPChange(0, 5, "mortal"), BPChange(1, 5, "mortal"),
        BPChange(0, 10, "prisoner-taken"), Capture(1, 0, "ten goats"),
    )


def test_R9_a_contest_to_the_death_changes_no_warrior() -> None:
    state, events = CONTEST.start("contest", [parse_fighter("Alain", "10", "sword^3"),
                                              parse_fighter("Bors", "10", "sword^0")])
    for step in (Strike(0), Strike(1), Roll(0, 1), Roll(1, 20)):   # complete, edged
        state, new = CONTEST.apply(state, step)
        events += new
    assert state.outcome is not None and state.outcome.ending == "dead"
    assert CONTEST.ledger_effects(events) == ()


def test_R10_a_general_rules_yield_changes_no_warrior() -> None:
    troll = GeneralFighter("Troll", health=40, strength=18, skill=10,
                           weapon=parse_dice("1d12"), base=parse_dice("1d10"),
                           defense=0, protection=0)
    farthan = GeneralFighter("Farthan", health=25, strength=13, skill=15,
                             weapon=parse_dice("1d10"), base=parse_dice("1d8"),
                             defense=1, protection=2)
    state, events = GENERAL.start("general", [troll, farthan])
    state, new = GENERAL.apply(state, Yield(0))
    assert state.outcome is not None and state.outcome.ending == "yield"
    assert GENERAL.ledger_effects((*events, *new)) == ()


# -- the one replay ---------------------------------------------------------------------


@pytest.mark.parametrize("script", [MORTAL_KILL, MORTAL_CAPTURE])
def test_replaying_a_fights_commands_rebuilds_its_state_and_events(script: str) -> None:
    sheets, commands, state, events = duel("mortal", script)
    replayed = replay(AN_CATH, "mortal", sheets, commands)
    assert replayed.state == state
    assert list(replayed.events) == events
    assert len(replayed.steps) == len(commands) + 1   # the start, then one per command


def test_a_replay_cut_short_is_the_fight_at_that_command() -> None:
    sheets, commands, _, _ = duel("mortal", MORTAL_KILL)
    at_three = replay(AN_CATH, "mortal", sheets, commands[:3])
    state, _ = AN_CATH.start("mortal", sheets)
    for step in commands[:3]:
        state, _ = AN_CATH.apply(state, step)
    assert at_three.state == state


# -- storage knows no system ------------------------------------------------------------


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("module", ["storage/awards.py", "storage/fight_rebuild.py"])
def test_storage_writes_effects_without_importing_a_system(module: str) -> None:
    packages = [f"rules.{name}" for name in SYSTEMS.rules]   # rules.ancath, rules.contest, ...
    system_modules = [m for m in _imports(ROOT / module)
                      if any(m == p or m.startswith(f"{p}.") for p in packages)]
    assert system_modules == []
