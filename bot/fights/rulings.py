"""A moderator's rulings on a fight (R8.1): ``!mod undo`` takes back one decision,
``!mod end`` ends the fight. Sub-commands of ``!mod`` (:mod:`bot.chat.mod`)."""

from __future__ import annotations

from bot.chat.registry import Ctx, Refusal, at_least, channel_only, moderator_only, sub
from bot.fights.play import (
    announce,
    cast,
    fight_step,
    is_manual,
    names_of,
    restart_timer,
    table_of,
    ui_of,
)

__all__ = ["moderator_end", "moderator_undo"]


@sub("undo", "!mod undo <reason>",
     "take back one player's last decision and its rolls (R8.1)", fits=at_least(1))
@moderator_only
@channel_only
def moderator_undo(ctx: Ctx, args: list[str]) -> None:
    """Take back one player's last decision and the rolls that came from it (R8.1)."""
    reason = " ".join(args)
    table = table_of(ctx)
    if table.last_fight_id is None:
        raise Refusal("no fight here to undo")
    store = ctx.referee.store
    before = table.fight or store.fight(table.last_fight_id)
    fight = store.undo(table.last_fight_id, ctx.moderator, reason)
    table.fight = fight
    ui = ui_of(fight)
    ctx.say(ui.undo_line(before.commands, len(fight.commands), names_of(fight), reason) + " "
            + ui.prompt(fight.state, is_manual(ctx.referee, table), cast(ctx.referee, fight)))
    restart_timer(ctx.referee, table)


@sub("end", "!mod end <warrior>|draw <reason>",
     "end the fight with a winner or as a draw", fits=at_least(2))
@moderator_only
@channel_only
def moderator_end(ctx: Ctx, args: list[str]) -> None:
    """End the fight with a winner, or as a draw (R8.1)."""
    winner_name, reason = args[0], " ".join(args[1:])
    table = table_of(ctx)
    fight = table.fighting()
    winner = None
    if winner_name.lower() != "draw":
        names = [n.casefold() for n in names_of(fight)]
        if winner_name.casefold() not in names:
            raise Refusal(f"the winner must be {' or '.join(names_of(fight))}, or draw")
        winner = names.index(winner_name.casefold())
    end = ui_of(fight).end(winner, reason)
    who = ctx.moderator
    announce(ctx, table, fight_step(ctx, table, end, who, moderator=who, reason=reason))
