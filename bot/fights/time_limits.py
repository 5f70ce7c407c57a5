"""Decision time limits (R7.4): a warning at half the limit, an announcement when it
runs out, then the foe's ``!claim``; and challenges that lapse.

``tick`` is called about once a second by the transport, through ``Referee.tick``.
"""

from __future__ import annotations

import math
from typing import Any

from bot.chat.messages import Outgoing, Priority
from bot.chat.registry import Ctx, Refusal, command
from bot.fights.challenges import keep_challenge
from bot.fights.play import (
    announce,
    cast,
    fight_step,
    progress,
    side_of,
    table_of,
    ui_of,
)
from storage.errors import RecordsBusy

__all__ = ["claim", "tick"]


def _time_left(seconds: float) -> str:
    """Rounded up, so time that remains is never shown as none."""
    if seconds < 60:
        return f"{math.ceil(seconds)} s"
    return f"{math.ceil(seconds / 60)} min"


def tick(referee: Any) -> list[Outgoing]:
    """Warn at half the time limit, announce when it is up, expire stale challenges."""
    now = referee.clock.now()
    out: list[Outgoing] = []
    for table in referee.tables.values():
        half = referee.turn_seconds(table.channel) / 2
        pending = table.challenge
        if pending is not None and now >= pending.expires:
            try:
                keep_challenge(referee, table, None)
            except RecordsBusy:
                continue   # the next tick tries again
            out.append(Outgoing(table.channel, f"{pending.challenger}'s challenge to "
                                f"{pending.target} has lapsed.", Priority.CHATTER))
        fight = table.fight
        if fight is None or table.deadline is None or fight.state.awaiting is None:
            continue
        labels = cast(referee, fight).labels
        waiting, foe = labels[fight.state.awaiting.side], labels[1 - fight.state.awaiting.side]
        if not table.expired and now >= table.deadline:
            table.expired = table.warned = True
            out.append(Outgoing(table.channel, f"Time is up for {waiting}: {foe} may !claim "
                                "the fight.", Priority.FIGHT))
        elif not table.warned and now >= table.deadline - half:
            table.warned = True
            left = _time_left(table.deadline - now)
            out.append(Outgoing(table.channel, f"{waiting} has {left} left to act; "
                                f"then {foe} may !claim the fight.", Priority.FIGHT))
    return out


@command("claim", "!claim", "Win by forfeit when the foe has let the time limit pass.",
         group="fight")
def claim(ctx: Ctx) -> None:
    """The forfeit of the side that let its time run out (R7.4)."""
    table = table_of(ctx)
    fight = table.fighting()
    side = side_of(ctx, fight)
    awaiting = fight.state.awaiting
    if awaiting is None or awaiting.side == side:
        raise Refusal("the fight is waiting for you, not your foe")
    if table.deadline is None or ctx.referee.clock.now() < table.deadline:
        left = (table.deadline or 0) - ctx.referee.clock.now()
        raise Refusal(f"your foe still has {_time_left(left)} to act")
    before = progress(fight)
    forfeit = ui_of(fight).forfeit(awaiting.side)
    announce(ctx, table, fight_step(ctx, table, forfeit, ctx.who), before)
