"""Simple Contest (R9) as the bot plays it: the rules engine, its verbs and wording."""

from __future__ import annotations

from bot.systems.plugin import Plugin, fixed, verbs
from bot.wording import contest as wording
from bot.wording.common import undone
from rules import systems
from rules.common import Forfeit, ModeratorEnd, Roll, Yield
from rules.contest.model import ContestState, Strike

__all__ = ["CONTEST", "Command"]

Command = Strike | Yield | Roll | Forfeit | ModeratorEnd

CONTEST: Plugin[ContestState, Command] = Plugin(
    systems.CONTEST, "Simple Contest",
    verbs(
        fixed("strike", "Simple Contest: strike this round; the bot rolls d20 when both "
              "have", Strike),
        fixed("yield", "Give up the fight", Yield),
    ),
    Roll, Forfeit, ModeratorEnd, wording.describe, wording.prompt, wording.status,
    wording.waiting, undone,
)
