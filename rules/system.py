"""The interface every rules system offers, so storage and the bot treat them alike."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rules.codec import Codec

__all__ = ["RuleSystem"]


@dataclass(frozen=True, slots=True)
class RuleSystem:
    """A rules engine's entry points: pure functions over its own states and commands."""

    name: str
    kinds: tuple[str, ...]
    """Fight kinds it knows; the first is the default."""
    codec: Codec
    start: Callable[[str, Sequence[Any]], tuple[Any, tuple[Any, ...]]]
    """``start(kind, sheets) -> (state, events)``."""
    apply: Callable[[Any, Any], tuple[Any, tuple[Any, ...]]]
    undo_point: Callable[[Sequence[Any]], int]
    """How many commands remain after a moderator's undo (R8.1)."""
