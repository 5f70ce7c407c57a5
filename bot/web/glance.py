"""A fight's state after a step, for the replay: An Cath's turn and range, and each
fighter's weapon, injuries and what holds them (a Test bonus, a press penalty, down, a
weapon to draw), as fields; another system's as the plugin's ``!status`` line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.systems.plugin import Plugin
from bot.wording.common import Cast
from rules.ancath.state import Fighter, FightState

__all__ = ["Glance", "SideGlance", "glance"]


@dataclass(frozen=True, slots=True)
class SideGlance:
    """One An Cath fighter at a glance."""

    name: str
    weapon: str
    injuries: str
    """``weapon-arm wounded, torso disabled``, or ``unhurt``."""
    holds: str
    """``bonus +10 (on attack), press penalty``, or ''."""


@dataclass(frozen=True, slots=True)
class Glance:
    """The state after a step: a line, and An Cath's fighters as fields."""

    line: str
    """``Turn 3, close range`` (An Cath), or the system's ``!status`` line."""
    sides: tuple[SideGlance, ...] = ()


def _side(fighter: Fighter) -> SideGlance:
    loadout = fighter.loadout
    grip = " and shield" if loadout.shield else " two-handed" if loadout.two_handed else ""
    hurt = ", ".join(f"{loc.value} {sev.value}" for loc, sev in fighter.injuries.items())
    holds = []
    if fighter.bonus is not None:
        use = fighter.bonus.use.value if fighter.bonus.use else "undeclared: reduce"
        holds.append(f"bonus +{fighter.bonus.amount} ({use})")
    for flag, words in ((fighter.press_penalty, "press penalty: luck only"),
                        (fighter.pair_doubled, "no block this turn"),
                        (fighter.down, "down"), (fighter.must_draw, "must draw a weapon"),
                        (fighter.dodge_only, "dodge or luck only")):
        if flag:
            holds.append(words)
    return SideGlance(fighter.name, f"{fighter.weapon.value}{grip}", hurt or "unhurt",
                      ", ".join(holds))


def glance(plugin: Plugin[Any, Any], state: Any, cast: Cast) -> Glance:
    """``state`` at a glance."""
    if isinstance(state, FightState):
        over = "; the fight is over" if state.outcome is not None else ""
        return Glance(f"Turn {state.turn}, {state.range.value} range{over}",
                      tuple(_side(fighter) for fighter in state.fighters))
    awaiting = state.awaiting
    return Glance(plugin.status(state, awaiting is not None and awaiting.is_roll, cast))
