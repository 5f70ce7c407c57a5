"""Events into chat lines: a turn in one line, then who moves next with their options.

This is the only place that words An Cath for people; the engine's events stay data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.ancath import legal_actions
from rules.ancath.commands import AcceptYield, Act, ChooseOrder, DeclareBonus, Defend, Stop
from rules.ancath.events import (
    ActionTaken,
    BonusDeclared,
    BonusEarned,
    BPAwarded,
    DamageRolled,
    DefenceChosen,
    FightEnded,
    FightStarted,
    FlightStopped,
    Injured,
    InjuryRule,
    LoadoutSet,
    OrderChosen,
    PrisonerTaken,
    RangeChanged,
    Rolled,
    TurnStarted,
    WarriorSlain,
    WeaponDrawn,
    YieldAnswered,
)
from rules.ancath.state import Action, Ending, FightState, Need, Range, RollFor, Severity

__all__ = ["describe", "prompt", "status"]

_ACTION_WORDS = {
    Action.ATTACK: "attacks", Action.DOUBLE: "doubles", Action.PRESS: "presses",
    Action.TEST: "tests", Action.YIELD: "yields", Action.CLOSE: "tries to close",
    Action.OPEN: "tries to open", Action.FLEE: "flees", Action.FREE_ATTACK: "gets a free attack",
}
_DEFENCE_WORDS = {"dodge": "dodges", "block": "blocks", "parry": "parries", "luck": "trusts luck"}
_ROLL_RESULT = {
    RollFor.ATTACK: ("hit", "miss"), RollFor.TEST: ("success", "fail"),
    RollFor.DEFENCE: ("saved", "fails"), RollFor.MANOEUVRE: ("success", "fail"),
    RollFor.RESIST: ("resists", "fails"), RollFor.STOP: ("stopped", "fails"),
}
_ENDINGS = {
    Ending.KILL: "by a kill", Ending.FIRST_BLOOD: "at first blood", Ending.YIELD: "by yield",
    Ending.ESCAPE: "(the foe escaped)", Ending.FORFEIT: "by forfeit",
    Ending.MODERATOR: "by a moderator's ruling",
}


def _bp(tenths: int) -> str:
    return f"{tenths / 10:+.1f}"


def describe(events: Sequence[Any], names: Sequence[str]) -> str:
    """One line for a run of events (a turn, or a setup step)."""
    parts: list[str] = []
    awards: list[str] = []
    for event in events:
        text = _phrase(event, names)
        if isinstance(event, BPAwarded):
            awards.append(f"{names[event.side]} {_bp(event.tenths)}")
        elif text:
            parts.append(text)
    if awards:
        parts.append("BP: " + ", ".join(awards) + ".")
    return " ".join(parts)


def _phrase(event: Any, names: Sequence[str]) -> str:
    match event:
        case FightStarted(kind=kind, names=(a, b)):
            return f"{kind.value.capitalize()} fight: {a} vs {b}."
        case LoadoutSet(side=side, weapon=weapon, shield=shield, two_handed=two, dodge=d,
                        block=b, parry=p):
            grip = " and shield" if shield else " two-handed" if two else ""
            block = f", block {b}" if b is not None else ""
            return f"{names[side]}: {weapon.value}{grip} (dodge {d}{block}, parry {p})."
        case OrderChosen(first=first):
            return f"{names[first]} acts first."
        case TurnStarted(side=side, last_turn=True):
            return f"{names[side]} takes a last turn at the fleeing foe."
        case ActionTaken(side=side, action=action):
            return f"{names[side]} {_ACTION_WORDS[action]}."
        case DefenceChosen(side=side, defence=defence):
            return f"{names[side]} {_DEFENCE_WORDS[defence.value]}."
        case Rolled(side=side, roll_for=RollFor.INITIATIVE, roll=roll):
            return f"{names[side]} rolls {roll} for initiative."
        case Rolled(roll_for=RollFor.DAMAGE):
            return ""  # DamageRolled says it
        case Rolled(roll_for=roll_for, roll=roll, chance=chance, success=success):
            good, bad = _ROLL_RESULT[roll_for]
            return f"[{roll} vs {chance}: {good if success else bad}]"
        case DamageRolled(roll=roll, hit=hit, severity=severity, diverted_to=leg):
            if leg is not None:
                return f"Damage {roll}: {hit.value}, but a downed striker hits the {leg.value}:"
            if severity is None:
                return f"Damage {roll}: {hit.value.replace('-', ' ')}."
            return f"Damage {roll}:"
        case Injured(side=side, location=loc, severity=severity, rule=rule, killed=killed):
            what = "disabled" if severity is Severity.DISABLED else "wounded"
            note = {
                InjuryRule.ARM_TO_TORSO: " (a disabled arm: the blow takes the torso)",
                InjuryRule.DISABLED_LEG: " again, no further effect",
                InjuryRule.REWOUNDED: " (hit where already wounded)",
                InjuryRule.FOUR_AREAS: " (four areas injured)",
            }.get(rule, "")
            dead = " That is a kill!" if killed else ""
            return f"{names[side]}'s {loc.value.replace('-', ' ')} {what}{note}.{dead}"
        case WeaponDrawn(side=side, weapon=weapon):
            return f"{names[side]} spends the turn drawing a {weapon.value}."
        case RangeChanged(range=new):
            return "Now at close quarters." if new is Range.CLOSE else "Back at standard range."
        case BonusEarned(side=side, amount=amount):
            return f"{names[side]} earns a +{amount} bonus (!bonus attack|defence|reduce)."
        case BonusDeclared(side=side, use=use):
            return f"{names[side]} puts the bonus on {use.value}."
        case YieldAnswered(side=side, accepted=accepted):
            return f"{names[side]} {'accepts' if accepted else 'rejects'} the yield."
        case FlightStopped(side=side):
            return f"{names[side]} cuts off the flight."
        case FightEnded(outcome=outcome):
            if outcome.winner is None:
                return "The fight is a draw."
            return f"{names[outcome.winner]} wins {_ENDINGS[outcome.ending]}."
        case WarriorSlain(side=side):
            return f"{names[side]} is dead."
        case PrisonerTaken(side=side, captor=captor, ransom=ransom):
            price = f" (ransom: {ransom})" if ransom else ""
            return f"{names[side]} is {names[captor]}'s prisoner{price}."
    return ""


def _option(command: Any, chances: tuple[int, ...]) -> str:
    match command:
        case Act(action=action):
            word = f"!{action.value}"
        case Defend(defence=defence):
            word = f"!{defence.value}"
        case ChooseOrder(first=first):
            word = "!first" if first else "!second"
        case Stop():
            word = "!stop"
        case AcceptYield(prisoner=prisoner):
            word = "!accept" + {True: " prisoner", False: " release", None: ""}[prisoner]
        case _:
            word = "!reject"
    return word + (" " + "/".join(str(c) for c in chances) if chances else "")


def prompt(state: FightState, manual: bool) -> str:
    """Who the fight waits for, and their options with chances."""
    awaiting = state.awaiting
    if awaiting is None:
        return ""
    name = state.fighters[awaiting.side].name
    if awaiting.need is Need.ROLL:
        assert awaiting.roll_for is not None
        chance = f" ({awaiting.chance})" if awaiting.chance is not None else ""
        how = ": /rol d100 or !rol d100" if manual else ""
        return f"{name}: roll d100 for {awaiting.roll_for.value}{chance}{how}"
    options = [o for o in legal_actions(state) if not isinstance(o.command, DeclareBonus)]
    heads = {
        Need.ORDER: f"{name} chooses:",
        Need.ACTION: f"{name} to act:",
        Need.DEFENCE: f"{name}, defend:",
        Need.YIELD_ANSWER: f"{name}, answer the yield:",
        Need.FLEE_ANSWER: f"{name}, stop the flight or strike a last time:",
        Need.LAST_TURN: f"{name}, last turn:",
    }
    listed = " | ".join(_option(o.command, o.chances) for o in options)
    if awaiting.need is Need.YIELD_ANSWER:
        listed += " (a ransom: !accept prisoner ransom <terms>)" if any(
            isinstance(o.command, AcceptYield) and o.command.prisoner for o in options) else ""
    return f"{heads[awaiting.need]} {listed}"


def status(state: FightState) -> str:
    """The fight at a glance: range, turn, each side's injuries, bonuses and penalties."""
    sides = []
    for fighter in state.fighters:
        hurt = ", ".join(
            f"{loc.value} {sev.value}" for loc, sev in fighter.injuries.items()
        ) or "unhurt"
        extras = []
        if fighter.bonus is not None:
            extras.append(f"bonus +{fighter.bonus.amount}")
        if fighter.press_penalty:
            extras.append("press penalty")
        more = f"; {', '.join(extras)}" if extras else ""
        sides.append(f"{fighter.name} ({fighter.weapon.value}): {hurt}{more}")
    return f"Turn {state.turn}, {state.range.value} range. " + " / ".join(sides)
