"""Decision time limits (R7.4): a warning at half the limit, an announcement when it
runs out, then the foe's ``!claim``; and challenges that lapse.

``tick`` is called about once a second by the transport, through ``Referee.tick``.
"""

from __future__ import annotations

import math

from bot.commands.registry import Ctx, Services, command
from bot.fights.challenges import keep_challenge
from bot.fights.play import announce, cast, seated
from bot.fights.playing import play, plugin_of
from bot.messages import Outgoing, Priority
from bot.refusals import Refusal
from bot.turn_timer import Alarm
from storage.errors import DatabaseUnreachable, RecordsBusy

__all__ = ["claim", "tick"]


def _time_left(seconds: float) -> str:
    """Rounded up, so time that remains is never shown as none."""
    if seconds < 60:
        return f"{math.ceil(seconds)} s"
    return f"{math.ceil(seconds / 60)} min"


def tick(services: Services) -> list[Outgoing]:
    """Warn at half the time limit, announce when it is up, expire stale challenges."""
    now = services.clock.now()
    out: list[Outgoing] = []
    for table in services.tables.values():
        pending = table.challenge
        if pending is not None and now >= pending.expires:
            try:
                keep_challenge(services, table, None)
            except (RecordsBusy, DatabaseUnreachable):
                continue   # the next tick tries again
            out.append(Outgoing(table.channel, f"{pending.challenger}'s challenge to "
                                f"{pending.target} has lapsed.", Priority.CHATTER))
        fight = table.fight
        if fight is None or table.timer is None or fight.state.awaiting is None:
            continue
        table.timer, alarm = table.timer.alarm(now)
        labels = cast(services, fight).labels
        waiting, foe = labels[fight.state.awaiting.side], labels[1 - fight.state.awaiting.side]
        if alarm is Alarm.UP:
            out.append(Outgoing(table.channel, f"Time is up for {waiting}: {foe} may !claim "
                                "the fight.", Priority.FIGHT))
        elif alarm is Alarm.HALF:
            left = _time_left(table.timer.remaining(now))
            out.append(Outgoing(table.channel, f"{waiting} has {left} left to act; "
                                f"then {foe} may !claim the fight.", Priority.FIGHT))
    return out


@command("claim", "!claim", "Win by forfeit when the foe has let the time limit pass.",
         group="fight")
def claim(ctx: Ctx) -> None:
    """The forfeit of the side that let its time run out (R7.4), by a fighter of the
    channel's open fight (:func:`seated`)."""
    seat = seated(ctx)
    table, fight = seat.table, seat.fight
    awaiting = fight.state.awaiting
    if awaiting is None or awaiting.side == seat.side:
        raise Refusal("the fight is waiting for you, not your foe")
    now = ctx.services.clock.now()
    if table.timer is None or not table.timer.due(now):
        left = table.timer.remaining(now) if table.timer else 0.0
        raise Refusal(f"your foe still has {_time_left(left)} to act")
    plugin, rules, services = plugin_of(fight), ctx.services.settings.rules_of(table), ctx.services
    played = play(fight, plugin.forfeit(awaiting.side), rules, services.dice, services.store,
                  actor=ctx.who)
    announce(ctx, table, plugin, played, rules)
