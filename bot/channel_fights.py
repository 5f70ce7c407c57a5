"""What a channel holds (:class:`ChannelFight`): the pending challenge or the open fight
there, its time to decide, or the fight the records could not give back
(:class:`Stuck`); and :class:`ChannelFights`, every channel's, compared by the network's
casemapping."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.refusals import Refusal
from bot.turn_timer import TurnTimer
from bot.unit_copies import UnitCopies
from rules.system import RulesState
from storage.records import Fighter
from storage.store import OpenFight

__all__ = [
    "NO_FIGHT",
    "Challenge",
    "ChannelFight",
    "ChannelFights",
    "SomeFight",
    "Stuck",
]

SomeFight = OpenFight[RulesState, object, object, Fighter]
"""A fight of whichever rules system, as a channel holds it: what every system's fight
shows (its state's ``RulesState``, its fighters' names); the system's own types come
back through :func:`bot.fights.playing.plugin_of` and the play service."""

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
class ChannelFight:
    """A channel's pending challenge or open fight, with what goes with it."""

    channel: str
    challenge: Challenge | None = None
    fight: SomeFight | None = None
    last_fight_id: int | None = None
    """The newest fight here, open or just ended: what ``!mod undo`` works on."""
    timer: TurnTimer | None = None
    """The open fight's time to decide (R7.4)."""
    unannounced_events: list[object] = field(default_factory=list)
    """Events made while no one could hear (the rolls a resumed fight was due): the
    resume line says them."""
    stuck: Stuck | None = None
    """The channel's open fight that could not be taken up, blocking it (:class:`Stuck`)."""

    def fighting(self) -> SomeFight:
        if self.stuck is not None:
            raise Refusal(self.stuck.line)
        if self.fight is None:
            raise Refusal(NO_FIGHT)
        return self.fight


class ChannelFights(UnitCopies[ChannelFight]):
    """Each channel's :class:`ChannelFight`, channels compared by the network's
    casemapping; a writing command changes its own copies (:mod:`bot.chat.units`)."""

    def __init__(self) -> None:
        super().__init__()
        self.not_in: dict[str, str] = {}
        """The channels the bot serves but is not in, with why (``too many channels``,
        ``kicked by op``); the transport sets it, and ``!status`` tells a moderator."""

    def table(self, channel: str) -> ChannelFight:
        """``channel``'s, a new one when it has none yet."""
        try:
            return self[channel]   # one look (``in`` then ``[]`` looked twice)
        except KeyError:
            self[channel] = ChannelFight(channel)
            return self[channel]

