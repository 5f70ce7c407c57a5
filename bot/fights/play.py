"""Fights in channels, as chat: the fighters' commands and their manual rolls, each a
thin adapter over the play service (:mod:`bot.fights.playing`): it looks the channel's
fight up once, reads the channel's rules once, parses the command once, plays it, and
says it in one line (``announce``). Challenges are :mod:`bot.fights.challenges`', time
limits :mod:`bot.fights.time_limits`', a moderator's rulings :mod:`bot.fights.rulings`'.

One :class:`bot.channel_fights.ChannelFight` per channel holds the pending challenge or
the open fight. Every accepted command is recorded before anything is said about it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from bot.channel_fights import ChannelFight, SomeFight
from bot.club_settings import ChannelRules
from bot.commands.registry import Ctx, Example, Services, Spec, channel_only, command
from bot.dice import parse, roll
from bot.fights.playing import C, E, F, Played, S, die_due, due_rolls, play, plugin_of, roll_due
from bot.messages import Incoming, Outgoing, Priority
from bot.refusals import Refusal
from bot.safe_text import DEFAULT_BUDGET
from bot.systems.plugin import Plugin, Verb, help_lines
from bot.systems.registry import PLUGINS
from bot.turn_timer import TurnTimer
from bot.wording.common import Cast
from bot.wording.fit import Say

__all__ = [
    "Seat", "announce", "cast", "catch_up", "fight_roll", "fight_verb", "names_of",
    "play_verb", "restart_timer", "resume_rolls", "resumed", "roll_dice", "seated",
    "table_of", "verb_commands",
]


def table_of(ctx: Ctx) -> ChannelFight:
    """The command's channel's (a refusal in private)."""
    return ctx.services.tables.table(ctx.channel())


def names_of(fight: SomeFight) -> tuple[str, ...]:
    return tuple(sheet.name for sheet in fight.sheets)


def cast(services: Services, fight: SomeFight) -> Cast:
    """The fighters, and who plays each as the channel knows them (``Olaf (olaf)``)."""
    names = names_of(fight)
    return Cast(names, tuple(services.identity.people.label(name, account)
                             for name, account in zip(names, fight.accounts, strict=True)))


# -- fight commands ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seat:
    """The sender's side in their channel's open fight."""

    table: ChannelFight
    fight: SomeFight
    side: int


def seated(ctx: Ctx, table: ChannelFight | None = None) -> Seat:
    """The sender's seat in the channel's open fight (``table``, when the command looked
    it up already), or the refusal saying why there is none: in private, a fight the
    records could not give back, no fight, or the sender plays no side in it."""
    table = table_of(ctx) if table is None else table
    fight = table.fighting()
    if ctx.who not in fight.accounts:
        raise Refusal(f"only {' and '.join(names_of(fight))}'s players act in this fight")
    return Seat(table, fight, fight.accounts.index(ctx.who))


def announce(ctx: Ctx, table: ChannelFight, plugin: Plugin[S, C],
             played: Played[S, C, E, F], rules: ChannelRules,
             head: str | Say = "", opening: bool = False) -> None:
    """The channel's fight as played, and what happened and who moves next said in one
    line (``head`` first, and who fights whom when ``opening``), what it says cut to fit
    the server's line, never the options (:meth:`Plugin.line`). The time limit starts
    again only when the fight moved on (:class:`TurnTimer`, R7.4). A fight's end ends
    with the ledger head its closing row made (``ledger #4123 9f2c1a7e4305b5ca``): an
    anchor in the channel's log that ``audit verify --anchors`` checks, so it too is
    said in one line, whole."""
    fight = table.fight = played.fight
    line = plugin.line(played.events, fight.state, not rules.rolls_auto,
                       cast(ctx.services, fight), fight.awarded, fight.anchor, head, opening)
    ctx.say(line(None), fit=line)
    if played.ended:
        table.fight, table.timer = None, None
        return
    now, seconds = ctx.services.clock.now(), rules.turn_seconds
    table.timer = TurnTimer.start(fight.state, now, seconds) if table.timer is None \
        else table.timer.restart_if_moved(fight.state, now, seconds)


def restart_timer(services: Services, table: ChannelFight, rules: ChannelRules) -> None:
    """The time to decide starts again now, moved on or not (a resumed fight, an undo)."""
    table.timer = TurnTimer.start(table.fighting().state, services.clock.now(),
                                  rules.turn_seconds)


def catch_up(ctx: Ctx, head: str) -> bool:
    """After a switch to automatic rolls, make the rolls the fight already waits for,
    said after ``head`` in one line; False when there were none (nothing said)."""
    table = table_of(ctx)
    if table.fight is None:
        return False
    services, rules = ctx.services, ctx.services.settings.rules_of(table)
    played = due_rolls(table.fight, rules, services.dice, services.store)
    if played.events:
        announce(ctx, table, plugin_of(played.fight), played, rules, head)
    return bool(played.events)


def fight_verb(ctx: Ctx) -> None:
    """A fight verb by a fighter of the channel's open fight (:func:`seated`)."""
    play_verb(ctx, seated(ctx))


def play_verb(ctx: Ctx, seat: Seat) -> None:
    """The verb ``ctx`` names, as the fight's own rules system reads it, played and
    said. A verb of another system is refused as that, after its words."""
    fight = seat.fight
    plugin = plugin_of(fight)
    verb = plugin.verbs.get(ctx.name)
    if verb is None:
        _any_verb(ctx.name).parse(0, ctx.args)
        raise Refusal(f"!{ctx.name} is not a move in a {plugin.label} fight; !status shows yours")
    command = verb.parse(seat.side, ctx.args)
    services, rules = ctx.services, ctx.services.settings.rules_of(seat.table)
    played = play(fight, command, rules, services.dice, services.store, actor=ctx.who)
    announce(ctx, seat.table, plugin, played, rules)


def _any_verb(name: str) -> Verb[object]:
    """The first registered system's verb of that name."""
    return next(p.verbs[name] for p in PLUGINS.values() if name in p.verbs)


def verb_commands(plugins: Iterable[Plugin[S, C]]) -> tuple[Spec, ...]:
    """Every chat verb of ``plugins`` as a fight command (one per name); each refuses
    whoever plays no side in the channel's fight (:func:`seated`)."""
    return tuple(Spec(name, usage, summary, fight_verb, group="fight")
                 for name, (usage, summary) in help_lines(plugins).items())


@command("status", "!status", "The fight at a glance and whose move it is (to a "
         "moderator, also the channels the bot is not in).", group="fight", reads_only=True)
@channel_only
def show_status(ctx: Ctx) -> None:
    try:
        line = _status(ctx)
    except Refusal as refusal:
        raise Refusal(_not_in(ctx, str(refusal), ctx.room())) from None
    ctx.say(_not_in(ctx, line, DEFAULT_BUDGET))


def _status(ctx: Ctx) -> str:
    table = table_of(ctx)
    if table.challenge is not None and table.fight is None:
        pending = table.challenge
        return f"{pending.challenger} has challenged {pending.target} ({pending.kind})."
    fight = table.fighting()
    manual = not ctx.services.settings.rules_of(table).rolls_auto
    return plugin_of(fight).status(fight.state, manual, cast(ctx.services, fight))


def _not_in(ctx: Ctx, line: str, room: int) -> str:
    """``line``, and to a moderator the channels the bot serves but is not in (the
    server refused its JOIN, a kick), as many as fit ``room`` bytes: ``| not in 11
    channels: #a (too many channels), ..., 9 more``."""
    not_in = ctx.services.tables.not_in
    if not not_in or not ctx.services.identity.is_moderator(ctx.msg.sender):
        return line
    head = f"{line} | not in {len(not_in)} channel{'s' if len(not_in) > 1 else ''}"
    parts = [f"{channel} ({why})" for channel, why in not_in.items()]
    said = head
    for shown in range(1, len(parts) + 1):
        more = f", {len(parts) - shown} more" if shown < len(parts) else ""
        longer = f"{head}: {', '.join(parts[:shown])}{more}"
        if len(longer.encode()) > room:
            break
        said = longer
    return said if len(said.encode()) <= room else line


@lru_cache(maxsize=256)
def _one_die(word: str) -> int | None:
    """The faces of a roll of one die (``d100``, ``1d20``, ``d%``), else None."""
    word = word.lower().removeprefix("1")
    if word == "d%":
        return 100
    faces = word.removeprefix("d")
    return int(faces) if word.startswith("d") and faces.isdecimal() and len(faces) < 5 else None


def _fight_roll(services: Services, msg: Incoming, args: list[str],
                ) -> tuple[ChannelFight, SomeFight, ChannelRules] | None:
    """The channel's fight and rules when a roll of ``args`` by this sender is a fight
    roll: one die, by a fighter of the channel's fight, in a manual-roll channel."""
    if msg.channel is None or len(args) != 1 or _one_die(args[0]) is None:
        return None
    table = services.tables.get(msg.channel)
    if table is None or table.fight is None or msg.sender.identity not in table.fight.accounts:
        return None
    rules = services.settings.rules_of(table)
    return None if rules.rolls_auto else (table, table.fight, rules)


def fight_roll(services: Services, msg: Incoming, args: list[str]) -> bool:
    """Whether a roll of ``args`` by this sender is a fight roll (:func:`manual_roll`)."""
    return _fight_roll(services, msg, args) is not None


def manual_roll(ctx: Ctx) -> bool:
    """In manual mode a fighter's roll of one die is a fight roll: the awaited fighter's
    roll of the awaited die (d100 in An Cath, d20 or a damage die elsewhere) drives the
    fight; any other fighter's, or one when no roll is due, is refused and rolls
    nothing. True when the line was handled here."""
    found = _fight_roll(ctx.services, ctx.msg, ctx.args)
    if found is None:
        return False
    ctx.writing()
    table, fight, rules = found
    faces = _one_die(ctx.args[0])
    plugin, due = plugin_of(fight), roll_due(fight.state)
    if due is None:
        raise Refusal("not a roll now: " + plugin.prompt(fight.state, True,
                                                         cast(ctx.services, fight)))
    die = die_due(fight.state)
    if fight.accounts[due] != ctx.who:
        raise Refusal(f"not your roll: {plugin.waiting(fight.state)} is awaited")
    if faces != die:
        raise Refusal(f"roll d{die} for this, not d{faces}")
    services = ctx.services
    played = play(fight, plugin.roll(due, services.dice.roll(die)), rules, services.dice,
                  services.store, actor=ctx.who)
    announce(ctx, table, plugin, played, rules)
    return True


@command("roll", "!roll <dice>  (also !rol d100 or /rol d100)",
         "Roll dice: NdM, d%, keep 4d6kh3, exploding 1d8!, + and -. In a manual-roll "
         "fight your /rol d100 is your roll.", aliases=("rol",), reads_only=True,
         examples=(Example(("ann !roll 4d6kh3",), "ann rolls 4d6kh3 = [6, 5, 3, (1)] = 14",
                                 dice=(6, 5, 3, 1)),))
def roll_dice(ctx: Ctx) -> None:
    """Dice for anyone; in a manual-roll fight a fighter's roll of one die is a fight
    roll (:func:`manual_roll`)."""
    if manual_roll(ctx):
        return
    result = roll(_expression(" ".join(ctx.args)), ctx.services.dice)
    ctx.say(f"{ctx.msg.sender.nick} rolls {result.describe()}", Priority.CHATTER)


_expression = lru_cache(maxsize=256)(parse)
"""An expression read once (its terms frozen), rolled anew each time; a refusal is not
kept: it is raised again."""


def resume_rolls(services: Services, table: ChannelFight, rules: ChannelRules) -> None:
    """Make, and record, the automatic rolls a fight taken up from storage waits for (it
    was left waiting, or its channel's rolls became automatic while the bot was away);
    the resume line says them."""
    played = due_rolls(table.fighting(), rules, services.dice, services.store)
    table.fight, table.unannounced_events = played.fight, list(played.events)


def resumed(services: Services, table: ChannelFight) -> Outgoing:
    """``Fight resumed: turn 10, Brenna (alice) to act: ...``, for a (re)join, after
    what the rolls made at the start said (``resume_rolls``); a fight they ended ends
    with its anchor, as :func:`announce` says it."""
    fight = table.fighting()
    plugin, who = plugin_of(fight), cast(services, fight)
    unannounced, table.unannounced_events = table.unannounced_events, []
    if fight.state.outcome is not None:
        table.fight, table.timer = None, None
        line = plugin.line(unannounced, fight.state, False, who, fight.awarded, fight.anchor,
                           "Fight resumed:")
        return Outgoing(table.channel, line(None), Priority.FIGHT, line)
    said = plugin.describe(unannounced, who, fight.awarded) + " " if unannounced else ""
    turn = fight.state.progress
    prompt = plugin.prompt(fight.state, not services.settings.rules_of(table).rolls_auto, who)
    if said or not turn:   # what the rolls said, or before the first turn
        return Outgoing(table.channel, f"Fight resumed: {said}{prompt}", Priority.FIGHT)
    return Outgoing(table.channel, f"Fight resumed: turn {turn}, {prompt}", Priority.FIGHT)
