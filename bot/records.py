"""Warrior and ledger commands: create, sheet, warriors, buy, free, audit, and the
moderator's ``!mod`` family (R8.1)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from bot import duels
from bot.commands import Ctx, Example, Refusal, command
from rules.ancath.sheet import Sheet, bp_available, create_warrior, derived_test
from rules.ancath.tables import Armour, Culture, Skill
from storage.store import WarriorRecord

__all__ = ["sheet_line"]

_CULTURE_NAMES = {c.value: c for c in Culture} | {"freeclans": Culture.FREE_CLANS,
                                                  "invader": Culture.INVADERS}


def _skill(word: str) -> Skill:
    try:
        return Skill(word.lower())
    except ValueError:
        raise Refusal(f"no skill {word}; skills: {', '.join(s.value for s in Skill)}") from None


def sheet_line(record: WarriorRecord) -> str:
    sheet: Sheet = record.sheet
    skills = ", ".join(f"{s.value} {v}" for s, v in sorted(sheet.skills.items(),
                                                           key=lambda i: i[0].value))
    state = sheet.status.value + (f" (held by {record.captor})" if record.captor else "")
    return (f"{sheet.name} ({sheet.culture.value}, {sheet.armour.value}, {record.owner}): "
            f"{skills}; BP {sheet.bp / 10:.1f} ({bp_available(sheet)} to spend); "
            f"test {derived_test(sheet.bp)}; {state}")


@command("create", "!create <name> <culture> <skill>... [armour]",
         "Make a warrior: cultures invaders, free-clans, fairy, goblin; the skills the "
         "culture always has may be left out; armour defaults to the culture's usual.",
         group="warriors", examples=(
             Example(("gob !create Gorbag goblin club spear",), "Gorbag (goblin, leather, gob)"),
             Example(("olaf !create Olaf free-clans axe shield none",), "Olaf (free-clans, none"),
         ))
def create(ctx: Ctx) -> None:
    if len(ctx.args) < 2:
        raise Refusal("usage: !create <name> <culture> <skill>... [armour]")
    name, culture_word, *rest = ctx.args
    culture = _CULTURE_NAMES.get(culture_word.lower())
    if culture is None:
        raise Refusal("culture must be invaders, free-clans, fairy or goblin")
    armour = None
    if rest and rest[-1].lower() in {a.value for a in Armour}:
        armour = Armour(rest.pop().lower())
    sheet, _ = create_warrior(name, culture, [_skill(w) for w in rest], armour,
                              fairy_open=ctx.referee.fairy_open())
    record = ctx.referee.store.create_warrior(sheet, ctx.who)
    ctx.reply("created " + sheet_line(record))


@command("sheet", "!sheet <warrior>", "A warrior's skills, BP, Test and status.",
         group="warriors", examples=(Example(
             ("gob !create Gorbag goblin club spear", "ann !sheet gorbag"), "test 40; free"),))
def sheet(ctx: Ctx) -> None:
    if len(ctx.args) != 1:
        raise Refusal("usage: !sheet <warrior>")
    ctx.reply(sheet_line(ctx.referee.store.warrior(ctx.args[0])))


@command("warriors", "!warriors [player]", "The warriors a player (you, by default) owns.",
         group="warriors")
def warriors(ctx: Ctx) -> None:
    owner = ctx.args[0] if ctx.args else ctx.who
    found = ctx.referee.store.warriors(owner)
    if not found:
        ctx.reply(f"{owner} has no warriors; !create makes one")
        return
    ctx.reply(f"{owner}: " + ", ".join(
        f"{r.sheet.name} ({r.sheet.culture.value}, {r.sheet.status.value}, "
        f"BP {r.sheet.bp / 10:.1f})" for r in found))


@command("buy", "!buy <warrior> <skill>",
         "Spend BP: +10 below 50, +5 from 50 to the maximum, 3 BP for a new skill.",
         group="warriors")
def buy(ctx: Ctx) -> None:
    if len(ctx.args) != 2:
        raise Refusal("usage: !buy <warrior> <skill>")
    store = ctx.referee.store
    if store.warrior(ctx.args[0]).owner != ctx.who:
        raise Refusal(f"{ctx.args[0]} is not yours")
    ctx.reply("bought: " + sheet_line(store.buy_skill(ctx.args[0], _skill(ctx.args[1]), ctx.who)))


@command("free", "!free <warrior>", "Release your prisoner.", group="warriors")
def free(ctx: Ctx) -> None:
    if len(ctx.args) != 1:
        raise Refusal("usage: !free <warrior>")
    store = ctx.referee.store
    if store.captor_account(ctx.args[0]) != ctx.who:
        raise Refusal(f"{ctx.args[0]} is not your prisoner")
    store.free(ctx.args[0], ctx.who, "released by the captor")
    ctx.say(f"{store.warrior(ctx.args[0]).sheet.name} is free.")


@command("audit", "!audit <warrior>", "The warrior's last ledger rows: what, who and why.",
         group="warriors", examples=(Example(
             ("gob !create Gorbag goblin club spear", "ann !audit Gorbag"),
             "#1 created by gob: warrior created"),))
def audit(ctx: Ctx) -> None:
    if len(ctx.args) != 1:
        raise Refusal("usage: !audit <warrior>")
    rows = ctx.referee.store.ledger(ctx.args[0], limit=5)
    parts = []
    for row in rows:
        amount = f" {row['bp']:+.1f} BP" if row["bp"] else ""
        if row["entry"] == "moderator-skill":
            amount += f" {row['skill']}={row['skill_value']}"
        spent = f" spent {row['spent']}" if row["spent"] else ""
        mod = f" (mod {row['moderator']})" if row["moderator"] else ""
        parts.append(f"#{row['id']} {row['entry']}{amount}{spent} by {row['actor']}{mod}: "
                     f"{row['reason']}")
    ctx.reply(" | ".join(parts))


def _tenths(word: str) -> int:
    try:
        amount = Decimal(word)
    except InvalidOperation:
        raise Refusal("the amount is like +1.5 or -0.2") from None
    if not amount.is_finite() or abs(amount) > 1000 or amount * 10 % 1:
        raise Refusal("BP go in tenths: +1.5, -0.2")
    tenths = amount * 10
    return int(tenths)


_MOD_USAGE = ("!mod undo <reason> | end <warrior>|draw <reason> | bp <warrior> <+/-n> "
              "<reason> | skill <warrior> <skill> <value> <reason> | free <warrior> <reason> "
              "| fairy open|close [reason] | rolls auto|manual [reason]")


@command("mod", _MOD_USAGE, "Moderators only: rule on fights and records; every change "
         "goes into the ledger with your reason.", group="moderators")
def mod(ctx: Ctx) -> None:
    if not ctx.referee.is_moderator(ctx.msg.sender):
        raise Refusal("only moderators use !mod (by services account or host mask)")
    if not ctx.args:
        raise Refusal("usage: " + _MOD_USAGE)
    sub, args = ctx.args[0].lower(), ctx.args[1:]
    store = ctx.referee.store
    if sub == "undo" and args:
        duels.moderator_undo(ctx, " ".join(args))
    elif sub == "end" and len(args) >= 2:
        duels.moderator_end(ctx, args[0], " ".join(args[1:]))
    elif sub == "bp" and len(args) >= 3:
        applied = store.adjust_bp(args[0], _tenths(args[1]), ctx.who, " ".join(args[2:]))
        ctx.reply(f"{args[0]}: {applied / 10:+.1f} BP recorded")
    elif sub == "skill" and len(args) >= 4 and args[2].isascii() and args[2].isdigit():
        store.set_skill(args[0], _skill(args[1]), int(args[2]), ctx.who, " ".join(args[3:]))
        ctx.reply(f"{args[0]}: {args[1].lower()} set to {args[2]}")
    elif sub == "free" and len(args) >= 2:
        store.free(args[0], ctx.who, " ".join(args[1:]), moderator=ctx.who)
        ctx.say(f"{store.warrior(args[0]).sheet.name} is free by a moderator's ruling.")
    elif sub == "fairy" and args[:1] in (["open"], ["close"]):
        store.set_setting("fairy_folk_open", args[0] == "open", ctx.who, " ".join(args[1:]))
        ctx.reply(f"Fairy Folk creation is {'open' if args[0] == 'open' else 'closed'}")
    elif sub == "rolls" and args[:1] in (["auto"], ["manual"]):
        channel = ctx.channel()
        store.set_setting(f"rolls:{channel.casefold()}", args[0], ctx.who, " ".join(args[1:]))
        ctx.reply(f"rolls in {channel} are now {args[0]}")
    else:
        raise Refusal("usage: " + _MOD_USAGE)
