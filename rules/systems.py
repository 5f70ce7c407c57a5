"""The registry of rules systems by name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.ancath import apply, start, undo_point
from rules.ancath.codec import CODEC
from rules.ancath.state import Kind
from rules.system import RuleSystem

__all__ = ["AN_CATH", "SYSTEMS"]


def _start_an_cath(kind: str, sheets: Sequence[Any]) -> tuple[Any, tuple[Any, ...]]:
    challenger, defender = sheets
    return start(Kind(kind), challenger, defender)


AN_CATH = RuleSystem(
    "ancath", tuple(k.value for k in Kind), CODEC, _start_an_cath, apply, undo_point
)
SYSTEMS: dict[str, RuleSystem] = {AN_CATH.name: AN_CATH}
