"""The registry of rules systems by name."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from rules import common, contest, general
from rules.ancath import apply, start, undo_point
from rules.ancath.codec import CODEC
from rules.ancath.state import Kind
from rules.codec import Codec
from rules.contest import model as contest_model
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


def _start_an_cath(kind: str, sheets: Sequence[Any]) -> tuple[Any, tuple[Any, ...]]:
    challenger, defender = sheets
    return start(Kind(kind), challenger, defender)


AN_CATH = RuleSystem(
    "ancath", tuple(k.value for k in Kind), CODEC, _start_an_cath, apply, undo_point
)
CONTEST = RuleSystem(
    "contest", ("contest",),
    Codec([*_dataclasses(contest_model), *_dataclasses(common)]), contest.start,
    contest.apply, contest.undo_point,
)
GENERAL = RuleSystem(
    "general", ("general",),
    Codec([*_dataclasses(general_model), *_dataclasses(common)]), general.start,
    general.apply, general.undo_point,
)
SYSTEMS: dict[str, RuleSystem] = {s.name: s for s in (AN_CATH, CONTEST, GENERAL)}
