"""Challenges in channels: ``!challenge``, ``!decline``, ``!withdraw`` and ``!accept``
(which takes up a challenge, or a foe's yield in a fight). A pending challenge is kept
in storage first, so a restart keeps it (``resume_challenges``); the fight an accepted
challenge opens is :mod:`bot.fights.play`'.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.channel_fights import Challenge, ChannelFight
from bot.commands.registry import Ctx, Example, Services, channel_only, command
from bot.fights.play import announce, play_verb, seated, table_of
from bot.fights.playing import Played, auto_rolls, plugin_of
from bot.odds.ahead import foresee
from bot.refusals import Refusal
from bot.systems.registry import PLUGINS, SYSTEMS
from bot.wording.common import a_fight
from storage.records import Fighter, Status, WarriorRecord
from storage.store import ChallengeRecord

__all__ = ["keep_challenge", "resume_challenges"]

log = logging.getLogger(__name__)

_STATUS_WORDS: dict[Status, str] = {"prisoner": "a prisoner", "dead": "dead", "free": "free"}


def _player(ctx: Ctx, warrior: str, identity: str) -> str:
    """Who may answer for a warrior, as the channel knows them (never a user@host)."""
    return ctx.services.identity.people.name(identity) or f"{warrior}'s player"


def _kind_words() -> set[str]:
    """The fight kinds a challenge may name: those of every system that has several."""
    return {k for system in SYSTEMS.rules.values() if len(system.kinds) > 1
            for k in system.kinds}


def _parse_challenge(args: list[str]) -> tuple[str, str | None, str | None]:
    words = list(args)
    kind = None
    if words and words[-1].lower() in _kind_words():
        kind = words.pop().lower()
    mine = None
    if len(words) >= 3 and words[-2].lower() == "as":
        mine = words.pop()
        words.pop()
    if len(words) != 1:
        raise Refusal("usage: !challenge <warrior> [as <your warrior>] [practice|duel|mortal]")
    return words[0], mine, kind


def _own_warrior(ctx: Ctx, name: str | None) -> WarriorRecord[Fighter]:
    """The sender's warrior by name, or their only one that is free to fight."""
    store = ctx.services.store
    if name is not None:
        record = store.warrior(name)
        if record.owner != ctx.who:
            raise Refusal(f"{record.sheet.name} is not yours")
        return record
    owned = store.warriors(ctx.who)
    ready = [r for r in owned if r.status == "free" and not r.in_fight]
    if not ready:
        busy = ", ".join(
            f"{r.sheet.name} is {'fighting' if r.in_fight else _STATUS_WORDS[r.status]}"
            for r in owned)
        raise Refusal(f"none of your warriors can fight ({busy})" if owned
                      else "you have no warrior yet; make one with !create")
    if len(ready) > 1:
        listed = ", ".join(r.sheet.name for r in ready)
        raise Refusal(f"say which of yours fights: add 'as <name>' ({listed})")
    return ready[0]


def _ready(record: WarriorRecord[Fighter]) -> None:
    """Refused unless the warrior is free and in no fight."""
    if record.status != "free":
        raise Refusal(f"{record.sheet.name} is {_STATUS_WORDS[record.status]} "
                      "and cannot fight")
    if record.in_fight:
        raise Refusal(f"{record.sheet.name} is already in a fight")


@command("challenge", "!challenge <warrior> [as <yours>] [practice|duel|mortal]",
         "Challenge a warrior in this channel; practice unless you say duel or mortal.",
         group="fight", examples=(Example(
             ("gob !create Gorbag goblin club spear", "olaf !create Olaf free-clans axe shield",
              "olaf !challenge Gorbag duel"), "Gorbag, Olaf challenges you"),))
@channel_only
def challenge(ctx: Ctx) -> None:
    table = table_of(ctx)
    if table.stuck is not None:   # a fight the records cannot give back holds the channel
        raise Refusal(table.stuck.line)
    if table.fight is not None or table.challenge is not None:
        raise Refusal("this channel already has a fight or a challenge; try another channel")
    target_name, mine, kind = _parse_challenge(ctx.args)
    target = ctx.services.store.warrior(target_name)
    if target.owner == ctx.who:
        raise Refusal("you cannot challenge your own warrior")
    mine_record = _own_warrior(ctx, mine)   # each warrior read once, then checked
    _ready(mine_record)
    _ready(target)
    me, system = str(mine_record.sheet.name), mine_record.system
    if system != target.system:
        raise Refusal(f"{me} fights by {PLUGINS[system].label} rules, {target.sheet.name} by "
                      f"{PLUGINS[target.system].label}: pick a foe of the same rules")
    if kind is not None and kind not in SYSTEMS.rules[system].kinds:
        raise Refusal(f"{PLUGINS[system].label} fights have no kinds; leave out '{kind}'")
    kind = kind or SYSTEMS.rules[system].kinds[0]
    # both warriors as the chain gives them, owners included, before the challenge is kept
    ctx.services.store.check_warriors([(me, ctx.who), (target.sheet.name, target.owner)])
    seconds = ctx.services.settings.rules_of(table).turn_seconds   # R7.4
    challenge = Challenge(me, ctx.who, target.sheet.name, target.owner, kind,
                          ctx.services.clock.now() + seconds)
    keep_challenge(ctx.services, table, challenge)
    ctx.say(f"{target.sheet.name}, {me} challenges you to {a_fight(kind)}: "
            f"{_player(ctx, target.sheet.name, target.owner)} may !accept or !decline.")


@command("decline", "!decline", "Decline the challenge made to your warrior.", group="fight")
@channel_only
def decline(ctx: Ctx) -> None:
    table = table_of(ctx)
    pending = table.challenge
    if pending is None or pending.target_account != ctx.who:
        raise Refusal("there is no challenge to you here")
    keep_challenge(ctx.services, table, None)
    ctx.say(f"{pending.target} declines {pending.challenger}'s challenge.")


@command("withdraw", "!withdraw", "Take back your challenge.", group="fight")
@channel_only
def withdraw(ctx: Ctx) -> None:
    table = table_of(ctx)
    pending = table.challenge
    if pending is None or pending.challenger_account != ctx.who:
        raise Refusal("you have no challenge here to withdraw")
    keep_challenge(ctx.services, table, None)
    ctx.say(f"{pending.challenger} withdraws the challenge.")


def keep_challenge(services: Services, table: ChannelFight, challenge: Challenge | None,
                   ) -> None:
    """Make ``challenge`` the channel's pending one (None: there is none), in storage
    first, so a restart keeps it."""
    if challenge is None:
        services.store.drop_challenge(table.channel)
    else:
        services.store.put_challenge(ChallengeRecord(
            table.channel, challenge.challenger, challenge.challenger_account,
            challenge.target, challenge.target_account, challenge.kind))
    table.challenge = challenge


def resume_challenges(services: Services, serves: Callable[[str], bool]) -> None:
    """Take up the pending challenges of the channels ``serves`` says are this
    referee's from storage;
    each time limit starts again now. One of a kind no fight has (a damaged row) is
    logged, and refused when its target answers it (:func:`_accept_challenge`)."""
    kinds = {kind for system in SYSTEMS.rules.values() for kind in system.kinds}
    for kept in services.store.challenges(serves):
        if kept.kind not in kinds:
            log.warning("the challenge waiting in %s (%s to %s) is damaged: its kind %r is "
                        "none the bot knows; it is dropped when %s answers it", kept.channel,
                        kept.challenger, kept.target, kept.kind, kept.target)
        table = services.tables.table(kept.channel)
        table.challenge = Challenge(
            kept.challenger, kept.challenger_account, kept.target, kept.target_account,
            kept.kind, services.clock.now() + services.settings.rules_of(table).turn_seconds)


def _accept_challenge(ctx: Ctx, table: ChannelFight) -> None:
    if table.stuck is not None:
        raise Refusal(table.stuck.line)
    pending = table.challenge
    if pending is None or pending.target_account != ctx.who:
        raise Refusal("there is no challenge to you here")
    if len(ctx.args) == 2 and ctx.args[0].lower() == "as":
        record = _own_warrior(ctx, ctx.args[1])
    elif ctx.args:
        raise Refusal("usage: !accept [as <your warrior>]")
    else:
        record = ctx.services.store.warrior(pending.target)
    services, target = ctx.services, str(record.sheet.name)
    system = SYSTEMS.rules[record.system]
    if pending.kind not in system.kinds:   # a damaged row: dropped (kept), and said
        keep_challenge(services, table, None)
        log.warning("the challenge in %s (%s to %s) of kind %r, which %s fights do not have, "
                    "is dropped", table.channel, pending.challenger, pending.target,
                    pending.kind, system.name)
        ctx.say(f"{pending.challenger}'s challenge to {pending.target} is damaged in the "
                f"records (its kind {pending.kind!r} is no kind of {PLUGINS[system.name].label} "
                f"fight) and is dropped; {pending.challenger} may challenge again.")
        return
    rules = services.settings.rules_of(table)
    fight, events = services.store.open_fight(  # with its initiative rolls, one transaction
        table.channel, system, pending.kind,
        [(pending.challenger, pending.challenger_account), (target, ctx.who)], ctx.who,
        rolls=lambda opened: auto_rolls(opened, opened.state, rules, services.dice),
        owned=True,   # each side's warrior its player's by the chain, not by the challenge
    )
    table.challenge, table.last_fight_id = None, fight.id
    plugin = plugin_of(fight)
    announce(ctx, table, plugin, Played(fight, events), rules, opening=True)
    if plugin.advised:
        foresee(services, fight)


@command("accept", "!accept [as <yours>] | !accept [prisoner [ransom <terms>]|release]",
         "Accept a challenge, or a foe's yield (mortal fights: prisoner or release).",
         group="fight")
@channel_only
def accept(ctx: Ctx) -> None:
    table = table_of(ctx)
    if table.fight is None:
        _accept_challenge(ctx, table)
        return
    play_verb(ctx, seated(ctx, table))   # a foe's yield: the fight's own system reads it
