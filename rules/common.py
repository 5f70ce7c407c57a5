"""What every rules system shares: the commands a fight ends or rolls by, the shapes of
``Awaiting`` and ``Outcome`` each system's own values take, and the checks every
``apply`` makes before its own.

The commands are stored by type name and fields (``rules.codec``): An Cath, Simple
Contest and the General rules all store a ``Roll``, ``Forfeit`` or ``ModeratorEnd`` alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Protocol

from rules.errors import FightOver, IllegalCommand

if TYPE_CHECKING:
    from rules.system import RulesState

__all__ = [
    "Awaiting", "Forfeit", "ModeratorEnd", "Outcome", "Roll", "Yield", "check_command",
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


class Awaiting(Protocol):
    """Who a fight waits for; each system's ``Awaiting`` adds what for."""

    @property
    def side(self) -> int:
        """0 (challenger) or 1 (defender)."""
        ...

    @property
    def is_roll(self) -> bool:
        """The fight waits for a die (a ``Roll`` by ``side``), not a decision."""
        ...

    @property
    def die(self) -> int:
        """The die's faces when ``is_roll``: 100 in An Cath, 20 or a damage die elsewhere."""
        ...


class Outcome(Protocol):
    """How a fight ended; each system's ``Outcome`` has its own ``Ending`` enum."""

    @property
    def ending(self) -> Enum:
        """The way it ended; ``ending.value`` is the word storage keeps."""
        ...

    @property
    def winner(self) -> int | None:
        """0 (challenger), 1 (defender), or None for a draw."""
        ...


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
