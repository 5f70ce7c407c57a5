"""Commands every smaller rules system shares (Simple Contest, General rules)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Forfeit", "ModeratorEnd", "Roll", "Yield"]


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
