"""General-rules events into chat lines (R10): a step in one line, then who moves."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.wording.common import Award, Cast, join, options, roll_how
from rules.common import Yield
from rules.general.model import (
    Attack,
    Attacked,
    DamageDie,
    FightEnded,
    GeneralFighter,
    GeneralState,
    GotUp,
    Hit,
    KnockbackTest,
    Need,
    Parried,
)
from storage.records import WarriorRecord

__all__ = ["describe", "opening", "prompt", "sheet_line", "status", "waiting"]

_ENDINGS = {"unconscious": "the foe is unconscious", "yield": "by yield",
            "forfeit": "by forfeit", "moderator": "by a moderator's ruling"}


def describe(events: Sequence[Any], cast: Cast, awarded: Sequence[Award] | None = None) -> str:
    """One line for a run of events; this system awards no BP."""
    names = cast.names
    parts: list[str] = []
    dice: list[str] = []
    for event in events:
        match event:
            case Attacked(side=side, roll=roll, chance=chance, hit=hit):
                parts.append(f"{names[side]} attacks [{roll} vs {chance}: "
                             f"{'hit' if hit else 'miss'}].")
            case Parried(side=side, roll=roll, chance=chance, held=held):
                parts.append(f"{names[side]} parries [{roll} vs {chance}: "
                             f"{'held' if held else 'fails'}].")
            case DamageDie(sides=sides, roll=roll, rolled_up=up):
                dice.append(f"d{sides}:{roll}{'!' if up else ''}")
            case Hit(side=side, rolled=rolled, damage=damage, health=health):
                parts.append(f"{names[1 - side]}'s damage {' '.join(dice)} = {rolled}, "
                             f"{damage} after armour; {names[side]} at {health} health.")
                dice = []
            case KnockbackTest(side=side, roll=roll, strength=strength, kept_feet=kept):
                parts.append(f"{names[side]} tests Strength [{roll} vs {strength}]: "
                             + ("keeps their feet." if kept else "knocked down, stunned."))
            case GotUp(side=side):
                parts.append(f"{names[side]} spends the turn getting up.")
            case FightEnded(outcome=outcome):
                if outcome.winner is None:
                    parts.append("The fight is a draw.")
                else:
                    parts.append(f"{names[outcome.winner]} wins: "
                                 f"{_ENDINGS.get(outcome.ending, outcome.ending)}.")
    if dice:  # manual rolls: dice so far, the hit still to come
        parts.append(f"Damage so far: {' '.join(dice)}.")
    return " ".join(parts)


def prompt(state: GeneralState, manual: bool, cast: Cast, word: Callable[[Any], str]) -> str:
    """Who must move next, with their options as ``word`` says them."""
    awaiting = state.awaiting
    if awaiting is None:
        return ""
    side = awaiting.side
    who = cast.labels[side]
    if awaiting.need is Need.ACTION:
        skill = state.sides[side].fighter.skill
        return f"{who} to act: {options([f'{word(Attack(side))} {skill}', word(Yield(side))])}"
    assert awaiting.roll_for is not None
    chance = f" against {awaiting.chance}" if awaiting.chance is not None else ""
    return (f"{who}, roll d{awaiting.die} for {awaiting.roll_for.value}{chance}: "
            f"{roll_how(awaiting.die)}")


def waiting(state: GeneralState) -> str:
    awaiting = state.awaiting
    if awaiting is None or awaiting.need is not Need.ROLL:
        return ""
    assert awaiting.roll_for is not None
    name = state.sides[awaiting.side].fighter.name
    return f"{name}'s {awaiting.roll_for.value} roll (d{awaiting.die})"


def status(state: GeneralState, manual: bool, cast: Cast, word: Callable[[Any], str]) -> str:
    glance = f"Turn {state.turn}. " + " / ".join(
        f"{s.fighter.name}: {s.current}/{s.fighter.health} health"
        + (", stunned" if s.stunned else "") for s in state.sides) + "."
    roll = waiting(state)
    if roll:
        return f"{glance} Waiting for {roll}."
    return join(glance, prompt(state, manual, cast, word))


def opening(state: GeneralState, cast: Cast) -> str:
    """``General rules: Farthan (fa) vs Troll (tr). Farthan: weapon 1d10, base 1d8, skill
    14, health 25, protection 2. ...``: who fights whom, and with what."""
    return (f"General rules: {cast.labels[0]} vs {cast.labels[1]}. " + " ".join(
        f"{name}: weapon {f.weapon}, base {f.base}, skill {f.skill}, health {f.health}, "
        f"protection {f.protection}." for name, f in zip(
            cast.names, (side.fighter for side in state.sides), strict=True)))


def sheet_line(record: WarriorRecord[GeneralFighter], owner: str) -> str:
    """A fighter's characteristics, weapon, defence and status, in one line."""
    f = record.sheet
    return (f"{f.name} (General rules, {owner}): health {f.health}, str {f.strength}, "
            f"skill {f.skill} (parry {f.parry}), weapon {f.weapon}, base {f.base}, "
            f"defense {f.defense}, protection {f.protection}; {record.status}")
