"""A coin duel: a fourth rules system that lives only in the tests, to show that a system
plugs in by one registration (``bot.systems.registry.SYSTEMS``).

Each side calls the coin with ``!flip``, challenger first; then the challenger rolls a
d2: 1 and the challenger wins, 2 and the defender does. ``!yield``, a forfeit and a
moderator's end work as in every system. ``!create <name> toy`` makes a duellist.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum, StrEnum
from typing import Any

from bot.commands.registry import Refusal
from bot.systems.fighters import Fighters, Settings
from bot.systems.plugin import Plugin, fixed, verbs
from bot.wording.common import Award, Cast, join, options, roll_how, undone
from rules.codec import Codec
from rules.common import Forfeit, ModeratorEnd, Roll, Yield, check_command
from rules.effects import no_effects
from rules.errors import IllegalCommand, InvalidRoll, NotYourTurn
from rules.system import RuleSystem
from storage.records import WarriorRecord

__all__ = ["TOY", "TOY_RULES", "Coin", "Flip"]


@dataclass(frozen=True, slots=True)
class Coin:
    """A coin duellist: a name, nothing more."""

    name: str


@dataclass(frozen=True, slots=True)
class Flip:
    """Call the coin."""

    side: int


Command = Flip | Yield | Roll | Forfeit | ModeratorEnd


class Need(Enum):
    FLIP = "flip"
    ROLL = "roll"


class Ending(StrEnum):
    COIN = "coin"
    YIELD = "yield"
    FORFEIT = "forfeit"
    MODERATOR = "moderator"


@dataclass(frozen=True, slots=True)
class Awaiting:
    side: int
    need: Need

    @property
    def is_roll(self) -> bool:
        return self.need is Need.ROLL

    @property
    def die(self) -> int:
        return 2


@dataclass(frozen=True, slots=True)
class Outcome:
    ending: Ending
    winner: int | None


@dataclass(frozen=True, slots=True)
class CoinState:
    fighters: tuple[Coin, Coin]
    awaiting: Awaiting | None
    progress: int = 0
    outcome: Outcome | None = None


@dataclass(frozen=True, slots=True)
class Called:
    side: int


@dataclass(frozen=True, slots=True)
class Landed:
    roll: int


@dataclass(frozen=True, slots=True)
class Ended:
    outcome: Outcome


def start(_kind: str, fighters: Sequence[Coin]) -> tuple[CoinState, tuple[Any, ...]]:
    first, second = fighters
    return CoinState((first, second), Awaiting(0, Need.FLIP)), ()


def apply(state: CoinState, command: Command) -> tuple[CoinState, tuple[Any, ...]]:
    check_command(state, command)
    awaiting = state.awaiting
    assert awaiting is not None
    match command:
        case ModeratorEnd(winner=winner):
            return _end(state, Outcome(Ending.MODERATOR, winner))
        case Forfeit(side=side) if side == awaiting.side:
            return _end(state, Outcome(Ending.FORFEIT, 1 - side))
        case Yield(side=side):
            return _end(state, Outcome(Ending.YIELD, 1 - side))
    if command.side != awaiting.side:
        raise NotYourTurn(f"the coin waits for {state.fighters[awaiting.side].name}")
    match command:
        case Flip(side=side) if awaiting.need is Need.FLIP:
            after = Awaiting(1, Need.FLIP) if side == 0 else Awaiting(0, Need.ROLL)
            return replace(state, awaiting=after, progress=state.progress + 1), (Called(side),)
        case Roll(value=value) if awaiting.need is Need.ROLL:
            if value not in (1, 2):
                raise InvalidRoll("a d2 rolls 1 or 2")
            state, events = _end(state, Outcome(Ending.COIN, value - 1))
            return state, (Landed(value), *events)
    raise IllegalCommand(f"not now: the coin waits for a {awaiting.need.value}")


def _end(state: CoinState, outcome: Outcome) -> tuple[CoinState, tuple[Any, ...]]:
    return replace(state, awaiting=None, outcome=outcome), (Ended(outcome),)


def undo_point(commands: Sequence[Any]) -> int:
    """Back to before the last decision (a roll goes with it)."""
    for index in range(len(commands) - 1, -1, -1):
        if not isinstance(commands[index], Roll):
            return index
    raise IllegalCommand("nothing to undo")


TOY_RULES = RuleSystem(
    name="toy", kinds=("toy",),
    codec=Codec([Coin, Flip, Yield, Roll, Forfeit, ModeratorEnd, Called, Landed, Ended,
                 Outcome]),
    start=start, apply=apply, undo_point=undo_point, ledger_effects=no_effects,
    bp_applied=lambda _bp, _tenths: 0,
)


def describe(events: Sequence[Any], cast: Cast, awarded: Sequence[Award] | None = None) -> str:
    names, said = cast.names, []
    for event in events:
        match event:
            case Called(side=side):
                said.append(f"{names[side]} calls the coin.")
            case Landed(roll=roll):
                said.append(f"The coin lands {'heads' if roll == 1 else 'tails'}.")
            case Ended(outcome=Outcome(winner=None)):
                said.append("The fight is a draw.")
            case Ended(outcome=Outcome(winner=winner, ending=ending)):
                assert winner is not None
                said.append(f"{names[winner]} wins by {ending.value}.")
    return " ".join(said)


def prompt(state: CoinState, manual: bool, cast: Cast, word: Any) -> str:
    awaiting = state.awaiting
    if awaiting is None:
        return ""
    who = cast.labels[awaiting.side]
    if awaiting.is_roll:
        return f"{who}, roll the coin: {roll_how(2)}"
    return f"{who}, call: {options([word(Flip(awaiting.side)), word(Yield(awaiting.side))])}"


def waiting(state: CoinState) -> str:
    awaiting = state.awaiting
    if awaiting is None or not awaiting.is_roll:
        return ""
    return f"{state.fighters[awaiting.side].name}'s coin roll"


def status(state: CoinState, manual: bool, cast: Cast, word: Any) -> str:
    glance = f"Call {state.progress}."
    roll = waiting(state)
    return f"{glance} Waiting for {roll}." if roll else join(glance, prompt(state, manual,
                                                                             cast, word))


def create(name: str, words: Sequence[str], _settings: Settings) -> Coin:
    """``!create <name> toy``: a coin duellist needs only a name."""
    if words:
        raise Refusal("usage: !create <name> toy")
    return Coin(name)


def sheet_line(record: WarriorRecord[Coin], owner: str) -> str:
    return f"{record.sheet.name} (Coin duel, {owner}): {record.status}"


TOY: Plugin[CoinState, Command] = Plugin(
    system=TOY_RULES, label="Coin duel",
    verbs=verbs(fixed("flip", "Call the coin; a d2 decides when both have", Flip),
                fixed("yield", "Give up the fight", Yield)),
    roll=Roll, forfeit=Forfeit, end=ModeratorEnd, describe=describe, asks=prompt,
    glance=status, waiting=waiting, undone=undone,
    fighters=Fighters("toy", "", create, sheet_line),
)
"""The plugin whose one registration plugs the coin duel into the bot."""
