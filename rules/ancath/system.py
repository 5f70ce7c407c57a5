"""An Cath as a :class:`rules.system.RuleSystem`: its engine's entry points, its codec,
its ledger effects and its BP bounds, in one record."""

from __future__ import annotations

from collections.abc import Sequence

from rules.ancath import apply, start, undo_point
from rules.ancath.codec import CODEC
from rules.ancath.commands import Command
from rules.ancath.events import Event
from rules.ancath.rewards import ledger_effects
from rules.ancath.sheet import Sheet, bp_applied
from rules.ancath.state import FightState, Kind
from rules.ancath.stored import STORED
from rules.system import RuleSystem

__all__ = ["AN_CATH"]


def _start(kind: str, sheets: Sequence[Sheet]) -> tuple[FightState, tuple[Event, ...]]:
    challenger, defender = sheets
    return start(Kind(kind), challenger, defender)


AN_CATH: RuleSystem[FightState, Command, Event, Sheet] = RuleSystem(
    name="ancath", kinds=tuple(k.value for k in Kind), codec=CODEC, start=_start,
    apply=apply, undo_point=undo_point, ledger_effects=ledger_effects,
    bp_applied=bp_applied, stored=STORED,
)
