"""A moderator's rulings on a fight (R8.1): ``!mod undo`` takes back one decision,
``!mod end`` ends the fight. Sub-commands of ``!mod`` (:mod:`bot.chat.mod`)."""

from __future__ import annotations

from bot.channel_fights import ChannelFight
from bot.commands.registry import Ctx, at_least, channel_only, moderator_only, sub
from bot.fights.play import announce, cast, names_of, restart_timer, table_of
from bot.fights.playing import play, plugin_of
from bot.refusals import Refusal
from bot.wording.common import join, ruled
from bot.wording.fit import fitted

__all__ = ["moderator_end", "moderator_undo"]


@sub("undo", "!mod undo <reason>",
     "take back one player's last decision and its rolls (R8.1)", fits=at_least(1))
@moderator_only
@channel_only
def moderator_undo(ctx: Ctx, args: list[str]) -> None:
    """Take back one player's last decision and the rolls that came from it (R8.1)."""
    reason = " ".join(args)
    table = table_of(ctx)
    if table.stuck is not None:
        raise Refusal(f"fight {table.stuck.fight_id} cannot be read from the records, so "
                      "nothing of it can be undone; end it with !mod end draw <reason>")
    if table.last_fight_id is None:
        raise Refusal("no fight here to undo")
    store = ctx.services.store
    before = table.fight or store.fight(table.last_fight_id)
    fight = store.undo(table.last_fight_id, ctx.moderator, reason)
    table.fight = fight
    plugin, rules = plugin_of(fight), ctx.services.settings.rules_of(table)
    ctx.say(plugin.undo_line(before.commands, len(fight.commands), names_of(fight), reason)
            + " " + plugin.prompt(fight.state, not rules.rolls_auto, cast(ctx.services, fight)))
    restart_timer(ctx.services, table, rules)


@sub("end", "!mod end <warrior>|draw <reason>",
     "end the fight with a winner or as a draw", fits=at_least(2))
@moderator_only
@channel_only
def moderator_end(ctx: Ctx, args: list[str]) -> None:
    """End the fight with a winner, or as a draw (R8.1); a fight the records cannot give
    back (:class:`bot.channel_fights.Stuck`) is ended unread, no BP moving."""
    winner_name, reason = args[0], " ".join(args[1:])
    table = table_of(ctx)
    if table.stuck is not None:
        _end_unread(ctx, table, winner_name, reason)
        return
    fight = table.fighting()
    winner = None
    if winner_name.lower() != "draw":
        names = [n.casefold() for n in names_of(fight)]
        if winner_name.casefold() not in names:
            raise Refusal(f"the winner must be {' or '.join(names_of(fight))}, or draw")
        winner = names.index(winner_name.casefold())
    plugin, rules, services = plugin_of(fight), ctx.services.settings.rules_of(table), ctx.services
    who, nick = ctx.moderator, ctx.msg.sender.nick
    played = play(fight, plugin.end(winner, reason), rules, services.dice, services.store,
                  actor=who, moderator=who, reason=reason)
    announce(ctx, table, plugin, played, rules, lambda most: ruled(nick, reason, most))


def _end_unread(ctx: Ctx, table: ChannelFight, winner: str, reason: str) -> None:
    """``!mod end`` of a fight that could not be taken up: closed in the records as the
    moderator rules (a side's warrior wins, or a draw), with no BP, and the channel free."""
    assert table.stuck is not None
    stuck = table.stuck
    named = None if winner.lower() == "draw" else winner
    names, anchor = ctx.services.store.end_unread(stuck.fight_id, named, ctx.moderator, reason)
    table.stuck, table.last_fight_id = None, None
    won = next((n for n in names if named is not None and n.casefold() == named.casefold()),
               None)
    said = f"{won} wins by a moderator's ruling" if won else "a draw by a moderator's ruling"
    nick, fight = ctx.msg.sender.nick, f"Fight {stuck.fight_id} ({' vs '.join(names)})"

    def say(most: int | None) -> str:
        return (f"{ruled(nick, reason, most)} {fight} is ended unread: {said}; no BP moved, "
                "since its records could not be read. The channel is free.")
    tail = str(anchor) if anchor is not None else ""
    ctx.say(join(say(None), tail), fit=lambda room: fitted(say, tail, room))
