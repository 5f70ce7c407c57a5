"""Typed errors shared by every rules system.

A refused command raises one of these and leaves the state untouched. Messages name
the warrior and the reason, so a player can act on them ("Gorbag cannot Dodge: left
leg disabled"); the bot adds nothing but the addressee.
"""

from __future__ import annotations

__all__ = [
    "FightOver",
    "IllegalCommand",
    "InvalidRoll",
    "InvalidSheet",
    "NotYourTurn",
    "OtherRules",
    "RulesError",
    "Unavailable",
]


class RulesError(Exception):
    """Base of every error the rules engines raise for user input."""


class InvalidSheet(RulesError):
    """A warrior cannot be created or changed like that (a bad loadout is Unavailable)."""


class OtherRules(InvalidSheet):
    """A between-fight change of one system asked of another system's fighter; ``what``
    says what that fighter lacks (``no BP or skills there``), the store names its
    system."""

    def __init__(self, name: str, what: str) -> None:
        super().__init__(f"{name} fights by other rules: {what}")
        self.name, self.what = name, what


class IllegalCommand(RulesError):
    """The command is not allowed in the fight's present state."""


class NotYourTurn(IllegalCommand):
    """Someone acted who is not the one the fight waits for."""


class Unavailable(IllegalCommand):
    """The acting side may act now, but not in that way."""


class FightOver(IllegalCommand):
    """The fight has ended; nothing more can be applied."""


class InvalidRoll(RulesError):
    """A roll outside its die's range (a roll when a decision is awaited is IllegalCommand)."""
