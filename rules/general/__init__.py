"""The General rules (shared/rules-text/general-rules.txt) as R10 reads them: a d20
skirmish engine with rolled-up damage, Protection, knockback and stun, and the travel
tool (``rules.general.travel``)."""

from rules.general.engine import apply, start, undo_point

__all__ = ["apply", "start", "undo_point"]
