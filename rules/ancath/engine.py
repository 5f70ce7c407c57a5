"""The An Cath fight engine: ``apply(state, command) -> (new_state, events)``.

Theory of operation. A fight is a :class:`FightState` plus a command list. ``start``
builds the first state from two sheets; ``apply`` takes one command and returns the
next state and the events it caused, or raises a :class:`~rules.errors.RulesError`
and changes nothing (states are frozen, so a refusal cannot leave half a change).

``state.awaiting`` always names the side the fight waits for and the kind of input
(:class:`Need`): a decision (an action, a defence, an answer) or a d100 roll, with the
purpose and chance of the roll. Which commands answer which need is the table
``EXPECTS``; Wield, DeclareBonus, Forfeit and ModeratorEnd are checked on their own.

An action (Attack, Double, Press, Test, or a free attack) is a tuple of strikes that
fill in, roll by roll, in R4.11's order: every attack roll, then each hit's defence
choice and roll, then each undefended hit's damage roll. ``_advance`` finds the first
blank and asks for it, so the order lives in one place and replays are exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from rules.ancath.chances import (
    TWO_HANDERS,
    action_problem,
    attack_chance,
    default_loadout,
    defence_options,
    defences_for,
    loadout_problem,
    manoeuvre_chance,
    pair_rule,
    resist_chance,
    secondary_weapon,
    strike_actions,
)
from rules.ancath.commands import (
    AcceptYield,
    Act,
    ChooseOrder,
    Command,
    DeclareBonus,
    Defend,
    Forfeit,
    ModeratorEnd,
    RejectYield,
    Roll,
    Stop,
    Wield,
)
from rules.ancath.damage import choose_leg, diverts, injure, severity
from rules.ancath.events import (
    ActionTaken,
    BonusDeclared,
    BonusEarned,
    DamageRolled,
    DefenceChosen,
    Event,
    FightEnded,
    FightStarted,
    FlightStopped,
    Injured,
    LoadoutSet,
    OrderChosen,
    RangeChanged,
    Rolled,
    TurnStarted,
    WeaponDrawn,
    YieldAnswered,
)
from rules.ancath.rewards import rewards
from rules.ancath.sheet import Sheet, Status
from rules.ancath.state import (
    Action,
    ActionContext,
    Awaiting,
    Bonus,
    BonusUse,
    Defence,
    Ending,
    Fighter,
    FightState,
    Kind,
    Loadout,
    Need,
    Outcome,
    Range,
    RollFor,
    Severity,
    Strike,
    succeeds,
)
from rules.ancath.tables import WEAPONS, Hit, Location, damage_result
from rules.common import check_command
from rules.errors import IllegalCommand, InvalidRoll, NotYourTurn, Unavailable

__all__ = ["EXPECTS", "apply", "replay", "start", "undo_point"]

EXPECTS: dict[Need, tuple[type, ...]] = {
    Need.ORDER: (ChooseOrder,),
    Need.ACTION: (Act,),
    Need.DEFENCE: (Defend,),
    Need.YIELD_ANSWER: (AcceptYield, RejectYield),
    Need.FLEE_ANSWER: (Stop, Act),
    Need.LAST_TURN: (Act,),
    Need.ROLL: (Roll,),
}
"""Which commands answer each need; anything else is refused."""

_NEED_WORDS = {
    Need.ORDER: "choose to go first or second",
    Need.ACTION: "choose an action",
    Need.DEFENCE: "choose a defence",
    Need.YIELD_ANSWER: "accept or reject the yield",
    Need.FLEE_ANSWER: "stop the flight or take a last attack",
    Need.LAST_TURN: "take a last attack, double or press",
}

Out = list[Event]


def start(kind: Kind, challenger: Sheet, defender: Sheet) -> tuple[FightState, tuple[Event, ...]]:
    """A new fight at standard range with default loadouts (R3.1-R3.7)."""
    for sheet in (challenger, defender):
        if sheet.status is not Status.FREE:
            state = "a prisoner" if sheet.status is Status.PRISONER else sheet.status.value
            raise IllegalCommand(f"{sheet.name} is {state} and cannot fight")
    if challenger.name.casefold() == defender.name.casefold():
        raise IllegalCommand("a warrior cannot fight themself")
    fighters = (_fighter(challenger, default_loadout(challenger)),
                _fighter(defender, default_loadout(defender)))
    out: Out = [FightStarted(kind, (challenger.name, defender.name))]
    out += [_loadout_event(side, f) for side, f in enumerate(fighters)]
    if challenger.bp != defender.bp:
        awaiting = Awaiting(0 if challenger.bp > defender.bp else 1, Need.ORDER)
    else:
        awaiting = Awaiting(0, Need.ROLL, RollFor.INITIATIVE)
    return FightState(kind, fighters, awaiting), tuple(out)


def apply(state: FightState, command: Command) -> tuple[FightState, tuple[Event, ...]]:
    """Apply one command; raise a RulesError, changing nothing, when it is refused."""
    out: Out = []
    return _apply(state, command, out), tuple(out)


def replay(
    kind: Kind, sheets: tuple[Sheet, Sheet], commands: Iterable[Command]
) -> tuple[FightState, tuple[Event, ...]]:
    """Rebuild a fight from its command list; the events are those of every step."""
    state, first = start(kind, *sheets)
    out: Out = list(first)
    for command in commands:
        state = _apply(state, command, out)
    return state, tuple(out)


def undo_point(commands: Sequence[Command]) -> int:
    """How many commands remain after a moderator's undo (R8.1 as the club applies it):
    the index of the last command that is not a Roll.

    An undo takes back one decision (Act, Defend, ChooseOrder, Wield, DeclareBonus,
    AcceptYield, RejectYield, Stop, Forfeit or ModeratorEnd) with the rolls after it,
    and no more: undoing a Defend keeps the attack roll and asks the defender again.
    Rolls alone (initiative) are nothing to undo."""
    for index in range(len(commands) - 1, -1, -1):
        if not isinstance(commands[index], Roll):
            return index
    raise IllegalCommand("nothing to undo")


# -- dispatch ---------------------------------------------------------------------------


def _apply(state: FightState, command: Command, out: Out) -> FightState:
    check_command(state, command)
    if isinstance(command, ModeratorEnd):
        ending = Ending.DRAW if command.winner is None else Ending.MODERATOR
        return _end(state, Outcome(ending, command.winner), out)
    if isinstance(command, Wield):
        return _wield(state, command, out)
    if isinstance(command, DeclareBonus):
        return _declare(state, command, out)
    awaiting = state.awaiting
    assert awaiting is not None  # check_command saw to it
    if command.side != awaiting.side:
        raise NotYourTurn(f"waiting for {_name(state, awaiting.side)} to {_need_words(awaiting)}")
    if isinstance(command, Forfeit):
        return _end(state, Outcome(Ending.FORFEIT, 1 - command.side), out)
    if not isinstance(command, EXPECTS[awaiting.need]):
        raise IllegalCommand(f"{_name(state, command.side)}, first {_need_words(awaiting)}")
    handler: Callable[[FightState, Any, Out], FightState] = _HANDLERS[type(command)]
    return handler(state, command, out)


def _name(state: FightState, side: int) -> str:
    return state.fighters[side].name


def _need_words(awaiting: Awaiting) -> str:
    if awaiting.need is Need.ROLL:
        assert awaiting.roll_for is not None
        return f"roll d100 for {awaiting.roll_for.value}"
    return _NEED_WORDS[awaiting.need]


# -- small state helpers ----------------------------------------------------------------


def _fighter(sheet: Sheet, loadout: Loadout) -> Fighter:
    return Fighter(sheet, loadout, defences_for(sheet, loadout), loadout.weapon, {})


def _loadout_event(side: int, f: Fighter) -> LoadoutSet:
    d = f.defences
    return LoadoutSet(side, f.loadout.weapon, f.loadout.shield, f.loadout.two_handed,
                      d.dodge, d.block, d.parry)


def _with(state: FightState, side: int, fighter: Fighter) -> FightState:
    pair = (fighter, state.fighters[1]) if side == 0 else (state.fighters[0], fighter)
    return replace(state, fighters=pair)


def _context(state: FightState) -> ActionContext:
    assert state.context is not None
    return state.context


def _with_strike(state: FightState, index: int, strike: Strike, **changes: Any) -> FightState:
    ctx = _context(state)
    strikes = (*ctx.strikes[:index], strike, *ctx.strikes[index + 1:])
    return replace(state, context=replace(ctx, strikes=strikes, **changes))


def _await(state: FightState, awaiting: Awaiting) -> FightState:
    return replace(state, awaiting=awaiting)


# -- setup ------------------------------------------------------------------------------


def _wield(state: FightState, command: Wield, out: Out) -> FightState:
    if state.started:
        raise Unavailable("loadouts are fixed once the first action is taken")
    fighter = state.fighters[command.side]
    loadout = Loadout(command.weapon, command.shield, command.two_handed)
    problem = loadout_problem(fighter.sheet, loadout)
    if problem:
        raise Unavailable(problem)
    fighter = _fighter(fighter.sheet, loadout)
    out.append(_loadout_event(command.side, fighter))
    return _with(state, command.side, fighter)


def _initiative(state: FightState, side: int, roll: int, out: Out) -> FightState:
    rolls = (roll, None) if side == 0 else (state.initiative[0], roll)
    out.append(Rolled(side, RollFor.INITIATIVE, roll, None, None))
    state = replace(state, initiative=rolls)
    if side == 0:
        return _await(state, Awaiting(1, Need.ROLL, RollFor.INITIATIVE))
    first, second = rolls
    if first == second:
        return _await(replace(state, initiative=(None, None)),
                      Awaiting(0, Need.ROLL, RollFor.INITIATIVE))
    assert first is not None and second is not None
    return _await(state, Awaiting(0 if first > second else 1, Need.ORDER))


def _choose_order(state: FightState, command: ChooseOrder, out: Out) -> FightState:
    first = command.side if command.first else 1 - command.side
    out.append(OrderChosen(first))
    return _start_turn(replace(state, initiative=(None, None)), first, out)


# -- turns ------------------------------------------------------------------------------


def _start_turn(state: FightState, side: int, out: Out, last_turn: bool = False) -> FightState:
    turn = state.turn + 1
    fighters = []
    for index, f in enumerate(state.fighters):
        if f.bonus is not None and f.bonus.earned_turn + 2 < turn:
            f = replace(f, bonus=None)  # lapses after the holder's next turn (R4.5)
        if index == side:
            f = replace(f, press_penalty=False, pair_doubled=False)
        fighters.append(f)
    state = replace(state, turn=turn, actor=side, context=None,
                    fighters=(fighters[0], fighters[1]))
    out.append(TurnStarted(side, turn, last_turn))
    fighter = state.fighters[side]
    if fighter.must_draw and not fighter.armless:  # the turn is spent drawing (R6.5)
        weapon = secondary_weapon(fighter.sheet) or fighter.weapon
        state = _with(state, side, replace(fighter, must_draw=False, weapon=weapon))
        out.append(WeaponDrawn(side, weapon))
        return _escape(state, out) if last_turn else _end_turn(state, out)
    state = _with(state, side, replace(fighter, must_draw=False, dodge_only=False))
    if last_turn:
        if fighter.armless:
            return _escape(state, out)
        return _await(state, Awaiting(side, Need.LAST_TURN))
    return _await(state, Awaiting(side, Need.ACTION))


def _end_turn(state: FightState, out: Out) -> FightState:
    assert state.actor is not None
    side = state.actor
    fighter = state.fighters[side]
    if fighter.earned is not None:  # a new bonus replaces the old one (R4.5)
        state = _with(state, side, replace(fighter, bonus=fighter.earned, earned=None))
    return _start_turn(replace(state, context=None), 1 - side, out)


def _act(state: FightState, command: Act, out: Out) -> FightState:
    need = state.awaiting.need if state.awaiting else None
    side, action = command.side, command.action
    problem = action_problem(state, side, action)
    if problem is None and need is not Need.ACTION and action not in strike_actions():
        problem = "a flight's last turn is attack, double or press"
    if problem is None and state.fighters[side].must_draw:
        problem = "weapon arm disabled, the next turn goes to drawing a weapon"
    if problem:
        raise Unavailable(f"{_name(state, side)} cannot {action.value}: {problem}")
    if need is Need.FLEE_ANSWER:
        state = _start_turn(state, side, out, last_turn=True)
    return _begin(state, side, action, out)


def _begin(state: FightState, side: int, action: Action, out: Out) -> FightState:
    state = replace(state, started=True)
    out.append(ActionTaken(side, action))
    fighter = state.fighters[side]
    if action in strike_actions():
        count = 2 if action is Action.DOUBLE else 1
        ctx = ActionContext(action, side, (Strike(fighter.weapon),) * count)
        return _advance(replace(state, context=ctx), out)
    if action is Action.TEST:
        return _advance(replace(state, context=ActionContext(action, side, (Strike(None),))), out)
    state = replace(state, context=ActionContext(action, side))
    opponent = 1 - side
    if action is Action.YIELD:
        return _await(state, Awaiting(opponent, Need.YIELD_ANSWER))
    if action in (Action.CLOSE, Action.OPEN):
        chance = manoeuvre_chance(state, side)
        return _await(state, Awaiting(side, Need.ROLL, RollFor.MANOEUVRE, chance))
    # Flee (R4.8): the opponent answers, unless there is nothing to answer with.
    state = replace(state, fleeing=side)
    if resist_chance(state, opponent) is None and not _can_strike(state.fighters[opponent]):
        return _escape(state, out)
    return _await(state, Awaiting(opponent, Need.FLEE_ANSWER))


def _can_strike(fighter: Fighter) -> bool:
    return not (fighter.armless or fighter.must_draw)


# -- strikes ----------------------------------------------------------------------------


def _advance(state: FightState, out: Out) -> FightState:
    """Ask for the next blank of the action in R4.11's order, or finish it."""
    ctx = _context(state)
    actor, defender = ctx.actor, 1 - ctx.actor
    for index, strike in enumerate(ctx.strikes):
        if strike.roll is None:
            roll_for = RollFor.TEST if ctx.action is Action.TEST else RollFor.ATTACK
            chance = attack_chance(state, ctx, index)
            return _await(state, Awaiting(actor, Need.ROLL, roll_for, chance))
    for index, strike in enumerate(ctx.strikes):
        if not strike.hit:
            continue
        if strike.defence is None:
            options = defence_options(state, ctx)
            if len(options) > 1:
                return _await(state, Awaiting(defender, Need.DEFENCE))
            state = _choose_defence(state, index, Defence.LUCK, out)  # nothing else (R5.1)
            strike = _context(state).strikes[index]
        if strike.defence_roll is None:
            assert strike.defence is not None
            chance = defence_options(state, _context(state))[strike.defence]
            return _await(state, Awaiting(defender, Need.ROLL, RollFor.DEFENCE, chance))
    if ctx.action is not Action.TEST:
        for strike in ctx.strikes:
            if strike.hit and not strike.defended and strike.damage_roll is None:
                return _await(state, Awaiting(actor, Need.ROLL, RollFor.DAMAGE))
    return _finish(state, out)


def _choose_defence(state: FightState, index: int, defence: Defence, out: Out) -> FightState:
    ctx = _context(state)
    out.append(DefenceChosen(1 - ctx.actor, defence))
    return _with_strike(state, index, replace(ctx.strikes[index], defence=defence))


def _defend(state: FightState, command: Defend, out: Out) -> FightState:
    ctx = _context(state)
    options = defence_options(state, ctx)
    if command.defence not in options:
        raise Unavailable(
            f"{_name(state, command.side)} cannot {command.defence.value}: "
            f"{_defence_problem(state, command.side, command.defence)}; "
            f"choose {' or '.join(d.value for d in options)}"
        )
    index = next(i for i, s in enumerate(ctx.strikes) if s.hit and s.defence is None)
    return _advance(_choose_defence(state, index, command.defence, out), out)


def _defence_problem(state: FightState, side: int, defence: Defence) -> str:
    fighter = state.fighters[side]
    ctx = _context(state)
    if state.fleeing == side:
        return "a fleeing warrior defends only with luck"
    if fighter.press_penalty:
        return "pressed last turn, only luck"
    if defence in ctx.defences_used:
        return f"{defence.value} already used this turn"
    if defence is Defence.DODGE:
        leg = "right" if fighter.disabled(Location.RIGHT_LEG) else "left"
        return f"{leg} leg disabled"
    if fighter.dodge_only:
        return "drawing a new weapon, only dodge or luck"
    if fighter.defences.block is None:
        return "nothing to block with"
    if fighter.pair_doubled:
        return "both swords were just used to double"
    return "arm disabled"


def _roll(state: FightState, command: Roll, out: Out) -> FightState:
    value = command.value
    if type(value) is not int or not 1 <= value <= 100:
        raise InvalidRoll(f"a d100 roll is 1..100, not {value}")
    awaiting = state.awaiting
    assert awaiting is not None and awaiting.roll_for is not None
    roll_for, side, chance = awaiting.roll_for, command.side, awaiting.chance
    if roll_for is RollFor.INITIATIVE:
        return _initiative(state, side, value, out)
    success = None if chance is None else succeeds(value, chance)
    out.append(Rolled(side, roll_for, value, chance, success))
    if roll_for in (RollFor.ATTACK, RollFor.TEST):
        index = next(i for i, s in enumerate(_context(state).strikes) if s.roll is None)
        strike = replace(_context(state).strikes[index], roll=value, chance=chance)
        return _advance(_with_strike(state, index, strike), out)
    if roll_for is RollFor.DEFENCE:
        ctx = _context(state)
        index = next(i for i, s in enumerate(ctx.strikes) if s.hit and s.defence_roll is None)
        strike = replace(ctx.strikes[index], defence_roll=value, defence_chance=chance)
        used = ctx.defences_used
        if ctx.action is not Action.FREE_ATTACK and strike.defence is not Defence.LUCK:
            used = used | {strike.defence} if strike.defence else used
        return _advance(_with_strike(state, index, strike, defences_used=used), out)
    if roll_for is RollFor.DAMAGE:
        state = _damage(state, value, out)
        return state if state.outcome else _advance(state, out)
    if roll_for is RollFor.MANOEUVRE:
        if not success:
            return _end_turn(state, out)
        resist = resist_chance(state, 1 - side)
        if resist is None:  # a downed opponent cannot resist (R4.7)
            return _end_turn(_shift_range(state, out), out)
        return _await(state, Awaiting(1 - side, Need.ROLL, RollFor.RESIST, resist))
    if roll_for is RollFor.RESIST:
        return _end_turn(state if success else _shift_range(state, out), out)
    # RollFor.STOP
    if success:
        out.append(FlightStopped(side))
        return _end_turn(replace(state, fleeing=None), out)
    return _start_turn(state, side, out, last_turn=True)


def _shift_range(state: FightState, out: Out) -> FightState:
    new = Range.CLOSE if state.range is Range.STANDARD else Range.STANDARD
    out.append(RangeChanged(new))
    return replace(state, range=new)


def _damage(state: FightState, roll: int, out: Out) -> FightState:
    """Roll on the defender's armour column and apply the hit (R6)."""
    ctx = _context(state)
    index = next(
        i for i, s in enumerate(ctx.strikes)
        if s.hit and not s.defended and s.damage_roll is None
    )
    strike = ctx.strikes[index]
    state = _with_strike(state, index, replace(strike, damage_roll=roll))
    attacker, side = ctx.actor, 1 - ctx.actor
    striker, target = state.fighters[attacker], state.fighters[side]
    hit = damage_result(target.sheet.armour, roll)
    assert strike.roll is not None and strike.weapon is not None
    level = severity(strike.roll, strike.weapon)
    if diverts(hit, roll, striker.down, target.down):  # R6.3
        harm = choose_leg(target.injuries, level)
        out.append(DamageRolled(attacker, roll, hit, level, harm.location))
    else:
        location = hit.location
        out.append(DamageRolled(attacker, roll, hit, level if location else None))
        if location is None:
            if hit is Hit.KILL:
                return _end(state, Outcome(Ending.KILL, attacker), out)
            return state  # No Effect
        harm = injure(target.injuries, location, level)
    out.append(Injured(side, harm.location, harm.severity, harm.rule, harm.killed))
    target = replace(target, injuries=harm.injuries)
    arm_lost = harm.location is Location.WEAPON_ARM and harm.severity is Severity.DISABLED
    if arm_lost and target.weapon in TWO_HANDERS and target.weapon is target.loadout.weapon:
        target = replace(target, must_draw=True, dodge_only=True)  # R6.5
    state = _with(state, side, target)
    if harm.killed:
        return _end(state, Outcome(Ending.KILL, attacker), out)
    if state.kind is Kind.DUEL:  # first blood (R3.2)
        return _end(state, Outcome(Ending.FIRST_BLOOD, attacker), out)
    return state


def _finish(state: FightState, out: Out) -> FightState:
    """An action's rolls are all made: its after-effects, then the next turn."""
    ctx = _context(state)
    side = ctx.actor
    fighter = state.fighters[side]
    if ctx.action is Action.FREE_ATTACK:
        return _end_turn(state, out)
    if ctx.action is Action.TEST:
        strike = ctx.strikes[0]
        amount = _test_bonus(strike)
        if amount:
            fighter = replace(fighter, earned=Bonus(amount, state.turn))
            out.append(BonusEarned(side, amount))
    elif ctx.action is Action.PRESS:
        fighter = replace(fighter, press_penalty=True)
    elif ctx.action is Action.DOUBLE:
        if pair_rule(fighter):
            fighter = replace(fighter, pair_doubled=True)
        else:
            fighter = replace(fighter, press_penalty=True)
    state = _with(state, side, fighter)
    if state.fleeing is not None:  # this was the last turn against a flight (R4.8)
        if state.fighters[state.fleeing].down:
            return _end_turn(replace(state, fleeing=None), out)
        return _escape(state, out)
    opponent = state.fighters[1 - side]
    strike = ctx.strikes[0]
    if (ctx.action in (Action.ATTACK, Action.PRESS) and strike.roll is not None
            and strike.roll >= 81 and not strike.hit and WEAPONS[fighter.weapon].slow
            and not WEAPONS[opponent.weapon].slow and _can_strike(opponent)):
        out.append(ActionTaken(1 - side, Action.FREE_ATTACK))  # R4.10
        free = ActionContext(Action.FREE_ATTACK, 1 - side, (Strike(opponent.weapon),))
        return _advance(replace(state, context=free), out)
    return _end_turn(state, out)


def _test_bonus(strike: Strike) -> int:
    """0, 10 or 30 from a Test and the defence against it (R4.4)."""
    if not strike.hit:
        return 0
    if not strike.defended:
        return 30
    assert strike.defence_roll is not None and strike.roll is not None
    return 10 if strike.defence_roll > strike.roll else 0


# -- answers ----------------------------------------------------------------------------


def _accept_yield(state: FightState, command: AcceptYield, out: Out) -> FightState:
    prisoner = command.prisoner
    if state.kind is Kind.MORTAL:
        prisoner = True if prisoner is None else prisoner
    elif prisoner:
        raise Unavailable("prisoners are taken only in mortal fights")
    if command.ransom and not prisoner:
        raise Unavailable("a ransom goes with taking a prisoner")
    out.append(YieldAnswered(command.side, True))
    outcome = Outcome(Ending.YIELD, command.side, bool(prisoner), command.ransom or None)
    return _end(state, outcome, out)


def _reject_yield(state: FightState, command: RejectYield, out: Out) -> FightState:
    out.append(YieldAnswered(command.side, False))
    return _end_turn(state, out)


def _stop(state: FightState, command: Stop, out: Out) -> FightState:
    chance = resist_chance(state, command.side)
    if chance is None:
        raise Unavailable(f"{_name(state, command.side)} cannot stop the flight: leg disabled")
    return _await(state, Awaiting(command.side, Need.ROLL, RollFor.STOP, chance))


def _declare(state: FightState, command: DeclareBonus, out: Out) -> FightState:
    fighter = state.fighters[command.side]
    bonus = fighter.bonus
    if bonus is None:
        raise Unavailable(f"{fighter.name} holds no test bonus")
    if bonus.use is not None:
        raise Unavailable(f"{fighter.name}'s bonus is already declared for {bonus.use.value}")
    if command.use is BonusUse.DEFENCE and state.turn > bonus.earned_turn + 1:
        raise Unavailable("too late to use the bonus for defence")
    out.append(BonusDeclared(command.side, command.use))
    state = _with(state, command.side, replace(fighter, bonus=replace(bonus, use=command.use)))
    return _rechance(state, out)


def _rechance(state: FightState, out: Out) -> FightState:
    """Recompute a pending roll's chance after a bonus declaration."""
    awaiting = state.awaiting
    if awaiting is None or awaiting.need is not Need.ROLL:
        return state
    if awaiting.roll_for in (RollFor.ATTACK, RollFor.TEST, RollFor.DEFENCE):
        return _advance(state, out)
    if awaiting.roll_for in (RollFor.RESIST, RollFor.STOP):
        return _await(state, replace(awaiting, chance=resist_chance(state, awaiting.side)))
    return state


# -- endings ----------------------------------------------------------------------------


def _escape(state: FightState, out: Out) -> FightState:
    assert state.fleeing is not None
    return _end(state, Outcome(Ending.ESCAPE, 1 - state.fleeing), out)


def _end(state: FightState, outcome: Outcome, out: Out) -> FightState:
    out.append(FightEnded(outcome))
    out.extend(rewards(state.kind, outcome))
    return replace(state, outcome=outcome, awaiting=None, context=None)


_HANDLERS: dict[type, Callable[[FightState, Any, Out], FightState]] = {
    ChooseOrder: _choose_order,
    Act: _act,
    Defend: _defend,
    AcceptYield: _accept_yield,
    RejectYield: _reject_yield,
    Stop: _stop,
    Roll: _roll,
}
