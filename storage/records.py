"""What the store hands the bot: plain frozen records of warriors, fights, the steps
of a fight, its BP awards and pending challenges (never a database row)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.system import RulesState, RuleSystem
from storage.ledger import Anchor

__all__ = ["Award", "ChallengeRecord", "OpenFight", "Step", "WarriorRecord"]


@dataclass(frozen=True, slots=True)
class WarriorRecord:
    id: int
    sheet: Any
    """An An Cath ``Sheet``, or the fighter of another rules system."""
    owner: str
    captor: str | None
    in_fight: bool
    system: str = "ancath"
    status: str = "free"


@dataclass(frozen=True, slots=True)
class Award:
    """A BP award as the ledger recorded it: ``tenths`` actually added of the ``asked``
    (the 40.0 cap may cut it, R2.6), for the fight's ``side``, and why (R7.2)."""

    side: int
    tenths: int
    asked: int
    reason: str


@dataclass(frozen=True, slots=True)
class ChallengeRecord:
    """A challenge waiting in ``channel`` for its target's player to answer."""

    channel: str
    challenger: str
    challenger_account: str
    target: str
    target_account: str
    kind: str


@dataclass(frozen=True, slots=True)
class Step:
    """One accepted command, who sent it, and what it did."""

    command: Any
    actor: str
    state: RulesState
    events: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class OpenFight:
    """An unfinished fight as the bot holds it: rebuilt from its commands."""

    id: int
    channel: str
    system: RuleSystem
    kind: str
    sheets: tuple[Any, ...]
    accounts: tuple[str, ...]
    state: RulesState
    commands: tuple[Any, ...]
    """The effective command list (undone commands left out)."""
    seq: int
    """The last sequence number written for this fight."""
    awarded: tuple[Award, ...] = ()
    """The BP awards the last write added to the ledger, as added (R2.6)."""
    anchor: Anchor | None = None
    """The ledger head after the last write, when it appended rows (a fight's end always
    does): ``ledger #4123 9f2c1a7e``, to publish outside the database."""
