"""The engine builds a new state once a step (issue 34), and still behaves the same.

``apply`` keeps its immutable outer API; inside, each frozen value is built by an
``__init__`` and copied by a copier (``rules.ancath.frozen``: written once per type,
without ``dataclasses.replace``'s checks). These transcripts count the states an
``apply`` builds; the rulings' own transcripts check that what it builds is unchanged.
"""

from __future__ import annotations

import dataclasses
import pickle
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest
from transcript import command, fight, play, warrior

from rules.ancath import apply
from rules.ancath.events import Rolled
from rules.ancath.state import (
    Awaiting,
    FightState,
    Need,
    RollFor,
    Severity,
    copy_fighter,
    copy_state,
)
from rules.ancath.tables import Location


def olaf() -> Any:
    return warrior("Olaf", "free-clans", "broadsword", "shield", armour="highlander", bp=1,
                   broadsword=45)


def marcus() -> Any:
    return warrior("Marcus", "invaders", "broadsword", "shield", armour="cohort")


@contextmanager
def counting_states() -> Iterator[list[int]]:
    """Count the FightStates built (constructed or copied) while the block runs."""
    builders = {copy_state.__code__, FightState.__init__.__code__}
    built = [0]

    def seen(frame: FrameType, event: str, _: Any) -> None:
        if event == "call" and frame.f_code in builders:
            built[0] += 1

    sys.setprofile(seen)
    try:
        yield built
    finally:
        sys.setprofile(None)


def applied(state: FightState, line: str) -> tuple[FightState, int]:
    """One transcript line applied, and how many states it built."""
    with counting_states() as built:
        state, _ = apply(state, command(state, line))
    return state, built[0]


def test_an_attack_roll_builds_the_next_state_once() -> None:
    state, _ = play(fight("practice", olaf(), marcus()), """
        Olaf: first
        Olaf: attack
    """)
    assert state.awaiting is not None and state.awaiting.roll_for is RollFor.ATTACK
    state, built = applied(state, "Olaf rolls 45")      # a hit: Marcus chooses a defence
    assert state.awaiting is not None and state.awaiting.need is Need.DEFENCE
    assert built == 1


def test_a_defence_and_its_roll_build_one_state_each() -> None:
    state, _ = play(fight("practice", olaf(), marcus()), """
        Olaf: first
        Olaf: attack
        Olaf rolls 45
    """)
    state, built = applied(state, "Marcus: parry")
    assert (state.awaiting is not None and state.awaiting.roll_for is RollFor.DEFENCE, built) == (
        True, 1)
    state, built = applied(state, "Marcus rolls 10")    # parried: Marcus's turn
    assert state.awaiting is not None and state.awaiting.need is Need.ACTION
    assert built == 1


def test_a_miss_ends_the_turn_and_starts_the_next_in_one_state() -> None:
    state, _ = play(fight("practice", olaf(), marcus()), """
        Olaf: first
        Olaf: attack
    """)
    state, built = applied(state, "Olaf rolls 90")      # a miss: Marcus's turn
    assert (state.turn, state.actor) == (2, 1)
    assert built == 1


def test_the_fast_copy_is_dataclasses_replace() -> None:
    state, _ = play(fight("practice", olaf(), marcus()), """
        Olaf: first
        Olaf: attack
        Olaf rolls 45
    """)
    copied = copy_state(state, turn=7, fleeing=1)
    assert copied == dataclasses.replace(state, turn=7, fleeing=1)
    assert type(copied) is FightState and copied.fighters is state.fighters
    fighter = state.fighters[1]
    hurt = {Location.HEAD: Severity.WOUND}
    assert copy_fighter(fighter, injuries=hurt) == dataclasses.replace(fighter, injuries=hurt)
    with pytest.raises(TypeError):
        copy_state(state, no_such_field=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        copied.turn = 8  # type: ignore[misc]
    assert state.turn == 1 and state.fleeing is None


def test_a_frozen_value_is_built_as_the_dataclass_builds_it() -> None:
    rolled = Rolled(0, RollFor.ATTACK, roll=45, chance=50, success=True)
    assert type(rolled) is Rolled and rolled == Rolled(0, RollFor.ATTACK, 45, 50, True)
    assert repr(rolled) == ("Rolled(side=0, roll_for=<RollFor.ATTACK: 'attack'>, roll=45, "
                            "chance=50, success=True)")
    assert Awaiting(1, Need.ACTION) == Awaiting(1, Need.ACTION, None, None)
    assert hash(Awaiting(1, Need.ACTION)) == hash(Awaiting(1, Need.ACTION, None, None))
    with pytest.raises(TypeError):
        Awaiting(1)  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rolled.roll = 46  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(rolled)) == rolled


def test_enum_members_key_dicts_across_a_pickle() -> None:
    injuries = {Location.WEAPON_ARM: Severity.DISABLED}
    copied = pickle.loads(pickle.dumps(injuries))
    assert copied == injuries and copied[Location.WEAPON_ARM] is Severity.DISABLED
    assert hash(Severity.DISABLED) == object.__hash__(Severity.DISABLED)
