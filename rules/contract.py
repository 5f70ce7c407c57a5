"""What the bot and storage read of any system's fight, as protocols each system's own
frozen values keep: who is awaited and for what (``Awaiting``), how it ended
(``Outcome``, with the system's own ``Ending`` enum), and the state that holds them
(``RulesState``). Nothing here imports a system, so every module may import it."""

from __future__ import annotations

from enum import Enum
from typing import Protocol

__all__ = ["Awaiting", "Outcome", "RulesState"]


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


class RulesState(Protocol):
    """What the bot and storage read of any system's fight state."""

    @property
    def progress(self) -> int:
        """The turn (An Cath, General rules) or round (Simple Contest); 0 before the
        first. The time limit starts again when it or ``awaiting`` changes (R7.4)."""
        ...

    @property
    def awaiting(self) -> Awaiting | None:
        """Who the fight waits for; None once it is over."""
        ...

    @property
    def outcome(self) -> Outcome | None:
        """How it ended; None while it goes on."""
        ...
