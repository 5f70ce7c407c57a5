"""What a fight's events do to the warriors, in words no system owns: storage writes
each effect as one ledger row and the warrior change it makes, without knowing the
system that caused it (``RuleSystem.ledger_effects``; a BP change goes through the
system's ``bp_applied`` bounds)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["BPChange", "Capture", "Death", "Effect", "no_effects"]


@dataclass(frozen=True, slots=True)
class BPChange:
    """BP the rules award a side (ledger entry ``award``). What the warrior's total
    actually changes by is the system's ``bp_applied`` of its total then (R2.6)."""

    side: int
    tenths: int
    """The award asked for, in tenths."""
    reason: str
    """Why, as the ledger words it after the fight kind: ``win``, ``foe-slain``."""


@dataclass(frozen=True, slots=True)
class Death:
    """A side dies (ledger entry ``death``): status dead, no captor."""

    side: int
    cause: str
    """The ledger's reason: ``slain in a mortal fight``."""


@dataclass(frozen=True, slots=True)
class Capture:
    """A side is taken prisoner by the other (ledger entry ``prisoner-taken``)."""

    side: int
    """The prisoner."""
    captor: int
    ransom: str | None
    """The ransom the captor named, if any (the row's detail)."""


Effect = BPChange | Death | Capture


def no_effects(_events: Sequence[object]) -> tuple[Effect, ...]:
    """A system whose fights change no warrior (Simple Contest, the General rules)."""
    return ()
