"""Warrior and ledger commands of every system: create, sheet, warriors (built with the
systems, :func:`commands`), free and audit, and the moderator's ``!mod free`` and a
channel's rolls (``!mod rolls``), R8.1. A system's own (An Cath's ``!buy``, ``!mod bp``)
are in its folder, ``bot/systems/<name>/commands.py``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from bot.commands.registry import (
    Ctx,
    Example,
    Refusal,
    Spec,
    at_least,
    channel_only,
    command,
    moderator_only,
    one_of,
    sub,
)
from bot.fights import play
from bot.identity.people import People
from bot.systems.plugin import Plugin
from bot.wording.common import award_words
from storage.records import Entry, Fighter, LedgerEntry
from storage.store import WarriorRecord

__all__ = ["commands"]


def _owner(record: WarriorRecord[Fighter], people: People) -> str:
    """Who owns a warrior, as the channel may be told: a nick or an account, never a
    ``user@host``."""
    return people.name(record.owner) or "unregistered"


def commands(systems: Iterable[Plugin[Any, Any]]) -> tuple[Spec, ...]:
    """``!create``, ``!sheet`` and ``!warriors`` for the fighters of ``systems``, built
    when the command list is: ``!create``'s usage and help name each system's words."""
    plugins = {p.system.name: p for p in systems}
    # the system whose words follow ``!create <name>`` bare (An Cath), and those a word
    # after the name picks (``contest``), each with its own help
    bare = next(p for p in plugins.values() if not p.fighters.word)
    others = tuple(p for p in plugins.values() if p.fighters.word)

    def sheet_line(record: WarriorRecord[Fighter], people: People) -> str:
        return plugins[record.system].sheet_line(record, _owner(record, people))

    def create(ctx: Ctx) -> None:
        if len(ctx.args) < 2:
            raise Refusal(f"usage: {bare.fighters.creates}")
        name, word, *rest = ctx.args
        plugin = next((p for p in others if p.fighters.word == word.lower()), None)
        if plugin is None:
            plugin, rest = bare, [word, *rest]
        record = plugin.create(ctx.services.store, name, rest, ctx.services.settings, ctx.who)
        ctx.reply("created " + sheet_line(record, ctx.services.identity.people))

    def sheet(ctx: Ctx) -> None:
        if len(ctx.args) != 1:
            raise Refusal("usage: !sheet <warrior>")
        ctx.reply(sheet_line(ctx.services.store.warrior(ctx.args[0]),
                             ctx.services.identity.people))

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
        ctx.reply(f"{name}: " + ", ".join(plugins[r.system].fighters.entry(r) for r in found))

    return (
        Spec("create", bare.fighters.creates,
             "Make an An Cath warrior: cultures invaders, free-clans, fairy, goblin; the "
             "culture's fixed skills may be left out; armour defaults to the culture's "
             "usual. Other rules: !help create " + "|".join(p.fighters.word for p in others),
             create, group="warriors",
             subs=tuple((p.fighters.word, f"{p.fighters.creates}: {p.fighters.summary}")
                        for p in others),
             examples=(
                 Example(("gob !create Gorbag goblin club spear",),
                         "Gorbag (goblin, leather, gob)"),
                 Example(("olaf !create Olaf free-clans axe shield none",),
                         "Olaf (free-clans, none"))),
        Spec("sheet", "!sheet <warrior>", "A warrior's skills, BP, Test and status.", sheet,
             group="warriors", reads_only=True, examples=(Example(
                 ("gob !create Gorbag goblin club spear", "ann !sheet gorbag"),
                 "test 40; free"),)),
        Spec("warriors", "!warriors [player]", "The warriors a player (you, by default) "
             "owns; a player is named by nick (whoever uses it now) or services account.",
             warriors, group="warriors", reads_only=True),
    )


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


@sub("free", "!mod free <warrior> <reason>", "free a prisoner", fits=at_least(2))
@moderator_only
def _free(ctx: Ctx, args: list[str]) -> None:
    store = ctx.services.store
    store.free(args[0], ctx.moderator, " ".join(args[1:]), moderator=ctx.moderator)
    ctx.say(f"{store.warrior(args[0]).sheet.name} is free by a moderator's ruling.")


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
