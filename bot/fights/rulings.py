"""A moderator's rulings on a fight (R8.1): undo one decision, or end the fight.

The ``!mod`` command (:mod:`bot.chat.warriors`) checks who may rule (R8.2) and calls these.
"""

from __future__ import annotations

from bot.chat.registry import Ctx, Refusal
from bot.fights.play import (
    announce,
    cast,
    fight_step,
    is_manual,
    names_of,
    restart_clock,
    table_of,
    ui_of,
)

__all__ = ["moderator_end", "moderator_undo"]


def moderator_undo(ctx: Ctx, reason: str) -> None:
    """Take back one player's last decision and the rolls that came from it (R8.1)."""
    table = table_of(ctx)
    if table.last_fight_id is None:
        raise Refusal("no fight here to undo")
    store = ctx.referee.store
    before = table.fight or store.fight(table.last_fight_id)
    fight = store.undo(table.last_fight_id, ctx.who, reason)
    table.fight = fight
    ui, rolls = ui_of(fight), len(before.commands) - len(fight.commands) - 1
    what = ui.undone(before.commands[len(fight.commands)], names_of(fight))
    tail = {0: "", 1: " and its roll"}.get(rolls, f" and its {rolls} rolls")
    ctx.say(f"Undone: {what}{tail} ({reason}). "
            + ui.prompt(fight.state, is_manual(ctx.referee, table), cast(ctx.referee, fight)))
    restart_clock(ctx, table)


def moderator_end(ctx: Ctx, winner_name: str, reason: str) -> None:
    """End the fight with a winner, or as a draw (R8.1)."""
    table = table_of(ctx)
    fight = table.fighting()
    winner = None
    if winner_name.lower() != "draw":
        names = [n.casefold() for n in names_of(fight)]
        if winner_name.casefold() not in names:
            raise Refusal(f"the winner must be {' or '.join(names_of(fight))}, or draw")
        winner = names.index(winner_name.casefold())
    end = ui_of(fight).end(winner, reason)
    announce(ctx, table, fight_step(ctx, table, end, ctx.who, moderator=ctx.who, reason=reason),
             None)
