"""A channel's table: the pending challenge or the open fight there, its time to decide,
or the fight the records could not give back (:class:`Stuck`); and :class:`Tables`,
every channel's, compared by the network's casemapping."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.fights.turn_timer import TurnTimer
from bot.refusals import Refusal
from bot.staged import Staged
from storage.store import OpenFight

__all__ = ["NO_FIGHT", "Challenge", "Stuck", "Table", "Tables"]

NO_FIGHT = "there is no fight in this channel; start one with !challenge"


@dataclass
class Challenge:
    challenger: str
    """The challenging warrior's name."""
    challenger_account: str
    target: str
    target_account: str
    kind: str
    expires: float


@dataclass(frozen=True)
class Stuck:
    """An open fight of the channel that could not be taken up from the records at the
    start (its setup unreadable, its replay failing or disagreeing with its log): it
    still holds the channel and its warriors in storage, so it blocks the channel until
    a moderator ends it (``!mod end``)."""

    fight_id: int
    why: str

    @property
    def line(self) -> str:
        return (f"Fight {self.fight_id} here cannot be taken up from the records ({self.why}); "
                "no fight or challenge here until a moderator ends it: !mod end draw "
                "<reason> (or !mod end <warrior> <reason>)")


@dataclass
class Table:
    channel: str
    challenge: Challenge | None = None
    fight: OpenFight | None = None
    last_fight_id: int | None = None
    """The newest fight here, open or just ended: what ``!mod undo`` works on."""
    timer: TurnTimer | None = None
    """The open fight's time to decide (R7.4)."""
    unsaid: list[Any] = field(default_factory=list)
    """Events made while no one could hear (the rolls a resumed fight was due): the
    resume line says them."""
    stuck: Stuck | None = None
    """The channel's open fight that could not be taken up, blocking it (:class:`Stuck`)."""

    def fighting(self) -> OpenFight:
        if self.stuck is not None:
            raise Refusal(self.stuck.line)
        if self.fight is None:
            raise Refusal(NO_FIGHT)
        return self.fight


class Tables(Staged[Table]):
    """The table of each channel, channels compared by the network's casemapping; a
    writing command changes its own copies (:mod:`bot.chat.units`)."""

    def __init__(self) -> None:
        super().__init__()
        self.not_in: dict[str, str] = {}
        """The channels the bot serves but is not in, with why (``too many channels``,
        ``kicked by op``); the transport sets it, and ``!status`` tells a moderator."""

    def table(self, channel: str) -> Table:
        """``channel``'s table, a new one when it has none yet."""
        try:
            return self[channel]   # one look (``in`` then ``[]`` looked twice)
        except KeyError:
            self[channel] = Table(channel)
            return self[channel]
