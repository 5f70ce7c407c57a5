"""A fight's state after a step, for the replay: An Cath's turn and range, and each
fighter's weapon, injuries and what holds them (a Test bonus, a press penalty, down, a
weapon to draw), as fields; another system's as the plugin's ``!status`` line. Once the
fight is over, each side's end as its outcome says it (:func:`fates`): slain, taken
prisoner (by whom), fled, forfeited, a moderator's end, a draw."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.systems.plugin import Plugin
from bot.wording.common import Cast
from rules.ancath.state import Ending, Fighter, FightState, Kind

__all__ = ["Glance", "SideGlance", "fates", "glance"]


@dataclass(frozen=True, slots=True)
class SideGlance:
    """One An Cath fighter at a glance."""

    name: str
    weapon: str
    injuries: str
    """``weapon-arm wounded, torso disabled``, ``a killing blow``, or ``unhurt``."""
    holds: str
    """``bonus +10 (on attack), press penalty``, or ''."""
    fate: str = ""
    """How the fight ended for them (``slain (dead, R7.2)``), or '' while it goes on."""


@dataclass(frozen=True, slots=True)
class Glance:
    """The state after a step: a line, and An Cath's fighters as fields."""

    line: str
    """``Turn 3, close range`` (An Cath), or the system's ``!status`` line."""
    sides: tuple[SideGlance, ...] = ()
    ends: str = ""
    """Another system's fight over: ``Troll won: the foe yielded; Farthan yielded``."""


_WON = {"kill": "won by a kill", "first-blood": "won at first blood (R3.2)",
        "escape": "won: the foe fled", "forfeit": "won by forfeit (R7.4)",
        "moderator": "won: a moderator's end (R8.1)", "yield": "won: the foe yielded"}
_LOST = {"kill": "slain", "first-blood": "lost at first blood (R3.2)",
         "escape": "fled and got away (R4.8; a loss, R7.2)",
         "forfeit": "forfeited: the time ran out (R7.4)",
         "moderator": "lost: a moderator's end (R8.1)", "yield": "yielded",
         "dead": "dead", "dying": "dying", "out": "out of the fight (rating 0)",
         "unconscious": "unconscious"}


def fates(state: Any, names: tuple[str, ...]) -> tuple[str, ...]:
    """How a finished fight ended for each side, as its ``state.outcome`` says (a kill
    slays only in a mortal fight, R7.2; a yield taken is a prisoner only there, R4.6);
    () while it goes on."""
    outcome = state.outcome
    if outcome is None:
        return ()
    if outcome.winner is None:
        return ("a draw: a moderator's end (R8.1)",) * len(names)
    ending = str(outcome.ending.value)
    winner, loser = outcome.winner, 1 - outcome.winner
    won, lost = _WON.get(ending, "won"), _LOST.get(ending, "lost")
    if isinstance(state, FightState):
        if outcome.ending is Ending.KILL:
            lost = ("slain (dead, R7.2)" if state.kind is Kind.MORTAL else
                    f"beaten by a killing blow (not dead: a {state.kind.value} fight, R7.2)")
        elif outcome.ending is Ending.YIELD and outcome.prisoner:
            ransom = f", ransom: {outcome.ransom}" if outcome.ransom else ""
            won = f"won: took {names[loser]} prisoner{ransom}"
            lost = f"yielded; taken prisoner by {names[winner]}{ransom} (R4.6)"
        elif outcome.ending is Ending.YIELD:
            lost = "yielded; released (R4.6)" if state.kind is Kind.MORTAL else "yielded (R4.6)"
    out = [""] * len(names)
    out[winner], out[loser] = won, lost
    return tuple(out)


def _side(fighter: Fighter, fate: str, killed: bool) -> SideGlance:
    loadout = fighter.loadout
    grip = " and shield" if loadout.shield else " two-handed" if loadout.two_handed else ""
    hurt = [f"{loc.value} {sev.value}" for loc, sev in fighter.injuries.items()]
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
    if killed:
        hurt.append("a killing blow")
    return SideGlance(fighter.name, f"{fighter.weapon.value}{grip}",
                      ", ".join(hurt) or "unhurt", ", ".join(holds), fate)


def glance(plugin: Plugin[Any, Any], state: Any, cast: Cast) -> Glance:
    """``state`` at a glance."""
    ended = fates(state, cast.names)
    if isinstance(state, FightState):
        over = "; the fight is over" if state.outcome is not None else ""
        outcome = state.outcome
        slain = outcome.winner if outcome is not None and outcome.ending is Ending.KILL \
            and outcome.winner is not None else None
        return Glance(f"Turn {state.turn}, {state.range.value} range{over}",
                      tuple(_side(fighter, ended[side] if ended else "",
                                  slain is not None and side == 1 - slain)
                            for side, fighter in enumerate(state.fighters)))
    awaiting = state.awaiting
    return Glance(plugin.status(state, awaiting is not None and awaiting.is_roll, cast), (),
                  "; ".join(f"{name} {fate}" for name, fate in zip(cast.names, ended,
                                                                   strict=bool(ended))))
