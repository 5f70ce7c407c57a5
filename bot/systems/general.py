"""The General rules (R10) as the bot plays them: the rules engine, verbs and wording."""

from __future__ import annotations

from bot.systems.plugin import Plugin, fixed, verbs
from bot.wording import general as wording
from bot.wording.common import undone
from rules import systems
from rules.common import Forfeit, ModeratorEnd, Roll, Yield
from rules.general.model import Attack, GeneralState

__all__ = ["GENERAL", "Command"]

Command = Attack | Yield | Roll | Forfeit | ModeratorEnd

GENERAL: Plugin[GeneralState, Command] = Plugin(
    systems.GENERAL, "General rules",
    verbs(
        fixed("attack", "Attack", Attack, "a d20 Test"),
        fixed("yield", "Give up the fight", Yield),
    ),
    Roll, Forfeit, ModeratorEnd, wording.describe, wording.prompt, wording.status,
    wording.waiting, undone,
)
