"""An Cath events into chat: a turn in one line (what happened, then who moves next
with their options), and the fight at a glance.

This is the only place that words An Cath for people; the engine's events stay data.
Every roll says whose it is: an action or defence carries its own rolls (``Olaf
attacks [70 vs 25: miss]``), any other roll is named (``Olaf's defence roll [..]``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.wording.common import Award, Cast, bp_line, fight_name, join, options, roll_how
from rules.ancath import legal_actions
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
    Stop,
    Wield,
)
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
from rules.ancath.sheet import Sheet, bp_available, derived_test
from rules.ancath.state import (
    Action,
    Awaiting,
    Ending,
    FightState,
    Need,
    Range,
    RollFor,
    Severity,
)
from storage.records import WarriorRecord

__all__ = ["describe", "listing", "prompt", "sheet_line", "status", "undone", "waiting"]

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
_ROLL_NAME = {
    RollFor.INITIATIVE: "initiative", RollFor.ATTACK: "attack", RollFor.TEST: "test",
    RollFor.DEFENCE: "defence", RollFor.DAMAGE: "damage", RollFor.MANOEUVRE: "move",
    RollFor.RESIST: "resist", RollFor.STOP: "stop",
}
"""``Gorbag's stop roll``: a roll named by what it decides."""
_ROLL_FOR = _ROLL_NAME | {RollFor.TEST: "the test", RollFor.MANOEUVRE: "the move",
                          RollFor.RESIST: "resisting the move", RollFor.STOP: "the stop"}
"""``roll for the stop (30)``: what a prompt asks a roll for."""
_ENDINGS = {
    Ending.KILL: "by a kill", Ending.FIRST_BLOOD: "at first blood", Ending.YIELD: "by yield",
    Ending.ESCAPE: "(the foe escaped)", Ending.FORFEIT: "by forfeit",
    Ending.MODERATOR: "by a moderator's ruling",
}
_HEADS = {
    Need.ORDER: "{} chooses:", Need.ACTION: "{} to act:", Need.DEFENCE: "{}, defend:",
    Need.YIELD_ANSWER: "{}, answer the yield:",
    Need.FLEE_ANSWER: "{}, stop the flight or strike a last time:",
    Need.LAST_TURN: "{}, last turn:",
}


class _Line:
    """Sentences of one line; the last action or defence stays open for its rolls."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.open_side: int | None = None

    def close(self) -> None:
        if self.open_side is not None:
            self.parts[-1] += "."
            self.open_side = None

    def say(self, text: str) -> None:
        self.close()
        if text:
            self.parts.append(text)

    def opening(self, side: int, text: str) -> None:
        self.close()
        self.parts.append(text)
        self.open_side = side

    def text(self) -> str:
        self.close()
        return " ".join(self.parts)


def describe(events: Sequence[Any], cast: Cast, awarded: Sequence[Award] | None = None) -> str:
    """One line for a run of events (a command and the rolls after it). ``awarded`` are
    the BP the ledger actually added (R2.6); without it, the awards as asked."""
    line = _Line()
    asked: list[Award] = []
    names = cast.names
    for event in events:
        match event:
            case BPAwarded(side=side, tenths=tenths, reason=reason):
                asked.append(Award(side, tenths, tenths, reason.value))
            case Rolled(roll_for=RollFor.INITIATIVE, side=side, roll=roll):
                line.say(f"{names[side]} rolls {roll} for initiative.")
            case Rolled(roll_for=RollFor.DAMAGE):
                pass  # DamageRolled says it
            case Rolled(side=side, roll_for=roll_for, roll=roll, chance=chance, success=ok):
                good, bad = _ROLL_RESULT[roll_for]
                result = f"[{roll} vs {chance}: {good if ok else bad}]"
                if line.open_side == side:
                    line.parts[-1] += " " + result
                else:
                    line.opening(side, f"{names[side]}'s {_ROLL_NAME[roll_for]} roll {result}")
            case ActionTaken(side=side, action=action):
                line.opening(side, f"{names[side]} {_ACTION_WORDS[action]}")
            case DefenceChosen(side=side, defence=defence):
                line.opening(side, f"{names[side]} {_DEFENCE_WORDS[defence.value]}")
            case _:
                line.say(_phrase(event, cast))
    return join(line.text(), bp_line(asked if awarded is None else awarded, names))


def _phrase(event: Any, cast: Cast) -> str:
    names = cast.names
    match event:
        case FightStarted(kind=kind):
            return f"{fight_name(kind.value).capitalize()}: {cast.labels[0]} vs {cast.labels[1]}."
        case LoadoutSet(side=side, weapon=weapon, shield=shield, two_handed=two, dodge=d,
                        block=b, parry=p):
            grip = " and shield" if shield else " two-handed" if two else ""
            block = f", block {b}" if b is not None else ""
            return f"{names[side]}: {weapon.value}{grip} (dodge {d}{block}, parry {p})."
        case OrderChosen(first=first):
            return f"{names[first]} acts first."
        case TurnStarted(side=side, last_turn=True):
            return f"{names[side]} takes a last turn at the fleeing foe."
        case DamageRolled(side=side, roll=roll, hit=hit, severity=severity, diverted_to=leg):
            if leg is not None:
                return (f"{names[side]}'s damage {roll}: {hit.value}, but a downed striker "
                        f"hits the {leg.value}:")
            if severity is None:
                return f"{names[side]}'s damage {roll}: {hit.value.replace('-', ' ')}."
            return f"{names[side]}'s damage {roll}:"
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


def undone(command: Any, names: Sequence[str]) -> str:
    """``Gorm's dodge``: the decision a moderator's undo took back."""
    match command:
        case Act(side=side, action=action):
            return f"{names[side]}'s {action.value}"
        case Defend(side=side, defence=defence):
            return f"{names[side]}'s {defence.value}"
        case ChooseOrder(side=side, first=first):
            return f"{names[side]}'s choice to go {'first' if first else 'second'}"
        case Wield(side=side):
            return f"{names[side]}'s loadout"
        case DeclareBonus(side=side, use=use):
            return f"{names[side]}'s bonus on {use.value}"
        case AcceptYield(side=side):
            return f"{names[side]}'s acceptance of the yield"
        case RejectYield(side=side):
            return f"{names[side]}'s rejection of the yield"
        case Stop(side=side):
            return f"{names[side]}'s attempt to stop the flight"
        case Forfeit(side=side):
            return f"{names[side]}'s forfeit"
        case ModeratorEnd():
            return "the moderator's end of the fight"
    return "the last decision"


def _possible(chances: tuple[int, ...]) -> bool:
    """An option whose every roll would need a natural 1 is not offered (R1.1: it is
    still accepted if typed)."""
    return not chances or max(chances) >= 1


def _roll_words(awaiting: Awaiting) -> str:
    assert awaiting.roll_for is not None
    chance = f" ({awaiting.chance})" if awaiting.chance is not None else ""
    return f"{_ROLL_FOR[awaiting.roll_for]}{chance}"


def prompt(state: FightState, manual: bool, cast: Cast, word: Callable[[Command], str]) -> str:
    """Who the fight waits for, by warrior and player, and their options with chances,
    each as ``word`` says it (``!dodge 30``)."""
    awaiting = state.awaiting
    if awaiting is None:
        return ""
    who = cast.labels[awaiting.side]
    if awaiting.need is Need.ROLL:
        return f"{who}, roll for {_roll_words(awaiting)}: {roll_how(100)}"
    listed = [o for o in legal_actions(state)
              if not isinstance(o.command, DeclareBonus) and _possible(o.chances)]
    words = [word(o.command) + (" " + "/".join(map(str, o.chances)) if o.chances else "")
             for o in listed]
    text = f"{_HEADS[awaiting.need].format(who)} {options(words)}"
    if awaiting.need is Need.YIELD_ANSWER and any(
            isinstance(o.command, AcceptYield) and o.command.prisoner for o in listed):
        text += " (a ransom: !accept prisoner ransom <terms>)"
    return text


def waiting(state: FightState) -> str:
    """``Brenna's attack roll``: the roll the fight waits for, or '' for a decision."""
    awaiting = state.awaiting
    if awaiting is None or awaiting.need is not Need.ROLL:
        return ""
    assert awaiting.roll_for is not None
    return f"{state.fighters[awaiting.side].name}'s {_ROLL_NAME[awaiting.roll_for]} roll"


def status(state: FightState, manual: bool, cast: Cast, word: Callable[[Command], str]) -> str:
    """The fight at a glance, then whose move it is, in one line."""
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
    glance = f"Turn {state.turn}, {state.range.value} range. " + " / ".join(sides) + "."
    roll = waiting(state)
    if roll:
        return f"{glance} Waiting for {roll}."
    return join(glance, prompt(state, manual, cast, word))


def sheet_line(record: WarriorRecord[Sheet], owner: str) -> str:
    """A warrior's skills, BP, Test and status, in one line."""
    sheet = record.sheet_as(Sheet)
    skills = ", ".join(f"{s.value} {v}" for s, v in sorted(sheet.skills.items(),
                                                           key=lambda i: i[0].value))
    state = sheet.status.value + (f" (held by {record.captor})" if record.captor else "")
    return (f"{sheet.name} ({sheet.culture.value}, {sheet.armour.value}, {owner}): "
            f"{skills}; BP {sheet.bp / 10:.1f} ({bp_available(sheet)} to spend); "
            f"test {derived_test(sheet.bp)}; {state}")


def listing(record: WarriorRecord[Sheet]) -> str:
    """``Gorbag (goblin, free, BP 1.2)``: a warrior in a ``!warriors`` list."""
    sheet = record.sheet
    return f"{sheet.name} ({sheet.culture.value}, {record.status}, BP {sheet.bp / 10:.1f})"
