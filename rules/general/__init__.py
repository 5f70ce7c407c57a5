"""The General rules, as R10 of ``docs/rulings.md`` reads them: a d20
skirmish engine with rolled-up damage, Protection, knockback and stun, and the travel
tool (``rules.general.travel``)."""

from rules.general.engine import apply, start, undo_point

__all__ = ["apply", "start", "undo_point"]
