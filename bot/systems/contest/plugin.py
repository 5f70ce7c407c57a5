"""Simple Contest's plugin (R9): the rules engine, its verbs, wording and
fighters."""

from __future__ import annotations

from collections.abc import Sequence

from bot.refusals import Refusal
from bot.systems.contest import wording
from bot.systems.fighters import Fighters, Settings
from bot.systems.plugin import Plugin, fixed, verbs
from bot.wording.common import undone
from rules.ancath.sheet import valid_name
from rules.common import Forfeit, ModeratorEnd, Roll, Yield
from rules.contest.model import ContestFighter, ContestState, Strike, parse_fighter
from rules.contest.system import CONTEST as RULES

__all__ = ["CONTEST", "Command"]

Command = Strike | Yield | Roll | Forfeit | ModeratorEnd

_USAGE = "<rating> <weapon>^<edge> [armour <handicap>]"


def _create(name: str, words: Sequence[str], _settings: Settings) -> ContestFighter:
    """``!create <name> contest 15W sword^3 armour 2``."""
    armour, words = 0, list(words)
    if len(words) == 4 and words[2].lower() == "armour" and words[3].isdecimal():
        armour = int(words[3])
        words = words[:2]
    if len(words) != 2:
        raise Refusal(f"usage: !create <name> contest {_USAGE}, e.g. !create Alain contest "
                      "15W sword^3 armour 2")
    if not valid_name(name):
        raise Refusal(f"{name!r} is not a usable name: letters, digits, ' _ -")
    return parse_fighter(name, words[0], words[1], armour)

CONTEST: Plugin[ContestState, Command] = Plugin(
    system=RULES, label="Simple Contest",
    verbs=verbs(
        fixed("strike", "Simple Contest: strike this round; the bot rolls d20 when both "
              "have", Strike),
        fixed("yield", "Give up the fight", Yield),
    ),
    roll=Roll, forfeit=Forfeit, end=ModeratorEnd, describe=wording.describe,
    asks=wording.prompt, glance=wording.status, waiting=wording.waiting, undone=undone,
    fighters=Fighters(
        "contest", _USAGE, _create, wording.sheet_line,
        summary="a Simple Contest fighter (R9): rating 1..20, masteries as W (15W, 3W2), a "
                "mastery edge as ^5W; e.g. !create Alain contest 15W sword^3 armour 2"),
    opens=wording.opening,
)
