"""Taking up at the start what the records hold open for the channels a referee serves:
the fights (each replayed; its due rolls made, its time to decide started again, its
odds worked out ahead), the pending challenges, and the fights that cannot be taken up,
which block their channel (:class:`bot.channel_fights.Stuck`); and the one line a channel
gets when the bot (re)joins it."""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.channel_fights import Stuck
from bot.commands.registry import Services
from bot.fights import challenges, play
from bot.fights.playing import plugin_of
from bot.messages import Outgoing, Priority
from bot.odds.ahead import foresee
from storage.store import StorageError

__all__ = ["resume", "resume_line"]

log = logging.getLogger("ancath.referee")


def resume(services: Services, serves: Callable[[str], bool]) -> list[str]:
    """Take up the unfinished fights of the channels ``serves`` says are this referee's
    from storage, and the club's settings and moderators; returns what failed to replay."""
    services.settings.refresh()
    tables, store = services.tables, services.store
    for channel, fight_id in store.latest_fights().items():
        if serves(channel):
            tables.table(channel).last_fight_id = fight_id
    fights, problems = store.open_fights(serves)
    _stuck(services, serves, {fight.id for fight in fights}, problems)
    for fight in fights:
        table = tables.table(fight.channel)
        table.fight, table.last_fight_id = fight, fight.id
        rules = services.settings.rules_of(table)
        try:
            play.resume_rolls(services, table, rules)
        except StorageError as error:   # the fight still waits; a command retries
            log.error("fight %d in %s: its due rolls were not made: %s",
                      fight.id, fight.channel, error)
        play.restart_timer(services, table, rules)   # the time to decide starts again (R7.4)
        if plugin_of(fight).advised:
            foresee(services, fight)   # its odds worked out ahead again, from here
    challenges.resume_challenges(services, serves)
    for problem in problems:
        log.error("not resumed: %s", problem)
    log.info("resumed %d open fight%s", len(fights), "" if len(fights) == 1 else "s")
    return problems


def _stuck(services: Services, serves: Callable[[str], bool], resumed: set[int],
           problems: list[str]) -> None:
    """Every open fight of the channels served that was not resumed (its records
    cannot be read, or its replay fails or disagrees) blocks its channel until a
    moderator ends it (:class:`Stuck`), and the log says so."""
    for fight_id, channel in services.store.active_fights(serves):
        if fight_id in resumed:
            continue
        said = next((p.split(": ", 1)[1] for p in problems
                     if p.startswith(f"fight {fight_id} in ")), "it cannot be replayed")
        table = services.tables.table(channel)
        table.stuck, table.last_fight_id = Stuck(fight_id, said), fight_id
        log.error("fight %d in %s is not resumed (%s): the channel stays blocked until a "
                  "moderator ends it there (!mod end draw <reason>)", fight_id, channel, said)


def resume_line(services: Services, channel: str) -> Outgoing | None:
    """The one line a channel gets when the bot (re)joins it with a fight open (or
    with one that could not be taken up: :class:`Stuck`)."""
    table = services.tables.get(channel)
    if table is not None and table.stuck is not None:
        return Outgoing(table.channel, table.stuck.line, Priority.FIGHT)
    if table is None or table.fight is None:
        return None
    return play.resumed(services, table)
