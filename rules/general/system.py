"""The General rules (R10) as a :class:`rules.system.RuleSystem`."""

from __future__ import annotations

from rules import common
from rules.codec import Codec
from rules.effects import no_effects
from rules.general import engine, model
from rules.system import RuleSystem, dataclasses_of, no_bp

__all__ = ["GENERAL"]

GENERAL: RuleSystem[model.GeneralState, model.Command, model.Event, model.GeneralFighter] = \
    RuleSystem(name="general", kinds=("general",),
               codec=Codec([*dataclasses_of(model), *dataclasses_of(common)]),
               start=engine.start, apply=engine.apply, undo_point=engine.undo_point,
               ledger_effects=no_effects, bp_applied=no_bp)
