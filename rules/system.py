"""The contract every rules system keeps, so storage and the bot treat them alike.

A system is pure functions over its own frozen states, commands, events and fighters
(``RuleSystem``, generic over the four); each state offers what the bot reads of any
fight (``rules.contract.RulesState``): how far it has come, whom it waits for (and
whether for a die, and which), and how it ended. Everything else about a state is the
system's own, for its wording (``bot/wording``). A bare ``RuleSystem`` is any system.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Generic

from typing_extensions import TypeVar

from rules.codec import Codec
from rules.contract import Awaiting, Outcome, RulesState
from rules.effects import Effect
from rules.stored import SheetCodec, Whole

__all__ = ["Awaiting", "Outcome", "RuleSystem", "RulesState", "dataclasses_of", "no_bp"]

S = TypeVar("S", bound=RulesState, default=Any)
"""The system's fight state."""
C = TypeVar("C", default=Any)
"""Its commands (a union of frozen dataclasses)."""
E = TypeVar("E", default=Any)
"""Its events."""
F = TypeVar("F", default=Any)
"""Its fighters: the sheets a fight starts from."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleSystem(Generic[S, C, E, F]):
    """A rules engine's entry points, built by keywords: pure functions over its own
    states and commands.
    Commands, events and fighters are frozen dataclasses its ``codec`` stores by type
    name."""

    name: str
    kinds: tuple[str, ...]
    """Fight kinds it knows; the first is the default."""
    codec: Codec
    start: Callable[[str, Sequence[F]], tuple[S, tuple[E, ...]]]
    """``start(kind, fighters) -> (state, events)``."""
    apply: Callable[[S, C], tuple[S, tuple[E, ...]]]
    """``apply(state, command) -> (new_state, events)``; a refused command raises a
    ``rules.errors.RulesError`` and changes nothing."""
    undo_point: Callable[[Sequence[C]], int]
    """How many commands remain after a moderator's undo (R8.1)."""
    ledger_effects: Callable[[Sequence[E]], tuple[Effect, ...]]
    """``ledger_effects(events)``: what the events do to the warriors, for storage to
    write without knowing the system (``rules.effects``)."""
    bp_applied: Callable[[int, int], int]
    """``bp_applied(bp, tenths)``: what a change of ``tenths`` makes to a total of
    ``bp`` within the system's bounds (R2.6), for an award and for an undo's reversal."""
    stored: SheetCodec | None = None
    """How a warrior row keeps its fighters (``rules.stored``); None: whole, encoded."""

    def sheets(self) -> SheetCodec:
        """Its fighters to and from a warrior row's stored values."""
        return self.stored if self.stored is not None else Whole(self.codec)


def dataclasses_of(module: ModuleType) -> list[type]:
    """Every dataclass a model module defines: its commands, events and fighters (what a
    system's codec stores)."""
    return [
        v for v in vars(module).values()
        if isinstance(v, type) and dataclasses.is_dataclass(v)
        and v.__module__ == module.__name__
    ]


def no_bp(_bp: int, _tenths: int) -> int:
    """``bp_applied`` of a system whose fighters keep no BP (Simple Contest and the
    General rules, R9.6): nothing changes."""
    return 0
