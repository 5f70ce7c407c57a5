"""An Cath's commands outside a fight: ``!buy`` (spending BP, R2.5) and the moderators'
rulings on its warriors and its club setting (``!mod bp``, ``skill``, ``armour``,
``fairy``; R8.1), declared by its plugin (:mod:`bot.systems.ancath.plugin`) for
:mod:`bot.app` to wire."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import cast

from bot.commands.registry import (
    Ctx,
    Refusal,
    Sub,
    at_least,
    command,
    moderator_only,
    one_of,
    sub,
)
from bot.systems.ancath import wording
from bot.systems.ancath.fighters import parse_skill
from rules.ancath import stored
from rules.ancath.sheet import Sheet
from rules.ancath.tables import Armour
from storage.records import WarriorRecord

__all__ = ["FAIRY", "buy"]


@command("buy", "!buy <warrior> <skill>",
         "Spend BP: +10 below 50, +5 from 50 to the maximum, 3 BP for a new skill.",
         group="warriors")
def buy(ctx: Ctx) -> None:
    if len(ctx.args) != 2:
        raise Refusal("usage: !buy <warrior> <skill>")
    store = ctx.services.store
    if store.warrior(ctx.args[0]).owner != ctx.who:
        raise Refusal(f"{ctx.args[0]} is not yours")
    record, _ = store.change_sheet(ctx.args[0], stored.buy(parse_skill(ctx.args[1]), ctx.who),
                                   between="buy skills after it")
    owner = ctx.services.identity.people.name(record.owner) or "unregistered"
    ctx.reply("bought: " + wording.sheet_line(cast("WarriorRecord[Sheet]", record), owner))


def _armour(word: str) -> Armour:
    try:
        return Armour(word.lower())
    except ValueError:
        names = ", ".join(a.value for a in Armour)
        raise Refusal(f"no armour {word}; armours: {names}") from None


def _tenths(word: str) -> int:
    try:
        amount = Decimal(word)
    except InvalidOperation:
        raise Refusal("the amount is like +1.5 or -0.2") from None
    if not amount.is_finite() or abs(amount) > 1000 or amount * 10 % 1:
        raise Refusal("BP go in tenths: +1.5, -0.2")
    tenths = amount * 10
    return int(tenths)


@sub("bp", "!mod bp <warrior> <+/-n> <reason>", "adjust BP, within 0..40", fits=at_least(3))
@moderator_only
def _bp(ctx: Ctx, args: list[str]) -> None:
    change = stored.mod_bp(_tenths(args[1]), ctx.moderator, " ".join(args[2:]))
    applied = ctx.services.store.change_sheet(args[0], change)[1]["bp"]
    ctx.reply(f"{args[0]}: {applied / 10:+.1f} BP recorded")


@sub("skill", "!mod skill <warrior> <skill> <value> <reason>", "set a skill",
     fits=lambda args: len(args) >= 4 and args[2].isascii() and args[2].isdigit())
@moderator_only
def _set_skill(ctx: Ctx, args: list[str]) -> None:
    change = stored.mod_skill(parse_skill(args[1]), int(args[2]), ctx.moderator,
                              " ".join(args[3:]))
    ctx.services.store.change_sheet(args[0], change)
    ctx.reply(f"{args[0]}: {args[1].lower()} set to {args[2]}")


@sub("armour", "!mod armour <warrior> <armour> <reason>", "other armour, between fights",
     fits=at_least(3), aliases=("armor",))
@moderator_only
def _set_armour(ctx: Ctx, args: list[str]) -> None:
    store, armour = ctx.services.store, _armour(args[1])
    change = stored.mod_armour(armour, ctx.moderator, " ".join(args[2:]))
    old = store.change_sheet(args[0], change, between="change armour after it")[1]["detail"]["was"]
    ctx.reply(f"{store.warrior(args[0]).sheet.name} now wears {armour.value} (was {old})")


def _fairy(ctx: Ctx, args: list[str]) -> None:
    ctx.services.settings.set_setting("fairy_folk_open", args[0] == "open", ctx.moderator,
                            " ".join(args[1:]), ctx.moderator)
    ctx.reply(f"Fairy Folk creation is {'open' if args[0] == 'open' else 'closed'}")


FAIRY = Sub("fairy", "!mod fairy open|close [reason]", "Fairy Folk creation", _fairy,
            one_of("open", "close"), preconditions=(moderator_only,))
"""A ruling on the club's settings, not on a warrior: ``!mod`` lists it after those."""
