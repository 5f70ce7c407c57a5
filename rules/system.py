"""The contract every rules system keeps, so storage and the bot treat them alike.

A system is pure functions over its own frozen states and commands (``RuleSystem``);
each state offers what the bot reads of any fight (``RulesState``): how far it has come,
whom it waits for (and whether for a die, and which), and how it ended. Everything
else about a state is the system's own, for its wording (``bot/render*.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rules.codec import Codec
from rules.common import Awaiting, Outcome

__all__ = ["Awaiting", "Outcome", "RuleSystem", "RulesState"]


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


@dataclass(frozen=True, slots=True)
class RuleSystem:
    """A rules engine's entry points: pure functions over its own states and commands.
    Commands and events are frozen dataclasses its ``codec`` stores by type name."""

    name: str
    kinds: tuple[str, ...]
    """Fight kinds it knows; the first is the default."""
    codec: Codec
    start: Callable[[str, Sequence[Any]], tuple[RulesState, tuple[Any, ...]]]
    """``start(kind, sheets) -> (state, events)``."""
    apply: Callable[[Any, Any], tuple[RulesState, tuple[Any, ...]]]
    """``apply(state, command) -> (new_state, events)``; a refused command raises a
    ``rules.errors.RulesError`` and changes nothing."""
    undo_point: Callable[[Sequence[Any]], int]
    """How many commands remain after a moderator's undo (R8.1)."""
