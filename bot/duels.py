"""Fights in channels: challenges, the fighters' commands, automatic or manual rolls.
Time limits are :mod:`bot.time_limits`', a moderator's rulings :mod:`bot.rulings`'.

One :class:`Table` per channel holds the pending challenge or the open fight. Every
accepted engine command is recorded before anything is said about it, and answered in
one line (``announce``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.commands import Ctx, Example, Refusal, command
from bot.messages import Incoming
from bot.systems import UIS, VERB_SUMMARIES, SystemUI
from bot.wording import Cast
from rules.ancath.commands import AcceptYield, DeclareBonus, Wield
from rules.ancath.state import BonusUse
from rules.ancath.tables import Weapon
from rules.systems import SYSTEMS
from storage.store import ChallengeRecord, OpenFight, Step

__all__ = [
    "Challenge", "Table", "announce", "cast", "catch_up", "fight_roll", "fight_step",
    "is_manual",
    "names_of", "progress", "restart_clock", "resumed", "side_of", "table_of", "timeout",
    "ui_of",
]

KINDS = SYSTEMS["ancath"].kinds
_STATUS_WORDS = {"prisoner": "a prisoner", "dead": "dead", "free": "free"}


@dataclass
class Challenge:
    challenger: str
    """The challenging warrior's name."""
    challenger_account: str
    target: str
    target_account: str
    kind: str
    expires: float


@dataclass
class Table:
    channel: str
    challenge: Challenge | None = None
    fight: OpenFight | None = None
    last_fight_id: int | None = None
    """The newest fight here, open or just ended: what ``!mod undo`` works on."""
    deadline: float | None = None
    warned: bool = False
    expired: bool = False
    unsaid: list[Any] = field(default_factory=list)
    """Events made while no one could hear (the rolls a resumed fight was due): the
    resume line says them."""

    def fighting(self) -> OpenFight:
        if self.fight is None:
            raise Refusal("there is no fight in this channel; start one with !challenge")
        return self.fight


def table_of(ctx: Ctx) -> Table:
    return ctx.referee.table(ctx.channel())


def timeout(ctx: Ctx) -> float:
    """Seconds to decide in this channel (R7.4)."""
    return float(ctx.referee.turn_seconds(ctx.channel()))


def names_of(fight: OpenFight) -> tuple[str, ...]:
    return tuple(sheet.name for sheet in fight.sheets)


def cast(referee: Any, fight: OpenFight) -> Cast:
    """The fighters, and who plays each as the channel knows them (``Olaf (olaf)``)."""
    names = names_of(fight)
    return Cast(names, tuple(referee.people.label(name, account)
                             for name, account in zip(names, fight.accounts, strict=True)))


def _player(ctx: Ctx, warrior: str, identity: str) -> str:
    """Who may answer for a warrior, as the channel knows them (never a user@host)."""
    return ctx.referee.people.name(identity) or f"{warrior}'s player"


# -- challenges -------------------------------------------------------------------------


def _parse_challenge(args: list[str]) -> tuple[str, str | None, str | None]:
    words = list(args)
    kind = None
    if words and words[-1].lower() in KINDS:
        kind = words.pop().lower()
    mine = None
    if len(words) >= 3 and words[-2].lower() == "as":
        mine = words.pop()
        words.pop()
    if len(words) != 1:
        raise Refusal("usage: !challenge <warrior> [as <your warrior>] [practice|duel|mortal]")
    return words[0], mine, kind


def _own_warrior(ctx: Ctx, name: str | None) -> str:
    """The sender's warrior by name, or their only one that is free to fight."""
    store = ctx.referee.store
    if name is not None:
        record = store.warrior(name)
        if record.owner != ctx.who:
            raise Refusal(f"{record.sheet.name} is not yours")
        return str(record.sheet.name)
    ready = [r for r in store.warriors(ctx.who) if r.status == "free" and not r.in_fight]
    if not ready:
        owned = store.warriors(ctx.who)
        busy = ", ".join(
            f"{r.sheet.name} is {'fighting' if r.in_fight else _STATUS_WORDS[r.status]}"
            for r in owned)
        raise Refusal(f"none of your warriors can fight ({busy})" if owned
                      else "you have no warrior yet; make one with !create")
    if len(ready) > 1:
        listed = ", ".join(r.sheet.name for r in ready)
        raise Refusal(f"say which of yours fights: add 'as <name>' ({listed})")
    return str(ready[0].sheet.name)


def _ready(ctx: Ctx, name: str) -> None:
    record = ctx.referee.store.warrior(name)
    if record.status != "free":
        raise Refusal(f"{record.sheet.name} is {_STATUS_WORDS[record.status]} "
                      "and cannot fight")
    if record.in_fight:
        raise Refusal(f"{record.sheet.name} is already in a fight")


@command("challenge", "!challenge <warrior> [as <yours>] [practice|duel|mortal]",
         "Challenge a warrior in this channel; practice unless you say duel or mortal.",
         group="fight", examples=(Example(
             ("gob !create Gorbag goblin club spear", "olaf !create Olaf free-clans axe shield",
              "olaf !challenge Gorbag duel"), "Gorbag, Olaf challenges you"),))
def challenge(ctx: Ctx) -> None:
    table = table_of(ctx)
    if table.fight is not None or table.challenge is not None:
        raise Refusal("this channel already has a fight or a challenge; try another channel")
    target_name, mine, kind = _parse_challenge(ctx.args)
    target = ctx.referee.store.warrior(target_name)
    if target.owner == ctx.who:
        raise Refusal("you cannot challenge your own warrior")
    me = _own_warrior(ctx, mine)
    _ready(ctx, me)
    _ready(ctx, target.sheet.name)
    system = ctx.referee.store.warrior(me).system
    if system != target.system:
        raise Refusal(f"{me} fights by {UIS[system].label} rules, {target.sheet.name} by "
                      f"{UIS[target.system].label}: pick a foe of the same rules")
    if kind is not None and system != "ancath":
        raise Refusal(f"{UIS[system].label} fights have no kinds; leave out '{kind}'")
    kind = kind or SYSTEMS[system].kinds[0]
    challenge = Challenge(me, ctx.who, target.sheet.name, target.owner, kind,
                          ctx.referee.clock.now() + timeout(ctx))
    keep_challenge(ctx.referee, table, challenge)
    ctx.say(f"{target.sheet.name}, {me} challenges you to a {kind} fight: "
            f"{_player(ctx, target.sheet.name, target.owner)} may !accept or !decline.")


@command("decline", "!decline", "Decline the challenge made to your warrior.", group="fight")
def decline(ctx: Ctx) -> None:
    table = table_of(ctx)
    pending = table.challenge
    if pending is None or pending.target_account != ctx.who:
        raise Refusal("there is no challenge to you here")
    keep_challenge(ctx.referee, table, None)
    ctx.say(f"{pending.target} declines {pending.challenger}'s challenge.")


@command("withdraw", "!withdraw", "Take back your challenge.", group="fight")
def withdraw(ctx: Ctx) -> None:
    table = table_of(ctx)
    pending = table.challenge
    if pending is None or pending.challenger_account != ctx.who:
        raise Refusal("you have no challenge here to withdraw")
    keep_challenge(ctx.referee, table, None)
    ctx.say(f"{pending.challenger} withdraws the challenge.")


def keep_challenge(referee: Any, table: Table, challenge: Challenge | None) -> None:
    """Make ``challenge`` the channel's pending one (None: there is none), in storage
    first, so a restart keeps it."""
    if challenge is None:
        referee.store.drop_challenge(table.channel)
    else:
        referee.store.put_challenge(ChallengeRecord(
            table.channel, challenge.challenger, challenge.challenger_account,
            challenge.target, challenge.target_account, challenge.kind))
    table.challenge = challenge


def resume_challenges(referee: Any) -> None:
    """Take up the pending challenges from storage; each time limit starts again now."""
    for kept in referee.store.challenges():
        referee.table(kept.channel).challenge = Challenge(
            kept.challenger, kept.challenger_account, kept.target, kept.target_account,
            kept.kind, referee.clock.now() + referee.turn_seconds(kept.channel))


def _accept_challenge(ctx: Ctx, table: Table) -> None:
    pending = table.challenge
    if pending is None or pending.target_account != ctx.who:
        raise Refusal("there is no challenge to you here")
    target = pending.target
    if len(ctx.args) == 2 and ctx.args[0].lower() == "as":
        target = _own_warrior(ctx, ctx.args[1])
    elif ctx.args:
        raise Refusal("usage: !accept [as <your warrior>]")
    referee = ctx.referee
    system = SYSTEMS[referee.store.warrior(target).system]
    fight, events = referee.store.open_fight(  # with its initiative rolls, one transaction
        table.channel, system, pending.kind,
        [(pending.challenger, pending.challenger_account), (target, ctx.who)], ctx.who,
        rolls=lambda opened: _auto_rolls(ctx.referee, opened, opened.state),
    )
    table.challenge, table.fight, table.last_fight_id = None, fight, fight.id
    announce(ctx, table, list(events), None)


# -- fight commands ---------------------------------------------------------------------


def side_of(ctx: Ctx, fight: OpenFight) -> int:
    if ctx.who not in fight.accounts:
        raise Refusal(f"only {' and '.join(names_of(fight))}'s players act in this fight")
    return fight.accounts.index(ctx.who)


def fight_step(ctx: Ctx, table: Table, engine_command: Any, actor: str,
               moderator: str | None = None, reason: str | None = None) -> list[Any]:
    """Apply, then make the automatic rolls that follow, and record them all in one
    transaction before anything is said; returns the events."""
    fight = table.fighting()
    state, events = fight.system.apply(fight.state, engine_command)
    steps = [Step(engine_command, actor, state, events)]
    steps += _auto_rolls(ctx.referee, fight, state)
    return _record(ctx, table, steps, moderator, reason)


def _record(ctx: Ctx, table: Table, steps: list[Step], moderator: str | None = None,
            reason: str | None = None) -> list[Any]:
    table.fight = ctx.referee.store.record_steps(table.fighting(), steps, moderator, reason)
    return [event for step in steps for event in step.events]


def _auto_rolls(referee: Any, fight: OpenFight, state: Any) -> list[Step]:
    """In automatic mode the bot rolls every die ``fight`` waits for, from ``state`` on."""
    steps: list[Step] = []
    if referee.rolls_mode(fight.channel) != "auto":
        return steps
    ui = ui_of(fight)
    side = _roll_due(state)
    while side is not None:
        roll = ui.roll(side, referee.dice.roll(_die(state)))
        state, events = fight.system.apply(state, roll)
        steps.append(Step(roll, "bot", state, events))
        side = _roll_due(state)
    return steps


def catch_up(ctx: Ctx) -> None:
    """After a switch to automatic rolls, make the rolls the fight already waits for."""
    table = table_of(ctx)
    fight = table.fight
    if fight is None or _roll_due(fight.state) is None:
        return
    steps = _auto_rolls(ctx.referee, fight, fight.state)
    if steps:
        announce(ctx, table, _record(ctx, table, steps), None)


def ui_of(fight: OpenFight) -> SystemUI:
    return UIS[fight.system.name]


def _roll_due(state: Any) -> int | None:
    awaiting = state.awaiting
    due = awaiting is not None and awaiting.need.value == "roll"
    return int(awaiting.side) if due else None


def _die(state: Any) -> int:
    """The die the fight waits for: d100 in An Cath, d20 or a damage die elsewhere."""
    return int(getattr(state.awaiting, "die", 100))


def is_manual(referee: Any, table: Table) -> bool:
    return bool(referee.rolls_mode(table.channel) == "manual")


def announce(ctx: Ctx, table: Table, events: list[Any], before: Any) -> None:
    """Say what happened and who moves next in one line. The time limit starts again
    only when the fight moved on (``before`` is its turn and awaiting before the
    command): a loadout change or a bonus declaration does not stop the clock (R7.4).
    A fight's end ends with the ledger head its closing row made (``ledger #4123
    9f2c1a7e``): an anchor in the channel's log that ``audit verify --anchors`` checks."""
    fight = table.fighting()
    ui, who = ui_of(fight), cast(ctx.referee, fight)
    said = ui.describe(events, who, fight.awarded)
    if fight.state.outcome is not None:
        table.fight, table.deadline = None, None
        ctx.say(f"{said} {fight.anchor}" if fight.anchor else said)
        return
    ctx.say(f"{said} {ui.prompt(fight.state, is_manual(ctx.referee, table), who)}".strip())
    if before != progress(fight):
        restart_clock(ctx, table)


def progress(fight: OpenFight) -> tuple[int, Any]:
    state = fight.state  # An Cath and General rules count turns, Simple Contest rounds
    return getattr(state, "turn", getattr(state, "round", 0)), state.awaiting


def restart_clock(ctx: Ctx, table: Table) -> None:
    table.deadline = ctx.referee.clock.now() + ctx.referee.turn_seconds(table.channel)
    table.warned = table.expired = False


def _act(ctx: Ctx, make: Any) -> None:
    table = table_of(ctx)
    fight = table.fighting()
    side = side_of(ctx, fight)
    engine_command = make(side)
    ui = ui_of(fight)
    if not isinstance(engine_command, ui.commands):
        raise Refusal(f"!{ctx.name} is not a move in a {ui.label} fight; !status shows yours")
    before = progress(fight)
    announce(ctx, table, fight_step(ctx, table, engine_command, ctx.who), before)


def _verb(ctx: Ctx) -> None:
    """A fight verb: the fight's own rules system says which command it is."""
    fight = table_of(ctx).fighting()
    make = ui_of(fight).verbs.get(ctx.name)
    if make is None:
        raise Refusal(f"!{ctx.name} is not a move in a {ui_of(fight).label} fight; "
                      "!status shows yours")
    _act(ctx, make)


for _name, _summary in VERB_SUMMARIES.items():
    command(_name, f"!{_name}", _summary, group="fight")(_verb)


@command("accept", "!accept [as <yours>] | !accept [prisoner [ransom <terms>]|release]",
         "Accept a challenge, or a foe's yield (mortal fights: prisoner or release).",
         group="fight")
def accept(ctx: Ctx) -> None:
    table = table_of(ctx)
    if table.fight is None:
        _accept_challenge(ctx, table)
        return
    words = [w.lower() for w in ctx.args[:2]]
    prisoner: bool | None = None
    ransom = None
    if words in (["prisoner"], ["release"]):
        prisoner = words[0] == "prisoner"
    elif words == ["prisoner", "ransom"] and len(ctx.args) > 2:
        prisoner, ransom = True, " ".join(ctx.args[2:])[:200]
    elif words:
        raise Refusal("usage: !accept, !accept release, or !accept prisoner [ransom <terms>]")
    _act(ctx, lambda side: AcceptYield(side, prisoner, ransom))


@command("bonus", "!bonus attack|defence|reduce",
         "Say where your Test bonus goes (undeclared it reduces the foe's defence).",
         group="fight")
def bonus(ctx: Ctx) -> None:
    word = (ctx.args[0].lower() if ctx.args else "").replace("defense", "defence")
    if word not in {u.value for u in BonusUse}:
        raise Refusal("usage: !bonus attack|defence|reduce")
    _act(ctx, lambda side: DeclareBonus(side, BonusUse(word)))


@command("wield", "!wield <weapon> [shield|two-handed]",
         "Choose your weapon before the first action; countersword is the pair.",
         group="fight")
def wield(ctx: Ctx) -> None:
    if not ctx.args or ctx.args[0].lower() not in {w.value for w in Weapon}:
        weapons = "|".join(w.value for w in Weapon)
        raise Refusal(f"usage: !wield <{weapons}> [shield|two-handed]")
    extras = {a.lower() for a in ctx.args[1:]}
    if extras - {"shield", "two-handed"}:
        raise Refusal("after the weapon say shield or two-handed, or nothing")
    weapon = Weapon(ctx.args[0].lower())
    _act(ctx, lambda side: Wield(side, weapon, "shield" in extras, "two-handed" in extras))


@command("status", "!status", "The fight at a glance and whose move it is.", group="fight",
         reads_only=True)
def show_status(ctx: Ctx) -> None:
    table = table_of(ctx)
    if table.challenge is not None and table.fight is None:
        pending = table.challenge
        ctx.say(f"{pending.challenger} has challenged {pending.target} ({pending.kind}).")
        return
    fight = table.fighting()
    manual = is_manual(ctx.referee, table)
    ctx.say(ui_of(fight).status(fight.state, manual, cast(ctx.referee, fight)))


def _one_die(word: str) -> int | None:
    """The faces of a roll of one die (``d100``, ``1d20``, ``d%``), else None."""
    word = word.lower().removeprefix("1")
    if word == "d%":
        return 100
    faces = word.removeprefix("d")
    return int(faces) if word.startswith("d") and faces.isdecimal() and len(faces) < 5 else None


def fight_roll(referee: Any, msg: Incoming, args: list[str]) -> bool:
    """Whether a roll of ``args`` by this sender is a fight roll: one die, by a fighter
    of the channel's fight, in a manual-roll channel."""
    if msg.channel is None or len(args) != 1 or _one_die(args[0]) is None:
        return False
    table = referee.tables.get(msg.channel.casefold())
    fight = table.fight if table is not None else None
    return (fight is not None and msg.sender.identity in fight.accounts
            and is_manual(referee, table))


def manual_roll(ctx: Ctx) -> bool:
    """In manual mode a fighter's roll of one die is a fight roll: the awaited fighter's
    roll of the awaited die (d100 in An Cath, d20 or a damage die elsewhere) drives the
    fight; any other fighter's, or one when no roll is due, is refused and rolls
    nothing. True when the line was handled here."""
    if not fight_roll(ctx.referee, ctx.msg, ctx.args):
        return False
    table = table_of(ctx)
    fight = table.fighting()
    faces = _one_die(ctx.args[0])
    ui, die, due = ui_of(fight), _die(fight.state), _roll_due(fight.state)
    if due is None:
        raise Refusal("not a roll now: " + ui.prompt(fight.state, True, cast(ctx.referee, fight)))
    if fight.accounts[due] != ctx.who:
        raise Refusal(f"not your roll: {ui.waiting(fight.state)} is awaited")
    if faces != die:
        raise Refusal(f"roll d{die} for this, not d{faces}")
    before = progress(fight)
    step = ui.roll(due, ctx.referee.dice.roll(die))
    announce(ctx, table, fight_step(ctx, table, step, ctx.who), before)
    return True


def resume_rolls(referee: Any, table: Table) -> None:
    """Make, and record, the automatic rolls a fight taken up from storage waits for (it
    was left waiting, or its channel's rolls became automatic while the bot was away);
    the resume line says them."""
    fight = table.fighting()
    steps = _auto_rolls(referee, fight, fight.state)
    if steps:
        table.fight = referee.store.record_steps(fight, steps)
        table.unsaid = [event for step in steps for event in step.events]


def resumed(referee: Any, table: Table) -> str:
    """``Fight resumed: turn 10, Brenna (alice) to act: ...``, for a (re)join, after
    what the rolls made at the start said (``resume_rolls``)."""
    fight = table.fighting()
    ui, who = ui_of(fight), cast(referee, fight)
    said = ui.describe(table.unsaid, who, fight.awarded) + " " if table.unsaid else ""
    table.unsaid = []
    if fight.state.outcome is not None:
        table.fight, table.deadline = None, None
        return f"Fight resumed: {said}{fight.anchor or ''}".strip()
    turn, _ = progress(fight)
    prompt = ui.prompt(fight.state, is_manual(referee, table), who)
    if said or not turn:   # what the rolls said, or before the first turn
        return f"Fight resumed: {said}{prompt}"
    return f"Fight resumed: turn {turn}, {prompt}"
