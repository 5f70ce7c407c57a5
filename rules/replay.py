"""A fight rebuilt from its start and its commands, through its system's ``start`` and
``apply``: the one replay storage, a moderator's undo and the tests use. States are
frozen and rolls are commands, so a replay gives the very state and events the fight
gave when it was played."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Generic

from rules.system import C, E, F, RuleSystem, S

__all__ = ["Replayed", "replay"]


@dataclass(frozen=True, slots=True)
class Replayed(Generic[S, E]):
    """A replay's last state, and the events of each step: the start's first, then
    one tuple per command."""

    state: S
    steps: tuple[tuple[E, ...], ...]

    @property
    def events(self) -> tuple[E, ...]:
        """Every event, in order."""
        return tuple(event for step in self.steps for event in step)


def replay(
    system: RuleSystem[S, C, E, F], kind: str, fighters: Sequence[F], commands: Iterable[C]
) -> Replayed[S, E]:
    """Start ``kind`` between ``fighters`` and apply ``commands`` in order; a command
    the rules refuse raises their ``RulesError``."""
    state, events = system.start(kind, fighters)
    steps = [events]
    for command in commands:
        state, events = system.apply(state, command)
        steps.append(events)
    return Replayed(state, tuple(steps))
