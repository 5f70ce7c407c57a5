"""Simple Contest combat (shared/rules-text/simple-contest-combat.txt), as R9 reads it.

Each round both sides say they strike, then roll d20, the challenger first; the bot
resolves the contest when both dice are in. ``apply(state, command)`` like An Cath.
"""

from rules.contest.engine import apply, start, undo_point

__all__ = ["apply", "start", "undo_point"]
