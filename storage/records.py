"""What the store hands the bot: plain frozen records of warriors, fights, the steps
of a fight, its BP awards and pending challenges (never a database row)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypedDict, TypeVar

from typing_extensions import TypeVar as DefaultedTypeVar

from rules.system import RulesState, RuleSystem
from storage.ledger import Anchor
from storage.log_digests import LogDigests
from storage.models import Entry, Status

__all__ = ["Award", "ChallengeRecord", "ClubState", "Entry", "FightLine", "FightSummary", "Fighter",
           "LedgerEntry", "LogPlace", "LoggedCommand", "OpenFight", "Standing",
           "Status", "Step", "UndoRecord", "WarriorRecord", "WarriorStats"]


class Fighter(Protocol):
    """What the sheet of every rules system's fighter has."""

    @property
    def name(self) -> str: ...


SheetT = TypeVar("SheetT", bound=Fighter, covariant=True)
Wanted = TypeVar("Wanted", bound=Fighter)

StateT = DefaultedTypeVar("StateT", bound=RulesState, covariant=True, default=Any)
"""A fight's system's state (a bare ``OpenFight`` or ``Step`` is of any system; frozen
records, so a fight of one system is an ``OpenFight[RulesState, object, object,
Fighter]`` too)."""
CommandT = DefaultedTypeVar("CommandT", covariant=True, default=Any)
"""Its commands."""
EventT = DefaultedTypeVar("EventT", covariant=True, default=Any)
"""Its events."""
FighterT = DefaultedTypeVar("FighterT", bound=Fighter, covariant=True, default=Any)
"""Its fighters' sheets."""


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
    system: str
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


@dataclass
class ClubState:
    """The club's settings and the moderators named in chat, at one ``version`` of the
    club (``storage.club``). Not frozen: the referee keeps one, and a writing command
    changes a copy of its own that takes its place once committed
    (``bot.unit_copies.UnitCopies``)."""

    version: int
    settings: dict[str, Any]
    """Every setting's value by key (``ignored``, ``rolls:default:#duels``, ...)."""
    moderators: list[str]


@dataclass(frozen=True, slots=True)
class Step(Generic[StateT, CommandT, EventT]):
    """One accepted command, who sent it, and what it did."""

    command: CommandT
    actor: str
    state: StateT
    events: tuple[EventT, ...]


@dataclass(frozen=True, slots=True)
class OpenFight(Generic[StateT, CommandT, EventT, FighterT]):
    """An unfinished fight as the bot holds it: rebuilt from its commands. Typed by its
    system's state, command, event and fighter (``OpenFight[FightState, Command, Event,
    Sheet]`` for An Cath's)."""

    id: int
    channel: str
    system: RuleSystem[StateT, CommandT, EventT, FighterT]
    kind: str
    sheets: tuple[FighterT, ...]
    accounts: tuple[str, ...]
    state: StateT
    commands: tuple[CommandT, ...]
    """The effective command list (undone commands left out)."""
    seq: int
    """The last sequence number written for this fight."""
    awarded: tuple[Award, ...] = ()
    """The BP awards the last write added to the ledger, as added (R2.6)."""
    anchor: Anchor | None = None
    """The ledger head after the last write, when it appended rows (a fight's end always
    does): ``ledger #4123 9f2c1a7e``, to publish outside the database."""
    logs: LogDigests | None = None
    """Its logs' digests as written up to ``seq``, when this process wrote them all
    (a fight loaded from the database has none; its end reads them back)."""


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
    detail: str
    """What the row's ``detail`` records, in words (``storage.ledger_words``); '' for none."""
    at: str
    hash: str
    key: str | None


@dataclass(frozen=True, slots=True)
class Standing:
    """A warrior in the club's standings (``!top``, the standings page)."""

    name: str
    system: str
    culture: str | None
    """An An Cath warrior's culture; None in another rules system."""
    status: Status
    bp: int
    """Tenths of BP."""
    wins: int
    losses: int
    draws: int
    owner: str
    """The identity that owns it (a services account, or a ``user@host`` never shown)."""


def _place(channel: str, network: str | None) -> str:
    return channel if network is None else f"{channel} on {network}"


@dataclass(frozen=True, slots=True)
class FightLine:
    """One fight as one of its warriors fought it (``!history``)."""

    id: int
    channel: str
    system: str
    kind: str
    side: int
    foe: str
    result: str
    """``won``, ``lost``, ``draw``, or ``open`` while it goes on."""
    ending: str | None
    """How it ended (the rules system's word: ``kill``, ``yield``, ...)."""
    bp: int
    """Tenths of BP this warrior's ledger rows of the fight added."""
    started_at: str
    ended_at: str | None
    network: str | None = None
    """Its channel's network when the club's fights are on more than one network; None
    when they are all on one (nothing to tell apart)."""

    @property
    def place(self) -> str:
        """Its channel, with the network when there is one to name: ``#ancath on alpha``."""
        return _place(self.channel, self.network)


@dataclass(frozen=True, slots=True)
class WarriorStats:
    """A warrior's counts (``!stats``; :mod:`storage.history` says what each counts)."""

    name: str
    fights: int
    """Finished fights."""
    wins: int
    losses: int
    draws: int
    kills: int
    yields: int
    escapes: int
    prisoners_taken: int
    bp_fights: int
    """Tenths of BP from fights (awards and their reversals)."""
    bp_moderators: int
    """Tenths of BP moderators gave or took (``!mod bp``)."""
    bp: int
    """Tenths of BP in all."""
    status: Status = "free"
    """Free, a prisoner or dead, as its column holds it (a cache of the ledger)."""


@dataclass(frozen=True, slots=True)
class FightSummary:
    """One fight in brief (``!fight``, the fights on the leadership pages)."""

    id: int
    channel: str
    system: str
    kind: str
    names: tuple[str, ...]
    """The warriors by side."""
    accounts: tuple[str, ...]
    """Who played each side (identities: never shown as ``user@host``)."""
    active: bool
    started_at: str
    ended_at: str | None
    ending: str | None
    winner: int | None
    bp: tuple[int, ...]
    """Tenths of BP each side's warrior gained in it."""
    setup: dict[str, Any]
    """What its rules system's ``start`` needs (the sheets at the start)."""
    network: str | None = None
    """Its channel's network when the club's fights are on more than one network; None
    when they are all on one (nothing to tell apart)."""

    @property
    def place(self) -> str:
        """Its channel, with the network when there is one to name: ``#ancath on alpha``."""
        return _place(self.channel, self.network)


@dataclass(frozen=True, slots=True)
class LoggedCommand:
    """One row of a fight's command log as stored: a command, or an undo record
    (``{"type": "Undo", "keep": n, "reason": ...}``)."""

    seq: int
    data: dict[str, Any]
    actor: str
    """The account that sent it, or ``bot`` for a roll the bot made."""
    at: str


@dataclass(frozen=True, slots=True)
class UndoRecord:
    """A moderator's undo as a fight's command log keeps it (R8.1)."""

    fight: int
    seq: int
    moderator: str
    """The identity that sent ``!mod undo`` (never shown as ``user@host``)."""
    reason: str
    keep: int
    """How many of the fight's commands it kept; the ones after were taken back."""
    at: str


@dataclass(frozen=True, slots=True, order=True)
class LogPlace:
    """Where a moderator's action stands in their log, which runs by time; in a moment,
    an undo comes after the ledger rows (so it is said first, newest first), and
    rows and undos each by id."""

    at: str
    undo: bool
    id: int
    """The ledger row's id, or the undo's command row id."""


