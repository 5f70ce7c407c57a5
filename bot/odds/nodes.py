"""What the exact chain's nodes hold, shared by the chain (:mod:`bot.odds.chain`), its
fast turns (:mod:`bot.odds.regular`) and its solve (:mod:`bot.odds.linear`)."""

from __future__ import annotations

from typing import NamedTuple

from rules.ancath.state import FightState

__all__ = ["UNSOLVED", "Next", "Won"]

UNSOLVED = -1.0
"""The value of a node not solved yet (a chance is never negative)."""


class Won(NamedTuple):
    """The fight is over: ``winner`` won it (None for a draw)."""

    winner: int | None


Next = int | Won | FightState
"""Where a regular turn leads: another regular state, an end, or an irregular state."""
