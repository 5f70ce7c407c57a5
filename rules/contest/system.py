"""Simple Contest (R9) as a :class:`rules.system.RuleSystem`."""

from __future__ import annotations

from rules import common
from rules.codec import Codec
from rules.contest import engine, model
from rules.effects import no_effects
from rules.system import RuleSystem, dataclasses_of, no_bp

__all__ = ["CONTEST"]

CONTEST: RuleSystem[model.ContestState, model.Command, model.Event, model.ContestFighter] = \
    RuleSystem("contest", ("contest",),
               Codec([*dataclasses_of(model), *dataclasses_of(common)]), engine.start,
               engine.apply, engine.undo_point, no_effects, no_bp)
