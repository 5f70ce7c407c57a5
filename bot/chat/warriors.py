"""Warrior and ledger commands: create, sheet, warriors, buy, free, audit, travel, and
the moderator's rulings on warriors (``!mod bp``, ``skill``, ``armour``, ``free``,
``fairy``) and a channel's rolls (``!mod rolls``), R8.1."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from bot.chat.people import People
from bot.chat.registry import (
    Ctx,
    Example,
    Refusal,
    at_least,
    channel_only,
    command,
    moderator_only,
    one_of,
    sub,
)
from bot.fights import play
from bot.systems.ancath import parse_skill
from bot.systems.plugin import Plugin
from bot.systems.registry import PLUGINS
from bot.wording.common import award_words
from rules.ancath.tables import Armour
from rules.general.travel import METRES_PER_MILE, Pace, travel
from storage.records import Entry, Fighter, LedgerEntry
from storage.store import WarriorRecord

__all__ = ["sheet_line"]


def _owner(record: WarriorRecord[Fighter], people: People) -> str:
    """Who owns a warrior, as the channel may be told: a nick or an account, never a
    ``user@host``."""
    return people.name(record.owner) or "unregistered"


def sheet_line(record: WarriorRecord[Fighter], people: People) -> str:
    return PLUGINS[record.system].sheet_line(record, _owner(record, people))


def _bare() -> Plugin[Any, Any]:
    """The system whose words follow ``!create <name>`` with no system word (An Cath)."""
    return next(p for p in PLUGINS.values() if not p.fighters.word)


def _system(word: str) -> Plugin[Any, Any] | None:
    """The system ``!create <name> <word> ...`` names, if any."""
    return next((p for p in PLUGINS.values() if p.fighters.word == word.lower()), None)


_OTHER_RULES = tuple(p for p in PLUGINS.values() if p.fighters.word)
"""The systems ``!create <name> <word>`` names (``contest``), each with its own help."""


@command("create", _bare().fighters.creates,
         "Make an An Cath warrior: cultures invaders, free-clans, fairy, goblin; the "
         "culture's fixed skills may be left out; armour defaults to the culture's usual. "
         "Other rules: !help create " + "|".join(p.fighters.word for p in _OTHER_RULES),
         subs=tuple((p.fighters.word, f"{p.fighters.creates}: {p.fighters.summary}")
                    for p in _OTHER_RULES),
         group="warriors", examples=(
             Example(("gob !create Gorbag goblin club spear",), "Gorbag (goblin, leather, gob)"),
             Example(("olaf !create Olaf free-clans axe shield none",), "Olaf (free-clans, none"),
         ))
def create(ctx: Ctx) -> None:
    if len(ctx.args) < 2:
        raise Refusal(f"usage: {_bare().fighters.creates}")
    name, word, *rest = ctx.args
    plugin = _system(word)
    if plugin is None:
        plugin, rest = _bare(), [word, *rest]
    record = plugin.create(ctx.services.store, name, rest, ctx.services.settings, ctx.who)
    ctx.reply("created " + sheet_line(record, ctx.services.identity.people))


@command("sheet", "!sheet <warrior>", "A warrior's skills, BP, Test and status.",
         group="warriors", reads_only=True, examples=(Example(
             ("gob !create Gorbag goblin club spear", "ann !sheet gorbag"), "test 40; free"),))
def sheet(ctx: Ctx) -> None:
    if len(ctx.args) != 1:
        raise Refusal("usage: !sheet <warrior>")
    ctx.reply(sheet_line(ctx.services.store.warrior(ctx.args[0]), ctx.services.identity.people))


@command("warriors", "!warriors [player]", "The warriors a player (you, by default) owns; "
         "a player is named by nick (whoever uses it now) or services account.",
         group="warriors", reads_only=True)
def warriors(ctx: Ctx) -> None:
    people = ctx.services.identity.people
    if ctx.args:
        name = ctx.args[0]
        owner = people.identity(name) or ctx.services.identity.club_name(name)
    else:
        name, owner = ctx.msg.sender.nick, ctx.who
    found = ctx.services.store.warriors(owner)
    if not found:
        ctx.reply(f"{name} has no warriors; !create makes one")
        return
    ctx.reply(f"{name}: " + ", ".join(PLUGINS[r.system].fighters.entry(r) for r in found))


@command("buy", "!buy <warrior> <skill>",
         "Spend BP: +10 below 50, +5 from 50 to the maximum, 3 BP for a new skill.",
         group="warriors")
def buy(ctx: Ctx) -> None:
    if len(ctx.args) != 2:
        raise Refusal("usage: !buy <warrior> <skill>")
    store = ctx.services.store
    if store.warrior(ctx.args[0]).owner != ctx.who:
        raise Refusal(f"{ctx.args[0]} is not yours")
    bought = store.buy_skill(ctx.args[0], parse_skill(ctx.args[1]), ctx.who)
    ctx.reply("bought: " + sheet_line(bought, ctx.services.identity.people))


@command("free", "!free <warrior>", "Release your prisoner.", group="warriors")
def free(ctx: Ctx) -> None:
    if len(ctx.args) != 1:
        raise Refusal("usage: !free <warrior>")
    store = ctx.services.store
    record = store.warrior(ctx.args[0])
    name = record.sheet.name
    if record.captor is None:
        raise Refusal(f"{name} is not a prisoner")
    if store.captor_account(name) != ctx.who:
        raise Refusal(f"{name} is held by {record.captor}: its captor's player frees it "
                      f"(!free {name}), or a moderator (!mod free {name} <reason>)"
                      if record.owner == ctx.who else f"{name} is not your prisoner")
    store.free(name, ctx.who, "released by the captor")
    ctx.say(f"{name} is free.")


@command("audit", "!audit [warrior]", "The warrior's last ledger rows: what, who and why; "
         "alone, what the bot's check of the ledger proved at its start.",
         group="warriors", reads_only=True, examples=(Example(
             ("gob !create Gorbag goblin club spear", "ann !audit Gorbag"),
             "row 1 created by gob: warrior created"),))
def audit(ctx: Ctx) -> None:
    if len(ctx.args) > 1:
        raise Refusal("usage: !audit [warrior]")
    check = ctx.services.settings.ledger_check
    failed = (f"the ledger FAILED its check when the bot started: {check.first}; "
              f"nothing from row {check.broken} on is proved, so BP shown here may be "
              "forged (leadership: run ancath-bot audit verify)"
              if check.state == "failed" else "")
    if not ctx.args:
        if failed:
            ctx.reply(failed)
        elif check.head is None:
            ctx.reply("the ledger was empty when the bot started: nothing to prove yet")
        else:
            ctx.reply(f"the ledger was proved through its head {check.head} when the bot "
                      "started; anyone can check it with the club's public key")
        return
    people = ctx.services.identity.people
    parts = [_audit_row(row, people) for row in ctx.services.store.ledger(ctx.args[0], limit=5)]
    if failed:
        parts.insert(0, f"NOT PROVED (the ledger failed its check at row {check.broken}: "
                     "!audit says more)")
    ctx.reply(" | ".join(parts))


_FIGHT_MADE = frozenset({Entry.AWARD, Entry.DEATH, Entry.PRISONER_TAKEN})
"""Rows a fight's end writes: the bot's, whoever's command ended it (R7.2)."""
_AWARD = re.compile(r"(?P<kind>[\w-]+) fight: (?P<code>[\w-]+)(?P<rest>.*)", re.DOTALL)
"""A fight award's reason as the records keep it: ``mortal fight: foe-slain``."""


def _audit_row(row: LedgerEntry, people: People) -> str:
    """``row 5 award +1.0 BP by the bot: foe slain, fight #1 (mortal)``: a ledger row, what,
    who and why (a ledger row is ``row N``; ``#N`` is a fight, as ``!history`` says)."""
    amount = f" {row['bp']:+.1f} BP" if row["bp"] else ""
    if row["entry"] == Entry.MODERATOR_SKILL:
        amount += f" {row['skill']}={row['skill_value']}"
    spent = f" spent {row['spent']}" if row["spent"] else ""
    fight = row["fight"]
    actor = row["actor"]
    by = "the bot" if actor == "bot" or (fight is not None and row["entry"] in _FIGHT_MADE) \
        else people.name(actor) or "unregistered"
    mod = f" (mod {people.name(row['moderator']) or 'by mask'})" if row["moderator"] else ""
    reason = row["reason"] or ""
    award = _AWARD.fullmatch(reason) if row["entry"] == Entry.AWARD else None
    if fight is not None and award is not None:   # "mortal": a mortal fight's own award
        kind, code = award["kind"], award["code"]
        said = f"fight #{fight} ({kind})"
        reason = (said if code == kind else f"{award_words(code)}, {said}") + award["rest"]
    elif fight is not None:
        reason += f" (fight #{fight})"
    return f"row {row['id']} {row['entry']}{amount}{spent} by {by}{mod}: {reason}"


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
    applied = ctx.services.store.adjust_bp(args[0], _tenths(args[1]), ctx.moderator,
                                          " ".join(args[2:]))
    ctx.reply(f"{args[0]}: {applied / 10:+.1f} BP recorded")


@sub("skill", "!mod skill <warrior> <skill> <value> <reason>", "set a skill",
     fits=lambda args: len(args) >= 4 and args[2].isascii() and args[2].isdigit())
@moderator_only
def _set_skill(ctx: Ctx, args: list[str]) -> None:
    ctx.services.store.set_skill(args[0], parse_skill(args[1]), int(args[2]), ctx.moderator,
                                " ".join(args[3:]))
    ctx.reply(f"{args[0]}: {args[1].lower()} set to {args[2]}")


@sub("armour", "!mod armour <warrior> <armour> <reason>", "other armour, between fights",
     fits=at_least(3), aliases=("armor",))
@moderator_only
def _set_armour(ctx: Ctx, args: list[str]) -> None:
    store, armour = ctx.services.store, _armour(args[1])
    old = store.set_armour(args[0], armour, ctx.moderator, " ".join(args[2:]))
    ctx.reply(f"{store.warrior(args[0]).sheet.name} now wears {armour.value} (was {old})")


@sub("free", "!mod free <warrior> <reason>", "free a prisoner", fits=at_least(2))
@moderator_only
def _free(ctx: Ctx, args: list[str]) -> None:
    store = ctx.services.store
    store.free(args[0], ctx.moderator, " ".join(args[1:]), moderator=ctx.moderator)
    ctx.say(f"{store.warrior(args[0]).sheet.name} is free by a moderator's ruling.")


@sub("fairy", "!mod fairy open|close [reason]", "Fairy Folk creation",
     fits=one_of("open", "close"))
@moderator_only
def _fairy(ctx: Ctx, args: list[str]) -> None:
    ctx.services.settings.set_setting("fairy_folk_open", args[0] == "open", ctx.moderator,
                            " ".join(args[1:]), ctx.moderator)
    ctx.reply(f"Fairy Folk creation is {'open' if args[0] == 'open' else 'closed'}")


@sub("rolls", "!mod rolls auto|manual [reason]", "this channel's roll mode",
     fits=one_of("auto", "manual"))
@moderator_only
@channel_only
def _rolls(ctx: Ctx, args: list[str]) -> None:
    channel = ctx.channel()
    settings = ctx.services.settings
    settings.set_setting(settings.channel_setting("rolls", channel), args[0],
                         ctx.moderator, " ".join(args[1:]), ctx.moderator)
    if not play.catch_up(ctx, f"Rolls in {channel} are now {args[0]}."):  # with the due rolls
        ctx.reply(f"rolls in {channel} are now {args[0]}")


@command("travel", "!travel move=<n> vit=<n> strain=<n> walk|jog|run [minutes=<n>|hours=<n>]",
         "General rules: how far a pace goes a round, a minute and an hour, how long it "
         "holds, and what a journey costs in Strain.", group="general rules",
         reads_only=True, examples=(
             Example(("sam !travel move=12 vit=10 strain=10 run minutes=50",),
                     "50 min: 18000 m (11.2 miles), Strain 10 -> 1"),))
def travel_(ctx: Ctx) -> None:
    values = dict(w.lower().split("=", 1) for w in ctx.args if "=" in w)
    paces = [w.lower() for w in ctx.args if "=" not in w]
    keys = {"move", "vit", "strain"}
    usage = "usage: !travel move=<n> vit=<n> strain=<n> walk|jog|run [minutes=<n>|hours=<n>]"
    if not keys <= values.keys() or len(paces) != 1 or paces[0] not in {p.value for p in Pace}:
        raise Refusal(usage)
    if not all(v.isdecimal() for v in values.values()) or set(values) - keys - {"minutes",
                                                                                   "hours"}:
        raise Refusal(usage)
    minutes = int(values["minutes"]) if "minutes" in values else (
        int(values["hours"]) * 60 if "hours" in values else None)
    report = travel(int(values["move"]), int(values["vit"]), int(values["strain"]),
                    Pace(paces[0]), minutes)
    text = (f"{report.pace.value.capitalize()} at Move {values['move']}: "
            f"{report.metres_per_round} m a round, {report.metres_per_minute} m a minute, "
            f"{float(report.miles_per_hour):g} miles an hour; holds {report.duration_minutes} "
            f"min a Strain, {report.longest_minutes} min in all down to 1 Strain.")
    if report.metres is not None:
        miles = report.metres / METRES_PER_MILE
        text += (f" {report.minutes} min: {report.metres} m ({miles:.1f} miles), Strain "
                 f"{values['strain']} -> {report.strain_left}"
                 + (" (unconscious)" if (report.strain_left or 0) <= 0 else "") + ".")
    ctx.reply(text)
