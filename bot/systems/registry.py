"""What the bot needs per rules system: its fight verbs, how to build a roll, a
forfeit and a moderator's end, and how to word its events."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.wording import ancath, contest, general
from bot.wording.common import Cast, undone
from rules.ancath import commands as ac
from rules.ancath.state import Action, Defence
from rules.contest import model as cm
from rules.general import model as gm
from rules.system import RuleSystem
from rules.systems import AN_CATH, CONTEST, GENERAL

__all__ = ["UIS", "VERB_SUMMARIES", "SystemUI"]


@dataclass(frozen=True, slots=True)
class SystemUI:
    system: RuleSystem
    label: str
    verbs: Mapping[str, Callable[[int], Any]]
    """Fight verbs that are one command for the sender's side."""
    commands: tuple[type, ...]
    """Every command class the system's engine accepts."""
    roll: Callable[[int, int], Any]
    forfeit: Callable[[int], Any]
    end: Callable[[int | None, str], Any]
    describe: Callable[..., str]
    """``describe(events, cast, awarded=None)``: a run of events in one line."""
    prompt: Callable[[Any, bool, Cast], str]
    """``prompt(state, manual, cast)``: who must move next, with their options."""
    status: Callable[[Any, bool, Cast], str]
    waiting: Callable[[Any], str]
    """``Brenna's attack roll``: the roll awaited, or '' when a decision is."""
    undone: Callable[[Any, Sequence[str]], str]
    """``Gorm's dodge``: a decision a moderator's undo took back."""


def _act(action: Action) -> Callable[[int], Any]:
    return lambda side: ac.Act(side, action)


def _defend(defence: Defence) -> Callable[[int], Any]:
    return lambda side: ac.Defend(side, defence)


VERB_SUMMARIES: dict[str, str] = {
    "attack": "Attack (An Cath: a roll against your weapon skill; General rules: a d20 Test).",
    "double": "Two attacks (club, shortsword or a pair of shortswords).",
    "press": "Attack at +25; only Luck (5) to defend in the foe's next turn.",
    "test": "Probe for a weakness: win a bonus of 10 or 30 (!bonus).",
    "close": "Move to close quarters (Dodge rolls).",
    "open": "Move back to standard range (Dodge rolls).",
    "flee": "Run from the fight at standard range.",
    "yield": "Give up the fight (An Cath: the foe accepts or rejects).",
    "first": "Act first (when you won the initiative).",
    "second": "Let the foe act first.",
    "stop": "Try to cut off a fleeing foe (a Dodge roll).",
    "reject": "Reject the foe's yield: they lose their turn.",
    "strike": "Simple Contest: strike this round; the bot rolls d20 when both have.",
    **{d.value: f"Defend against the next hit with {d.value}." for d in Defence},
}

_AN_CATH_VERBS: dict[str, Callable[[int], Any]] = {
    **{a.value: _act(a) for a in (Action.ATTACK, Action.DOUBLE, Action.PRESS, Action.TEST,
                                  Action.CLOSE, Action.OPEN, Action.FLEE, Action.YIELD)},
    **{d.value: _defend(d) for d in Defence},
    "first": lambda side: ac.ChooseOrder(side, True),
    "second": lambda side: ac.ChooseOrder(side, False),
    "stop": ac.Stop,
    "reject": ac.RejectYield,
}

UIS: dict[str, SystemUI] = {
    "ancath": SystemUI(
        AN_CATH, "An Cath", _AN_CATH_VERBS,
        (ac.Wield, ac.ChooseOrder, ac.Act, ac.Defend, ac.DeclareBonus, ac.AcceptYield,
         ac.RejectYield, ac.Stop, ac.Roll, ac.Forfeit, ac.ModeratorEnd),
        ac.Roll, ac.Forfeit, ac.ModeratorEnd, ancath.describe, ancath.prompt, ancath.status,
        ancath.waiting, ancath.undone,
    ),
    "contest": SystemUI(
        CONTEST, "Simple Contest", {"strike": cm.Strike, "yield": cm.Yield},
        (cm.Strike, cm.Yield, cm.Roll, cm.Forfeit, cm.ModeratorEnd),
        cm.Roll, cm.Forfeit, cm.ModeratorEnd, contest.describe, contest.prompt,
        contest.status, contest.waiting, undone,
    ),
    "general": SystemUI(
        GENERAL, "General rules", {"attack": gm.Attack, "yield": gm.Yield},
        (gm.Attack, gm.Yield, gm.Roll, gm.Forfeit, gm.ModeratorEnd),
        gm.Roll, gm.Forfeit, gm.ModeratorEnd, general.describe, general.prompt,
        general.status, general.waiting, undone,
    ),
}
