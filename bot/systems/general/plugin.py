"""The General rules' plugin (R10): the rules engine, verbs, wording, fighters and
``!travel``."""

from __future__ import annotations

from collections.abc import Sequence

from bot.commands.registry import collect
from bot.refusals import Refusal
from bot.systems.fighters import Fighters, Settings
from bot.systems.general import commands, wording
from bot.systems.plugin import Plugin, fixed, verbs
from bot.wording.common import undone
from rules.ancath.sheet import valid_name
from rules.common import Forfeit, ModeratorEnd, Roll, Yield
from rules.general.model import Attack, GeneralFighter, GeneralState, parse_dice
from rules.general.system import GENERAL as RULES

__all__ = ["GENERAL", "Command"]

Command = Attack | Yield | Roll | Forfeit | ModeratorEnd

_USAGE = ("health=<n> str=<n> skill=<n> weapon=<dice> base=<dice> defense=<n> "
          "protection=<n>")
_KEYS = ("health", "str", "skill", "weapon", "base", "defense", "protection")
_NUMBERS = ("health", "str", "skill", "defense", "protection")


def _create(name: str, words: Sequence[str], _settings: Settings) -> GeneralFighter:
    """``!create <name> general health=20 str=12 ...``; health defaults to 20."""
    pairs = [w.lower().split("=", 1) for w in words]
    values = {"health": "20"} | dict(p for p in pairs if len(p) == 2)
    missing = [k for k in _KEYS if k not in values]
    if missing or any(len(p) != 2 or p[0] not in _KEYS for p in pairs):
        raise Refusal(f"usage: !create <name> general {_USAGE}"
                      + (f" (missing {', '.join(missing)})" if missing else ""))
    if not all(values[k].isdecimal() for k in _NUMBERS) or not valid_name(name):
        raise Refusal("health, str, skill, defense and protection are whole numbers; "
                      "the name is letters, digits, ' _ -")
    return GeneralFighter(
        name, int(values["health"]), int(values["str"]), int(values["skill"]),
        parse_dice(values["weapon"]), parse_dice(values["base"]), int(values["defense"]),
        int(values["protection"]))

GENERAL: Plugin[GeneralState, Command] = Plugin(
    system=RULES, label="General rules",
    verbs=verbs(
        fixed("attack", "Attack", Attack, "a d20 Test"),
        fixed("yield", "Give up the fight", Yield),
    ),
    roll=Roll, forfeit=Forfeit, end=ModeratorEnd, describe=wording.describe,
    asks=wording.prompt, glance=wording.status, waiting=wording.waiting, undone=undone,
    fighters=Fighters(
        "general", _USAGE, _create, wording.sheet_line,
        summary="a General-rules fighter (R10), health 20 unless given; e.g. !create Farthan "
                "general health=25 str=13 skill=14 weapon=1d10 base=1d8 defense=0 protection=2"),
    opens=wording.opening, commands=collect(commands),
)
