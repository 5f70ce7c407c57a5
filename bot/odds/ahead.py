"""Work ahead on the odds: a fight's chains worked out from its start, in pieces behind
the ``!odds`` requests (:mod:`bot.chat.odds`), on the odds requests's workers
(:mod:`bot.odds.pending`), so a request in the fight waits less."""

from __future__ import annotations

from functools import partial
from typing import Protocol

from bot.channel_fights import ChannelFights
from bot.odds import pending
from bot.odds.advisor import prepare, shard
from bot.odds.pending import HasOdds, Job
from rules.ancath.state import FightState, Range
from storage.store import OpenFight

__all__ = ["AHEAD", "Foreseeing", "foresee"]

AHEAD = 0.1
"""Seconds of one piece of the work done ahead: a request waits for one piece at most
(and the solve that may end it)."""


class Foreseeing(HasOdds, Protocol):
    """What :func:`foresee` uses: the odds requests, and the channels' tables, which say
    whether the fight is still on (a command's services)."""

    @property
    def tables(self) -> ChannelFights: ...


def foresee(services: Foreseeing, fight: OpenFight) -> None:
    """Work out an An Cath fight's chances ahead, from its start, in pieces behind the
    requests (where they work ahead: a bot on IRC). Asked only of a fight whose
    system the advisor knows (``Plugin.advised``)."""
    state = fight.state
    if not isinstance(state, FightState):
        return

    def alive() -> bool:
        table = services.tables.get(fight.channel)
        return table is not None and table.fight is not None and table.fight.id == fight.id

    pending.ahead(services, [Job(partial(prepare, state, AHEAD, where), shard(state, where))
                    for where in Range], alive)
