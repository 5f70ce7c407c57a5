"""What every rules system shares: the commands a fight ends or rolls by, and the checks
every ``apply`` makes before its own (the shapes of ``Awaiting`` and ``Outcome`` are in
``rules.contract``, named here too).

The commands are stored by type name and fields (``rules.codec``): An Cath, Simple
Contest and the General rules all store a ``Roll``, ``Forfeit`` or ``ModeratorEnd`` alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from rules.contract import Awaiting, Outcome, RulesState
from rules.errors import FightOver, IllegalCommand

__all__ = [
    "Awaiting", "Forfeit", "ModeratorEnd", "Outcome", "Roll", "Yield", "check_command",
    "undo_point",
]


@dataclass(frozen=True, slots=True)
class Yield:
    """Give up the fight (R9.6; the General rules allow it too, as the bot reads them)."""

    side: int


@dataclass(frozen=True, slots=True)
class Roll:
    """A die the fight waits for, by the side it waits for; the state says which die."""

    side: int
    value: int


@dataclass(frozen=True, slots=True)
class ModeratorEnd:
    """A moderator ends the fight with a winner, or as a draw (R8.1)."""

    winner: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class Forfeit:
    """The awaited side ran out of time and the opponent claimed (R7.4)."""

    side: int


class _Sided(Protocol):
    @property
    def side(self) -> int: ...


def check_command(state: RulesState, command: ModeratorEnd | _Sided) -> None:
    """The checks every engine's ``apply`` makes first: the fight is not over, a
    moderator's winner is a side or None (a draw), and any other command's side is 0 or
    1. Raises the engine's typed errors; whose turn it is, each engine checks itself."""
    if state.outcome is not None or state.awaiting is None:
        raise FightOver("the fight is over")
    if isinstance(command, ModeratorEnd):
        if command.winner not in (None, 0, 1):
            raise IllegalCommand("the winner must be side 0 or 1")
    elif command.side not in (0, 1):
        raise IllegalCommand("a command's side must be 0 or 1")


def undo_point(commands: Sequence[object]) -> int:
    """How many commands remain after a moderator's undo (R8.1 as the club applies it to
    every system): the index of the last command that is not a Roll.

    An undo takes back one decision (An Cath's Defend, a contest's Strike, an Attack, a
    Yield, a Forfeit, a ModeratorEnd...) with the rolls after it, and no more: undoing
    a Defend keeps the attack roll and asks the defender again. Rolls alone (An Cath's
    initiative) are nothing to undo."""
    for index in range(len(commands) - 1, -1, -1):
        if not isinstance(commands[index], Roll):
            return index
    raise IllegalCommand("nothing to undo")
