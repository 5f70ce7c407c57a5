"""``!mod``: the moderators' command (R8.1, R8.2), a group of sub-commands gathered from
the modules that hold their work, in this order: logging in, rulings on a fight, on
warriors and a channel's rolls, and the club's running."""

from __future__ import annotations

from bot.chat import club, moderators, warriors
from bot.chat.registry import Ctx, Group, command, moderator_only, subs_of
from bot.fights import rulings

__all__ = ["MOD"]

MOD = Group("mod", (*subs_of(moderators), *subs_of(rulings), *subs_of(warriors),
                    *subs_of(club)), preconditions=(moderator_only,))
"""A missing or unknown sub-command is refused as a non-moderator's ``!mod`` is."""


@command("mod", "!mod <ruling> ...", "Moderators only; every change is kept with your "
         f"reason. Rulings: {MOD.names}; !help mod <ruling> for one.",
         group="moderators", subs=MOD.help)
def mod(ctx: Ctx) -> None:
    MOD.run(ctx)
