"""The engine builds a new state once a step (issue 34), and still behaves the same.

``apply`` keeps its immutable outer API; inside, each frozen value is copied by
``rules.ancath.frozen.replace`` (written once per type, without ``dataclasses.replace``'s
checks). These transcripts count the states an ``apply`` builds; the rulings' own
transcripts check that what it builds is unchanged.
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from transcript import command, fight, play, warrior

from rules.ancath import apply
from rules.ancath import frozen as frozen_module
from rules.ancath.frozen import replace
from rules.ancath.state import FightState, Need, RollFor, Severity
from rules.ancath.tables import Location


def olaf() -> Any:
    return warrior("Olaf", "free-clans", "broadsword", "shield", armour="highlander", bp=1,
                   broadsword=45)


def marcus() -> Any:
    return warrior("Marcus", "invaders", "broadsword", "shield", armour="cohort")


@contextmanager
def counting_states() -> Iterator[list[int]]:
    """Count the FightStates ``replace`` builds while the block runs."""
    replace(fight("practice", olaf(), marcus()), turn=0)  # the copier exists
    made: Callable[..., FightState] = frozen_module._MADE[FightState]
    built = [0]

    def counted(value: FightState, **changes: Any) -> FightState:
        built[0] += 1
        return made(value, **changes)

    frozen_module._MADE[FightState] = counted
    try:
        yield built
    finally:
        frozen_module._MADE[FightState] = made


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
    assert replace(state, turn=7, fleeing=1) == dataclasses.replace(state, turn=7, fleeing=1)
    fighter = state.fighters[1]
    hurt = {Location.HEAD: Severity.WOUND}
    assert replace(fighter, injuries=hurt) == dataclasses.replace(fighter, injuries=hurt)
    with pytest.raises(TypeError):
        replace(state, no_such_field=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        replace(state, turn=7).turn = 8  # type: ignore[misc]


def test_enum_members_key_dicts_across_a_pickle() -> None:
    injuries = {Location.WEAPON_ARM: Severity.DISABLED}
    copied = pickle.loads(pickle.dumps(injuries))
    assert copied == injuries and copied[Location.WEAPON_ARM] is Severity.DISABLED
    assert hash(Severity.DISABLED) == object.__hash__(Severity.DISABLED)
