"""The General-rules skirmish engine (R10.2-R10.4): turns alternate, challenger first;
an attack is a d20 Test of the weapon skill, a hit meets a Parry Test (half the skill
plus armour Defense), then Base Damage and weapon dice, each rolled up, less Protection;
a blow of more than half Total Health calls for a Strength Test (knockback and stun).

Stun (R10.3): a fighter who fails the Strength Test spends their next own turn getting
up (it comes straight after the knockdown, turns alternating strictly), stays
``stunned`` for the rest of that round, and the Parry against the opponent's next
attack is at -``STUN_PENALTY``. That attack's roll uses the stun up, hit or miss; the
attack after it meets a full Parry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rules.common import check_command, undo_point
from rules.errors import IllegalCommand, InvalidRoll, NotYourTurn
from rules.general.model import (
    Attack,
    Attacked,
    Awaiting,
    Command,
    DamageDie,
    Ending,
    Event,
    Exchange,
    FightEnded,
    Forfeit,
    GeneralFighter,
    GeneralState,
    GotUp,
    Hit,
    KnockbackTest,
    ModeratorEnd,
    Need,
    Outcome,
    Parried,
    RollFor,
    Side,
    TurnStarted,
    Yield,
)

__all__ = ["STUN_PENALTY", "apply", "start", "undo_point"]

STUN_PENALTY = 5
"""Off the Parry against the opponent's next attack after getting up (R10.3)."""

Out = list[Event]


def start(_kind: str, fighters: Sequence[GeneralFighter]) -> tuple[GeneralState, tuple[Event, ...]]:
    a, b = fighters
    if a.name.casefold() == b.name.casefold():
        raise IllegalCommand("a fighter cannot fight themself")
    state = GeneralState((Side(a, a.health), Side(b, b.health)), Awaiting(0, Need.ACTION))
    return state, (TurnStarted(0, 1),)


def apply(state: GeneralState, command: Command) -> tuple[GeneralState, tuple[Event, ...]]:
    check_command(state, command)
    out: Out = []
    if isinstance(command, ModeratorEnd):
        ending = Ending.DRAW if command.winner is None else Ending.MODERATOR
        return _end(state, Outcome(ending, command.winner), out), tuple(out)
    awaiting = state.awaiting
    assert awaiting is not None
    if command.side != awaiting.side:
        who = state.sides[awaiting.side].fighter.name
        raise NotYourTurn(f"the fight waits for {who} to {_need(awaiting)}")
    if isinstance(command, Forfeit):
        return _end(state, Outcome(Ending.FORFEIT, 1 - command.side), out), tuple(out)
    if isinstance(command, Yield | Attack):
        if awaiting.need is not Need.ACTION:
            raise IllegalCommand(f"first {_need(awaiting)}")
        if isinstance(command, Yield):
            return _end(state, Outcome(Ending.YIELD, 1 - command.side), out), tuple(out)
        fighter = state.sides[command.side].fighter
        state = replace(state, exchange=Exchange(command.side))
        return _await(state, command.side, RollFor.ATTACK, 20, fighter.skill), ()
    if awaiting.need is not Need.ROLL:
        raise IllegalCommand(f"first {_need(awaiting)}")
    if type(command.value) is not int or not 1 <= command.value <= awaiting.die:
        raise InvalidRoll(f"a d{awaiting.die} roll is 1..{awaiting.die}, not {command.value}")
    return _roll(state, command.value, out), tuple(out)


def _need(awaiting: Awaiting) -> str:
    if awaiting.need is Need.ACTION:
        return "attack or yield"
    assert awaiting.roll_for is not None
    return f"roll d{awaiting.die} for {awaiting.roll_for.value}"


def _await(state: GeneralState, side: int, roll_for: RollFor, die: int,
           chance: int | None = None) -> GeneralState:
    return replace(state, awaiting=Awaiting(side, Need.ROLL, roll_for, die, chance))


def _with(state: GeneralState, index: int, side: Side) -> GeneralState:
    sides = (side, state.sides[1]) if index == 0 else (state.sides[0], side)
    return replace(state, sides=sides)


def _roll(state: GeneralState, value: int, out: Out) -> GeneralState:
    awaiting = state.awaiting
    exchange = state.exchange
    assert awaiting is not None and exchange is not None
    attacker, defender = exchange.attacker, 1 - exchange.attacker
    target = state.sides[defender]
    if awaiting.roll_for is RollFor.ATTACK:
        assert awaiting.chance is not None
        hit = value <= awaiting.chance
        out.append(Attacked(attacker, value, awaiting.chance, hit))
        parry = target.fighter.parry
        if target.stunned:  # this is the attack the stun is for, hit or miss (R10.3)
            parry -= STUN_PENALTY
            state = _with(state, defender, replace(target, stunned=False))
        if not hit:
            return _next_turn(state, out)
        return _await(state, defender, RollFor.PARRY, 20, parry)
    if awaiting.roll_for is RollFor.PARRY:
        assert awaiting.chance is not None
        held = value <= awaiting.chance
        out.append(Parried(defender, value, awaiting.chance, held))
        if held:
            return _next_turn(state, out)
        striker = state.sides[attacker].fighter
        dice = (striker.base.sides,) * striker.base.count + (
            striker.weapon.sides,) * striker.weapon.count
        exchange = replace(exchange, dice=dice, rolled=striker.base.bonus + striker.weapon.bonus)
        return _await(replace(state, exchange=exchange), attacker, RollFor.DAMAGE, dice[0])
    if awaiting.roll_for is RollFor.DAMAGE:
        return _damage(state, exchange, value, out)
    # knockback: a Strength Test (R10.3)
    kept = value <= target.fighter.strength
    out.append(KnockbackTest(defender, value, target.fighter.strength, kept))
    return _next_turn(state, out, getting_up=not kept)


def _damage(state: GeneralState, exchange: Exchange, value: int, out: Out) -> GeneralState:
    """One damage die; a top face rolls again before the next die (R10.1, R10.2)."""
    die = exchange.dice[0]
    rolled_up = value == die
    out.append(DamageDie(exchange.attacker, die, value, rolled_up))
    remaining = exchange.dice if rolled_up else exchange.dice[1:]
    exchange = replace(exchange, dice=remaining, rolled=exchange.rolled + value)
    state = replace(state, exchange=exchange)
    if remaining:
        return _await(state, exchange.attacker, RollFor.DAMAGE, remaining[0])
    defender = 1 - exchange.attacker
    target = state.sides[defender]
    damage = max(0, exchange.rolled - target.fighter.protection)
    target = replace(target, current=target.current - damage)
    out.append(Hit(defender, exchange.rolled, damage, target.current))
    state = _with(state, defender, target)
    if target.current <= 0:  # unconscious (R10.4)
        return _end(state, Outcome(Ending.UNCONSCIOUS, exchange.attacker), out)
    if 2 * damage > target.fighter.health:
        return _await(state, defender, RollFor.KNOCKBACK, 20, target.fighter.strength)
    return _next_turn(state, out)


def _next_turn(state: GeneralState, out: Out, getting_up: bool = False) -> GeneralState:
    """The other side's turn; a knocked-down fighter spends it getting up and is still
    stunned for the opponent's next attack (R10.3)."""
    actor = 1 - state.actor
    state = replace(state, actor=actor, turn=state.turn + 1, exchange=None)
    out.append(TurnStarted(actor, state.turn))
    if getting_up:
        out.append(GotUp(actor))
        state = _with(state, actor, replace(state.sides[actor], stunned=True))
        return _next_turn(state, out)
    return replace(state, awaiting=Awaiting(actor, Need.ACTION))


def _end(state: GeneralState, outcome: Outcome, out: Out) -> GeneralState:
    out.append(FightEnded(outcome))
    return replace(state, outcome=outcome, awaiting=None, exchange=None)
