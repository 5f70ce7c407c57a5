"""The registry of rules systems by name."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from types import ModuleType

from rules import common
from rules.ancath import apply, start, undo_point
from rules.ancath.codec import CODEC
from rules.ancath.commands import Command as AnCathCommand
from rules.ancath.events import Event as AnCathEvent
from rules.ancath.rewards import ledger_effects
from rules.ancath.sheet import Sheet, bp_applied
from rules.ancath.state import FightState, Kind
from rules.codec import Codec
from rules.contest import engine as contest
from rules.contest import model as contest_model
from rules.effects import no_effects
from rules.general import engine as general
from rules.general import model as general_model
from rules.system import RuleSystem

__all__ = ["AN_CATH", "CONTEST", "GENERAL", "SYSTEMS"]


def _dataclasses(module: ModuleType) -> list[type]:
    """Every dataclass a model module defines: its commands, events and fighters."""
    return [
        v for v in vars(module).values()
        if isinstance(v, type) and dataclasses.is_dataclass(v)
        and v.__module__ == module.__name__
    ]


def _start_an_cath(
    kind: str, sheets: Sequence[Sheet]
) -> tuple[FightState, tuple[AnCathEvent, ...]]:
    challenger, defender = sheets
    return start(Kind(kind), challenger, defender)


def _no_bp(_bp: int, _tenths: int) -> int:
    """Simple Contest and General rules fighters keep no BP (R9.6): nothing changes."""
    return 0


AN_CATH: RuleSystem[FightState, AnCathCommand, AnCathEvent, Sheet] = RuleSystem(
    "ancath", tuple(k.value for k in Kind), CODEC, _start_an_cath, apply, undo_point,
    ledger_effects, bp_applied,
)
CONTEST: RuleSystem[
    contest_model.ContestState, contest_model.Command, contest_model.Event,
    contest_model.ContestFighter,
] = RuleSystem(
    "contest", ("contest",),
    Codec([*_dataclasses(contest_model), *_dataclasses(common)]), contest.start,
    contest.apply, contest.undo_point, no_effects, _no_bp,
)
GENERAL: RuleSystem[
    general_model.GeneralState, general_model.Command, general_model.Event,
    general_model.GeneralFighter,
] = RuleSystem(
    "general", ("general",),
    Codec([*_dataclasses(general_model), *_dataclasses(common)]), general.start,
    general.apply, general.undo_point, no_effects, _no_bp,
)
SYSTEMS: dict[str, RuleSystem] = {s.name: s for s in (AN_CATH, CONTEST, GENERAL)}
"""Every system by its name; a bare ``RuleSystem`` is any of them."""
