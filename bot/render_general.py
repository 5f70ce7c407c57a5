"""General-rules events into chat lines (R10)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.general.model import (
    Attacked,
    DamageDie,
    FightEnded,
    GeneralState,
    GotUp,
    Hit,
    KnockbackTest,
    Need,
    Parried,
)

__all__ = ["describe", "prompt", "status"]

_ENDINGS = {"unconscious": "the foe is unconscious", "yield": "by yield",
            "forfeit": "by forfeit", "moderator": "by a moderator's ruling"}


def describe(events: Sequence[Any], names: Sequence[str]) -> str:
    parts: list[str] = []
    dice: list[str] = []
    for event in events:
        match event:
            case Attacked(side=side, roll=roll, chance=chance, hit=hit):
                parts.append(f"{names[side]} attacks [{roll} vs {chance}: "
                             f"{'hit' if hit else 'miss'}]")
            case Parried(side=side, roll=roll, chance=chance, held=held):
                parts.append(f"{names[side]} parries [{roll} vs {chance}: "
                             f"{'held' if held else 'fails'}]")
            case DamageDie(sides=sides, roll=roll, rolled_up=up):
                dice.append(f"d{sides}:{roll}{'!' if up else ''}")
            case Hit(side=side, rolled=rolled, damage=damage, health=health):
                parts.append(f"Damage {' '.join(dice)} = {rolled}, {damage} after armour; "
                             f"{names[side]} at {health} health.")
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
    return " ".join(parts)


def prompt(state: GeneralState, manual: bool) -> str:
    awaiting = state.awaiting
    if awaiting is None:
        return ""
    name = state.sides[awaiting.side].fighter.name
    if awaiting.need is Need.ACTION:
        return f"{name} to act: !attack {state.sides[awaiting.side].fighter.skill} | !yield"
    assert awaiting.roll_for is not None
    chance = f" against {awaiting.chance}" if awaiting.chance is not None else ""
    how = f": /rol d{awaiting.die} or !rol d{awaiting.die}" if manual else ""
    return f"{name}: roll d{awaiting.die} for {awaiting.roll_for.value}{chance}{how}"


def status(state: GeneralState) -> str:
    return f"Turn {state.turn}. " + " / ".join(
        f"{s.fighter.name}: {s.current}/{s.fighter.health} health"
        + (", stunned" if s.stunned else "") for s in state.sides)
