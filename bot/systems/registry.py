"""The rules systems the bot plays, by name: adding a system is one entry here (and its
engine in ``rules.systems.SYSTEMS``)."""

from __future__ import annotations

from typing import Any

from bot.systems.ancath import AN_CATH
from bot.systems.contest import CONTEST
from bot.systems.general import GENERAL
from bot.systems.plugin import Plugin

__all__ = ["PLUGINS"]

PLUGINS: dict[str, Plugin[Any, Any]] = {p.system.name: p for p in (AN_CATH, CONTEST, GENERAL)}
