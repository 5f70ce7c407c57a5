"""The decision time limit of one fight (R7.4), as a value: when it started, how long it
is, and the fight's progress and awaiting it started on. The limit starts again only
when the fight moves on (its progress or whom it awaits changes), so a loadout change or
a bonus declaration does not stop the clock. Pure: the clock's tick, ``!claim`` and a
resumed fight all pass the time in.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from rules.system import Awaiting, RulesState

__all__ = ["Alarm", "TurnTimer"]


class Alarm(Enum):
    """What the channel is told about a running time limit."""

    HALF = "half"
    """Half the time has gone: a warning."""
    UP = "up"
    """The time is up: the foe may ``!claim``."""


@dataclass(frozen=True, slots=True)
class TurnTimer:
    started: float
    seconds: float
    progress: int
    """The fight's turn or round when the limit started."""
    awaiting: Awaiting | None
    """Whom the fight awaited, and for what, when the limit started."""
    warned: bool = False
    expired: bool = False

    @classmethod
    def start(cls, state: RulesState, now: float, seconds: float) -> TurnTimer:
        return cls(now, seconds, state.progress, state.awaiting)

    @property
    def deadline(self) -> float:
        return self.started + self.seconds

    def due(self, now: float) -> bool:
        """Whether the time is up."""
        return now >= self.deadline

    def remaining(self, now: float) -> float:
        return max(0.0, self.deadline - now)

    def moved(self, state: RulesState) -> bool:
        return (state.progress, state.awaiting) != (self.progress, self.awaiting)

    def restart_if_moved(self, state: RulesState, now: float, seconds: float) -> TurnTimer:
        """A new limit of ``seconds`` from ``now`` if ``state`` moved on, else this one."""
        return TurnTimer.start(state, now, seconds) if self.moved(state) else self

    def alarm(self, now: float) -> tuple[TurnTimer, Alarm | None]:
        """The alarm due at ``now``, once each, with the timer that remembers it."""
        if not self.expired and self.due(now):
            return replace(self, warned=True, expired=True), Alarm.UP
        if not self.warned and now >= self.deadline - self.seconds / 2:
            return replace(self, warned=True), Alarm.HALF
        return self, None
