"""Wiring: one function builds the referee from the configuration (store, dice, clock)."""

from __future__ import annotations

from bot.clock import Clock, SystemClock
from bot.config import BotConfig
from bot.dice import DiceSource, OsDice
from bot.referee import Referee
from storage.db import open_database
from storage.store import Store

__all__ = ["build_referee"]


def build_referee(
    config: BotConfig,
    *,
    database: str | None = None,
    dice: DiceSource | None = None,
    clock: Clock | None = None,
) -> Referee:
    """A referee on the configured database (migrated), with every open fight resumed."""
    store = Store(open_database(database or config.database))
    referee = Referee(config, store, dice or OsDice(), clock or SystemClock())
    referee.resume()
    return referee
