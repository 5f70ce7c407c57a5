"""The club's records in chat, read only: ``!top`` (the standings), ``!history`` (a
warrior's last fights), ``!stats`` (a warrior's counts) and ``!fight`` (one fight in
brief, with where the leadership pages replay it).

Each answer is one line. A list keeps as many of its entries as fit the line and ends
with how many more there were (``| 2 more``; ``!top`` counts the warriors past the n
asked for too). A fight's channel is named with its network (``ongoing in #ancath on
libera``) when the club's fights are on more than one network. What the counts count
is :mod:`storage.history`'s; docs/bot-behaviour.md says it for players. Players are
named by account, never by ``user@host`` ("unregistered").
"""

from __future__ import annotations

import re

from bot.commands.registry import Ctx, Example, command
from bot.identity.people import is_host_identity
from bot.refusals import Refusal
from bot.safe_text import SEPARATOR
from bot.systems.ancath.fighters import parse_culture
from rules.ancath.sheet import valid_name
from storage.records import FightLine, FightSummary, Standing, WarriorStats

__all__ = ["MOST", "fight", "history", "stats", "top"]

MOST = 10
"""The most entries ``!top`` and ``!history`` give (fewer when they do not fit)."""
_SHOWN = 5
"""The entries they give unless asked for another number."""
_LAST_FIGHT = 2**31 - 1
"""The highest fight number the records can hold (a 32-bit key in PostgreSQL)."""
_NUMBER = re.compile(r"[+-]?[0-9]+")
_FIGHT = re.compile(r"#?0*([0-9]{1,10})")
_BY = frozenset({"kill", "first-blood", "yield", "forfeit", "moderator"})
"""Endings said as the way a fight was decided (``won by kill``); any other says what
became of the loser (``lost (escaped)``, ``won (foe dead)``)."""
_BECAME = {"escape": "escaped"}
"""The loser's fate where it is not the ending's own word."""
_TOP = "!top [n] [culture]"
_HISTORY = "!history <warrior> [n]"
_FOUGHT = ("gob !create Gorbag goblin club spear", "olaf !create Olaf free-clans axe shield",
           "olaf !challenge Gorbag", "gob !accept")
"""An example's club: Olaf and Gorbag in a practice fight, fight #1 (dice 50, 40)."""


def _count(word: str, usage: str) -> int:
    """The ``n`` of ``usage``: 1 to :data:`MOST`."""
    if _NUMBER.fullmatch(word) is None or len(word) > 3 or not 1 <= int(word) <= MOST:
        raise Refusal(f"usage: {usage}, n from 1 to {MOST}")
    return int(word)


def _fit(head: str, parts: list[str], room: int, total: int | None = None) -> str:
    """``head`` and as many of ``parts`` as fit ``room`` bytes, with how many more of
    the ``total`` there are (``parts`` the first of them; all of them when None)."""
    total = len(parts) if total is None else total
    shown: list[str] = []
    for part in parts:
        if len(_joined(head, [*shown, part], total - len(shown) - 1).encode()) > room:
            break
        shown.append(part)
    return _joined(head, shown, total - len(shown))


def _joined(head: str, parts: list[str], more: int) -> str:
    return head + SEPARATOR.join([*parts, f"{more} more"] if more else parts)


def _bp(tenths: int) -> str:
    return f"{tenths / 10:+.1f}"


def _how(result: str, ending: str | None) -> str:
    """``won by kill``, ``lost (escaped)``, ``won (foe escaped)``, ``draw``: a result
    and how the fight ended."""
    if ending is None or ending == result:
        return result
    if ending in _BY:
        return f"{result} by {ending}"
    fate = _BECAME.get(ending, ending)
    return f"{result} (foe {fate})" if result == "won" else f"{result} ({fate})"


def _warrior(word: str) -> str:
    """A warrior's name as typed; words no name could be are refused here, so a long
    one is not said back."""
    if not valid_name(word):
        raise Refusal("no such warrior: a name is 1 to 24 letters, digits, ' _ -")
    return word


def _player(identity: str) -> str:
    """Who played a side: the account, never a ``user@host``."""
    return "unregistered" if is_host_identity(identity) else identity


def _dead(status: str) -> str:
    """The mark after a dead warrior's name: `` (dead)``."""
    return " (dead)" if status == "dead" else ""


def _standing(place: int, standing: Standing) -> str:
    return (f"{place}. {standing.name}{_dead(standing.status)} {standing.bp / 10:.1f} BP "
            f"({standing.wins}-{standing.losses}-{standing.draws})")


def _fought(line: FightLine) -> str:
    """``fight #3 2025-05-01 practice vs Gorbag: lost (escaped), +0.1 BP``."""
    head = f"fight #{line.id} {line.started_at[:10]} {line.kind} vs {line.foe}: "
    if line.result == "open":
        return head + f"ongoing in {line.place}"
    return head + f"{_how(line.result, line.ending)}, {_bp(line.bp)} BP"


def _counts(stats: WarriorStats) -> str:
    return (f"{stats.name}{_dead(stats.status)}: fights {stats.fights} (won {stats.wins}, "
            f"lost {stats.losses}, drawn {stats.draws}), kills {stats.kills}, yields "
            f"{stats.yields}, escapes {stats.escapes}, prisoners taken {stats.prisoners_taken}; BP "
            f"{stats.bp / 10:.1f}: {_bp(stats.bp_fights)} from fights, "
            f"{_bp(stats.bp_moderators)} from moderators")


def _summary(fight: FightSummary, base_url: str | None) -> str:
    """``Fight #1, practice, 2025-05-01: Olaf (olaf) +0.2 BP vs Gorbag (gob) +0.1 BP;
    Olaf won by kill; replay: <base_url>/fights/1`` (no BP while it goes on; a fight
    going on links its live page: ``live: <base_url>/fights/1/live``)."""
    sides = " vs ".join(
        f"{name} ({_player(account)})" + ("" if fight.active else f" {_bp(tenths)} BP")
        for name, account, tenths in zip(fight.names, fight.accounts, fight.bp, strict=True))
    parts = [f"Fight #{fight.id}, {fight.kind}, {fight.started_at[:10]}: {sides}"]
    if fight.active:
        parts.append(f"ongoing in {fight.place}")
    elif fight.winner is None:
        parts.append(_how("draw", fight.ending))
    else:
        parts.append(f"{fight.names[fight.winner]} {_how('won', fight.ending)}")
    if base_url is not None:
        parts.append(f"live: {base_url}/fights/{fight.id}/live" if fight.active
                     else f"replay: {base_url}/fights/{fight.id}")
    return "; ".join(parts)


@command("top", _TOP, "The standings by BP, ties by wins: the first n (5, at most 10, "
         "as many as fit a line), of one culture when named; (W-L-D) are finished fights "
         "won, lost and drawn.",
         group="warriors", reads_only=True, examples=(Example(
             ("gob !create Gorbag goblin club spear", "ann !top 3 goblin"),
             "Standings (goblin): 1. Gorbag 0.0 BP (0-0-0)"),))
def top(ctx: Ctx) -> None:
    numbers = [w for w in ctx.args if _NUMBER.fullmatch(w)]
    words = [w for w in ctx.args if not _NUMBER.fullmatch(w)]
    if len(numbers) > 1 or len(words) > 1:
        raise Refusal(f"usage: {_TOP}, n from 1 to {MOST}")
    shown = _count(numbers[0], _TOP) if numbers else _SHOWN
    culture = parse_culture(words[0]).value if words else None
    standings = ctx.services.store.standings(culture)
    if not standings:
        ctx.reply(f"no {culture + ' ' if culture else ''}warriors yet; !create makes one")
        return
    head = f"Standings ({culture}): " if culture else "Standings: "
    ctx.reply(_fit(head, [_standing(place, s) for place, s in enumerate(standings[:shown], 1)],
                   ctx.room(), len(standings)))


@command("history", _HISTORY, "A warrior's last n fights (5, at most 10, as many as fit "
         "a line), newest first: number, day, kind, foe, how it ended, the BP it brought.",
         group="warriors", reads_only=True, examples=(Example(
             (*_FOUGHT, "ann !history Olaf"), "practice vs Gorbag: ongoing in #arena",
             dice=(50, 40)),))
def history(ctx: Ctx) -> None:
    if not 1 <= len(ctx.args) <= 2:
        raise Refusal(f"usage: {_HISTORY}")
    shown = _count(ctx.args[1], _HISTORY) if len(ctx.args) == 2 else _SHOWN
    store = ctx.services.store
    name = store.warrior(_warrior(ctx.args[0])).sheet.name
    fights = store.fight_history(name, shown)
    if not fights:
        ctx.reply(f"{name} has not fought yet; !challenge {name} starts a fight")
        return
    ctx.reply(_fit(f"{name}'s fights: ", [_fought(f) for f in fights], ctx.room()))


@command("stats", "!stats <warrior>", "A warrior's finished fights won, lost and drawn; "
         "kills, yields, escapes and prisoners taken; BP from fights and from moderators.",
         group="warriors", reads_only=True, examples=(Example(
             ("gob !create Gorbag goblin club spear", "ann !stats Gorbag"),
             "Gorbag: fights 0 (won 0, lost 0, drawn 0)"),))
def stats(ctx: Ctx) -> None:
    if len(ctx.args) != 1:
        raise Refusal("usage: !stats <warrior>")
    ctx.reply(_counts(ctx.services.store.warrior_stats(_warrior(ctx.args[0]))))


@command("fight", "!fight <number>", "One fight in brief: its sides, kind, how it ended "
         "and the BP each gained, and where to read its replay when the club has pages.",
         group="warriors", reads_only=True, examples=(Example(
             (*_FOUGHT, "ann !fight #1"),
             "Olaf (olaf) vs Gorbag (gob); ongoing in #arena", dice=(50, 40)),))
def fight(ctx: Ctx) -> None:
    match = _FIGHT.fullmatch(ctx.args[0]) if len(ctx.args) == 1 else None
    if match is None:
        raise Refusal("usage: !fight <number>, as !history shows it: !fight 12")
    number = int(match[1])
    found = ctx.services.store.fight_summary(number) if number <= _LAST_FIGHT else None
    if found is None:
        raise Refusal(f"no fight #{number}; !history <warrior> shows the numbers")
    ctx.reply(_summary(found, ctx.services.config.web.base_url))
