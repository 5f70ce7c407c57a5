"""Fights in channels: the fighters' commands, automatic or manual rolls. Challenges
are :mod:`bot.fights.challenges`', time limits :mod:`bot.fights.time_limits`', a moderator's rulings
:mod:`bot.fights.rulings`'.

One :class:`bot.fights.table.Table` per channel holds the pending challenge or the
open fight. Every
accepted engine command is recorded before anything is said about it, and answered in
one line (``announce``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bot.chat.messages import Incoming, Outgoing, Priority
from bot.chat.registry import Ctx, Example, Precondition, Services, Spec, channel_only, command
from bot.dice import roll
from bot.fights.table import NO_FIGHT, Table
from bot.fights.turn_timer import TurnTimer
from bot.irc.text import DEFAULT_BUDGET
from bot.refusals import Refusal
from bot.systems.plugin import Plugin, Verb, help_lines
from bot.systems.registry import PLUGINS
from bot.wording.common import Cast
from bot.wording.fit import Say
from rules.system import RulesState
from storage.store import OpenFight, Step

__all__ = [
    "announce", "auto_rolls", "cast", "catch_up", "fight_roll", "fight_step", "fight_verb",
    "fighter_only", "is_manual", "names_of", "restart_timer", "resumed", "roll_dice",
    "side_of", "table_of", "timeout", "ui_of", "verb_commands",
]


def table_of(ctx: Ctx) -> Table:
    return ctx.services.tables.table(ctx.channel())


def timeout(ctx: Ctx) -> float:
    """Seconds to decide in this channel (R7.4)."""
    return float(ctx.services.settings.turn_seconds(ctx.channel()))


def names_of(fight: OpenFight) -> tuple[str, ...]:
    return tuple(sheet.name for sheet in fight.sheets)


def cast(services: Services, fight: OpenFight) -> Cast:
    """The fighters, and who plays each as the channel knows them (``Olaf (olaf)``)."""
    names = names_of(fight)
    return Cast(names, tuple(services.identity.people.label(name, account)
                             for name, account in zip(names, fight.accounts, strict=True)))


# -- fight commands ---------------------------------------------------------------------


def _fighter(ctx: Ctx) -> str | None:
    if ctx.msg.channel is None:
        return channel_only.check(ctx)
    table = ctx.services.tables.table(ctx.msg.channel)
    if table.stuck is not None:
        return table.stuck.line
    fight = table.fight
    if fight is None:
        return NO_FIGHT
    if ctx.who not in fight.accounts:
        return f"only {' and '.join(names_of(fight))}'s players act in this fight"
    return None


fighter_only = Precondition("fighter only", _fighter)
"""The sender plays a side in this channel's open fight."""


def side_of(ctx: Ctx, fight: OpenFight) -> int:
    """The sender's side (``fighter_only`` made sure there is one)."""
    return fight.accounts.index(ctx.who)


def fight_step(ctx: Ctx, table: Table, engine_command: Any, actor: str,
               moderator: str | None = None, reason: str | None = None) -> list[Any]:
    """Apply, then make the automatic rolls that follow, and record them all in one
    transaction before anything is said; returns the events."""
    fight = table.fighting()
    state, events = fight.system.apply(fight.state, engine_command)
    steps = [Step(engine_command, actor, state, events)]
    steps += auto_rolls(ctx.services, fight, state)
    return _record(ctx.services, table, steps, moderator, reason)


def _record(services: Services, table: Table, steps: list[Step], moderator: str | None = None,
            reason: str | None = None) -> list[Any]:
    table.fight = services.store.record_steps(table.fighting(), steps, moderator, reason)
    return [event for step in steps for event in step.events]


def auto_rolls(services: Services, fight: OpenFight, state: RulesState) -> list[Step]:
    """In automatic mode the bot rolls every die ``fight`` waits for, from ``state`` on."""
    steps: list[Step] = []
    if services.settings.rolls_mode(fight.channel) != "auto":
        return steps
    ui = ui_of(fight)
    side = _roll_due(state)
    while side is not None:
        roll = ui.roll(side, services.dice.roll(_die(state)))
        state, events = fight.system.apply(state, roll)
        steps.append(Step(roll, "bot", state, events))
        side = _roll_due(state)
    return steps


def catch_up(ctx: Ctx, head: str) -> bool:
    """After a switch to automatic rolls, make the rolls the fight already waits for,
    said after ``head`` in one line; False when there were none (nothing said)."""
    table = table_of(ctx)
    if table.fight is None:
        return False
    events = _due_rolls(ctx.services, table)
    if events:
        announce(ctx, table, events, head)
    return bool(events)


def _due_rolls(services: Services, table: Table) -> list[Any]:
    """Make, and record, the automatic rolls the table's fight waits for; their events."""
    fight = table.fighting()
    steps = auto_rolls(services, fight, fight.state)
    return _record(services, table, steps) if steps else []


def ui_of(fight: OpenFight) -> Plugin[Any, Any]:
    """The fight's rules system as the bot plays it."""
    return PLUGINS[fight.system.name]


def _roll_due(state: RulesState) -> int | None:
    awaiting = state.awaiting
    return awaiting.side if awaiting is not None and awaiting.is_roll else None


def _die(state: RulesState) -> int:
    """The die the fight waits for: d100 in An Cath, d20 or a damage die elsewhere."""
    assert state.awaiting is not None
    return state.awaiting.die


def is_manual(services: Services, table: Table) -> bool:
    return bool(services.settings.rolls_mode(table.channel) == "manual")


def announce(ctx: Ctx, table: Table, events: list[Any], head: str | Say = "",
             opening: bool = False) -> None:
    """Say what happened and who moves next in one line (``head`` first, and who fights
    whom when ``opening``), what it says cut to fit the server's line, never the options
    (:meth:`Plugin.line`). The time limit starts again only when the fight moved on
    (:class:`TurnTimer`, R7.4). A fight's end ends with the ledger head its closing row
    made (``ledger #4123 9f2c1a7e4305b5ca``): an anchor in the channel's log that
    ``audit verify --anchors`` checks, so it too is said in one line, whole."""
    fight = table.fighting()
    line = ui_of(fight).line(events, fight.state, is_manual(ctx.services, table),
                             cast(ctx.services, fight), fight.awarded, fight.anchor, head,
                             opening)
    ctx.say(line(None), fit=line)
    if fight.state.outcome is not None:
        table.fight, table.timer = None, None
        return
    now, seconds = ctx.services.clock.now(), ctx.services.settings.turn_seconds(table.channel)
    table.timer = TurnTimer.start(fight.state, now, seconds) if table.timer is None \
        else table.timer.restart_if_moved(fight.state, now, seconds)


def restart_timer(services: Services, table: Table) -> None:
    """The time to decide starts again now, moved on or not (a resumed fight, an undo)."""
    table.timer = TurnTimer.start(table.fighting().state, services.clock.now(),
                                  services.settings.turn_seconds(table.channel))


@fighter_only
def fight_verb(ctx: Ctx) -> None:
    """A fight verb (``fighter_only`` holds): the fight's own rules system says which
    command it is. A verb of another system is refused as that, after its words."""
    table = table_of(ctx)
    fight = table.fighting()
    ui = ui_of(fight)
    verb = ui.verbs.get(ctx.name)
    if verb is None:
        _any_verb(ctx.name).parse(0, ctx.args)
        raise Refusal(f"!{ctx.name} is not a move in a {ui.label} fight; !status shows yours")
    engine_command = verb.parse(side_of(ctx, fight), ctx.args)
    announce(ctx, table, fight_step(ctx, table, engine_command, ctx.who))


def _any_verb(name: str) -> Verb[Any]:
    """The first registered system's verb of that name."""
    return next(p.verbs[name] for p in PLUGINS.values() if name in p.verbs)


def verb_commands(plugins: Iterable[Plugin[Any, Any]]) -> tuple[Spec, ...]:
    """Every chat verb of ``plugins`` as a fight command (one per name)."""
    return tuple(Spec(name, usage, summary, fight_verb, group="fight",
                      preconditions=(fighter_only,))
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
    return ui_of(fight).status(fight.state, is_manual(ctx.services, table),
                               cast(ctx.services, fight))


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


def _one_die(word: str) -> int | None:
    """The faces of a roll of one die (``d100``, ``1d20``, ``d%``), else None."""
    word = word.lower().removeprefix("1")
    if word == "d%":
        return 100
    faces = word.removeprefix("d")
    return int(faces) if word.startswith("d") and faces.isdecimal() and len(faces) < 5 else None


def fight_roll(services: Services, msg: Incoming, args: list[str]) -> bool:
    """Whether a roll of ``args`` by this sender is a fight roll: one die, by a fighter
    of the channel's fight, in a manual-roll channel."""
    if msg.channel is None or len(args) != 1 or _one_die(args[0]) is None:
        return False
    table = services.tables.get(msg.channel)
    if table is None or table.fight is None:
        return False
    return msg.sender.identity in table.fight.accounts and is_manual(services, table)


def manual_roll(ctx: Ctx) -> bool:
    """In manual mode a fighter's roll of one die is a fight roll: the awaited fighter's
    roll of the awaited die (d100 in An Cath, d20 or a damage die elsewhere) drives the
    fight; any other fighter's, or one when no roll is due, is refused and rolls
    nothing. True when the line was handled here."""
    if not fight_roll(ctx.services, ctx.msg, ctx.args):
        return False
    ctx.writing()
    table = table_of(ctx)
    fight = table.fighting()
    faces = _one_die(ctx.args[0])
    ui, due = ui_of(fight), _roll_due(fight.state)
    if due is None:
        raise Refusal("not a roll now: " + ui.prompt(fight.state, True, cast(ctx.services, fight)))
    die = _die(fight.state)
    if fight.accounts[due] != ctx.who:
        raise Refusal(f"not your roll: {ui.waiting(fight.state)} is awaited")
    if faces != die:
        raise Refusal(f"roll d{die} for this, not d{faces}")
    step = ui.roll(due, ctx.services.dice.roll(die))
    announce(ctx, table, fight_step(ctx, table, step, ctx.who))
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
    result = roll(" ".join(ctx.args), ctx.services.dice)
    ctx.say(f"{ctx.msg.sender.nick} rolls {result.describe()}", Priority.CHATTER)


def resume_rolls(services: Services, table: Table) -> None:
    """Make, and record, the automatic rolls a fight taken up from storage waits for (it
    was left waiting, or its channel's rolls became automatic while the bot was away);
    the resume line says them."""
    table.unsaid = _due_rolls(services, table)


def resumed(services: Services, table: Table) -> Outgoing:
    """``Fight resumed: turn 10, Brenna (alice) to act: ...``, for a (re)join, after
    what the rolls made at the start said (``resume_rolls``); a fight they ended ends
    with its anchor, as :func:`announce` says it."""
    fight = table.fighting()
    ui, who = ui_of(fight), cast(services, fight)
    unsaid, table.unsaid = table.unsaid, []
    if fight.state.outcome is not None:
        table.fight, table.timer = None, None
        line = ui.line(unsaid, fight.state, False, who, fight.awarded, fight.anchor,
                       "Fight resumed:")
        return Outgoing(table.channel, line(None), Priority.FIGHT, line)
    said = ui.describe(unsaid, who, fight.awarded) + " " if unsaid else ""
    turn = fight.state.progress
    prompt = ui.prompt(fight.state, is_manual(services, table), who)
    if said or not turn:   # what the rolls said, or before the first turn
        return Outgoing(table.channel, f"Fight resumed: {said}{prompt}", Priority.FIGHT)
    return Outgoing(table.channel, f"Fight resumed: turn {turn}, {prompt}", Priority.FIGHT)
