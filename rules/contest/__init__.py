"""Simple Contest combat, refereed as R9 of ``docs/rulings.md`` reads it.

Each round both sides say they strike, then roll d20, the challenger first; the bot
resolves the contest when both dice are in. ``apply(state, command)`` like An Cath.
"""

from rules.contest.engine import apply, start, undo_point

__all__ = ["apply", "start", "undo_point"]
