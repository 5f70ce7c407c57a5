"""What the store hands the bot: plain frozen records of warriors, fights, the steps
of a fight, its BP awards and pending challenges (never a database row)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypedDict, TypeVar

from rules.system import RulesState, RuleSystem
from storage.ledger import Anchor
from storage.models import Entry, Status

__all__ = ["Award", "ChallengeRecord", "Entry", "Fighter", "LedgerEntry", "OpenFight", "Status",
           "Step", "WarriorRecord"]


class Fighter(Protocol):
    """What the sheet of every rules system's fighter has."""

    @property
    def name(self) -> str: ...


SheetT = TypeVar("SheetT", bound=Fighter, covariant=True)
Wanted = TypeVar("Wanted", bound=Fighter)


@dataclass(frozen=True, slots=True)
class WarriorRecord(Generic[SheetT]):
    """A warrior as its rules system's sheet (``WarriorRecord[Sheet]`` for An Cath's)
    with what the club keeps of every warrior."""

    id: int
    sheet: SheetT
    """An An Cath ``Sheet``, or the fighter of another rules system."""
    owner: str
    captor: str | None
    in_fight: bool
    system: str = "ancath"
    status: Status = "free"

    def sheet_as(self, kind: type[Wanted]) -> Wanted:
        """The sheet, known to be a ``kind`` (a ``TypeError`` when it is not)."""
        if not isinstance(self.sheet, kind):
            raise TypeError(f"{self.sheet.name} fights by {self.system} rules, with no "
                            f"{kind.__name__}")
        return self.sheet


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


class LedgerEntry(TypedDict):
    """A ledger row as the store hands it out (``ancath-bot ledger`` prints these keys)."""

    id: int
    warrior: str | None
    """The warrior's name; None on a fight's or a moderator's rows."""
    entry: Entry
    bp: float
    """BP actually added (R2.6), negative when taken away."""
    spent: int
    skill: str | None
    skill_value: int | None
    status: Status | None
    actor: str
    moderator: str | None
    fight: int | None
    reason: str | None
    at: str
    hash: str
    key: str | None
