"""The play service: a fight's command applied, the automatic rolls that follow it made,
and all of it recorded in one store call before anything is said (:func:`play`).

No chat here: it takes the fight, the command, the channel's rules as the command read
them once (:class:`bot.club_settings.ChannelRules`), the dice and the store, and hands
back what was played (:class:`Played`), for the chat adapters (:mod:`bot.fights.play`)
to word and say. Typed by the fight's system throughout: a command of its commands,
events of its events.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from bot.club_settings import ChannelRules
from bot.dice import DiceSource
from bot.systems.plugin import Plugin
from bot.systems.registry import PLUGINS
from rules.system import RulesState
from storage.records import Fighter
from storage.store import OpenFight, Step, Store

__all__ = ["Played", "auto_rolls", "die_due", "due_rolls", "play", "plugin_of", "roll_due"]

S = TypeVar("S", bound=RulesState)
"""The fight's system's state."""
C = TypeVar("C")
"""Its commands."""
E = TypeVar("E")
"""Its events."""
F = TypeVar("F", bound=Fighter)
"""Its fighters' sheets."""


@dataclass(frozen=True, slots=True)
class Played(Generic[S, C, E, F]):
    """What a command did: the fight as recorded after it, and every event of the
    command and of the rolls that followed, in order."""

    fight: OpenFight[S, C, E, F]
    events: tuple[E, ...]

    @property
    def ended(self) -> bool:
        """The fight is over (its last state has an outcome)."""
        return self.fight.state.outcome is not None


def plugin_of(fight: OpenFight[S, C, E, F]) -> Plugin[S, C]:
    """The fight's rules system as the bot plays it (its verbs, rolls and wording): the
    one place a fight meets the registry, which holds every system's plugin."""
    return PLUGINS[fight.system.name]


def play(fight: OpenFight[S, C, E, F], command: C, rules: ChannelRules, dice: DiceSource,
         store: Store, *, actor: str, moderator: str | None = None,
         reason: str | None = None) -> Played[S, C, E, F]:
    """``command`` (sent by ``actor``) applied, then the automatic rolls it makes due
    when the channel's rolls are automatic, all recorded in one transaction;
    ``moderator`` and ``reason`` say who ruled and why when a moderator's command it is
    (R8.1). A refused command raises the rules' error and records nothing."""
    state, events = fight.system.apply(fight.state, command)
    return _record(fight, [Step(command, actor, state, events),
                           *auto_rolls(fight, state, rules, dice)], store, moderator, reason)


def due_rolls(fight: OpenFight[S, C, E, F], rules: ChannelRules, dice: DiceSource,
              store: Store) -> Played[S, C, E, F]:
    """The automatic rolls ``fight`` already waits for (its channel's rolls became
    automatic, or it was taken up from the records waiting), recorded; no events, and
    nothing written, when there are none."""
    steps = auto_rolls(fight, fight.state, rules, dice)
    return _record(fight, steps, store) if steps else Played(fight, ())


def auto_rolls(fight: OpenFight[S, C, E, F], state: S, rules: ChannelRules,
               dice: DiceSource) -> list[Step[S, C, E]]:
    """Where the channel's rolls are automatic, every die ``fight`` waits for from
    ``state`` on, rolled by the bot (nothing recorded: :func:`play` records them)."""
    steps: list[Step[S, C, E]] = []
    side = roll_due(state)
    if not rules.rolls_auto or side is None:
        return steps
    plugin = plugin_of(fight)
    while side is not None:
        roll = plugin.roll(side, dice.roll(die_due(state)))
        state, events = fight.system.apply(state, roll)
        steps.append(Step(roll, "bot", state, events))
        side = roll_due(state)
    return steps


def _record(fight: OpenFight[S, C, E, F], steps: list[Step[S, C, E]], store: Store,
            moderator: str | None = None, reason: str | None = None) -> Played[S, C, E, F]:
    recorded: OpenFight[S, C, E, F] = store.record_steps(fight, steps, moderator, reason)
    return Played(recorded, tuple(event for step in steps for event in step.events))


def roll_due(state: RulesState) -> int | None:
    """The side whose roll the fight waits for, or None when it waits for a decision."""
    awaiting = state.awaiting
    return awaiting.side if awaiting is not None and awaiting.is_roll else None


def die_due(state: RulesState) -> int:
    """The die the fight waits for: d100 in An Cath, d20 or a damage die elsewhere."""
    assert state.awaiting is not None
    return state.awaiting.die
