"""Simple Contest (R9) as a :class:`rules.system.RuleSystem`."""

from __future__ import annotations

from rules import common
from rules.codec import Codec
from rules.contest import engine, model
from rules.effects import no_effects
from rules.system import RuleSystem, dataclasses_of, no_bp

__all__ = ["CONTEST"]

CONTEST: RuleSystem[model.ContestState, model.Command, model.Event, model.ContestFighter] = \
    RuleSystem(name="contest", kinds=("contest",),
               codec=Codec([*dataclasses_of(model), *dataclasses_of(common)]),
               start=engine.start, apply=engine.apply, undo_point=engine.undo_point,
               ledger_effects=no_effects, bp_applied=no_bp)
