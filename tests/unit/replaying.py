"""The one replay (``rules.replay``) in the shapes the engine tests read: An Cath's
state with every event, the other systems' state alone."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rules.ancath.commands import Command
from rules.ancath.events import Event
from rules.ancath.sheet import Sheet
from rules.ancath.state import FightState, Kind
from rules.ancath.system import AN_CATH
from rules.contest.model import Command as ContestCommand
from rules.contest.model import ContestFighter, ContestState
from rules.contest.system import CONTEST
from rules.general.model import Command as GeneralCommand
from rules.general.model import GeneralFighter, GeneralState
from rules.general.system import GENERAL
from rules.replay import replay

__all__ = ["ancath_replay", "contest_replay", "general_replay"]


def ancath_replay(
    kind: Kind, sheets: Sequence[Sheet], commands: Iterable[Command]
) -> tuple[FightState, tuple[Event, ...]]:
    replayed = replay(AN_CATH, kind.value, sheets, commands)
    return replayed.state, replayed.events


def contest_replay(
    kind: str, fighters: Sequence[ContestFighter], commands: Iterable[ContestCommand]
) -> ContestState:
    return replay(CONTEST, kind, fighters, commands).state


def general_replay(
    kind: str, fighters: Sequence[GeneralFighter], commands: Iterable[GeneralCommand]
) -> GeneralState:
    return replay(GENERAL, kind, fighters, commands).state
