"""What a command raises for what a user got wrong (:class:`Refusal`: one reply names
the fix) and for a line taken on the wrong lane (:class:`WritesAfterAll`); the
bottom room every command, plugin and service may raise them from."""

from __future__ import annotations

__all__ = ["Refusal", "WritesAfterAll"]


class Refusal(Exception):
    """A request the referee declines; the message names the fix."""


class WritesAfterAll(Exception):
    """A line taken for one that only reads turned out to write when it ran (a roll
    that became a fight roll): it did nothing, and goes to the records lane."""
