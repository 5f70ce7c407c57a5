"""Wiring: one function builds the referee from the configuration (store, dice, clock,
and where ``!odds`` simulations run)."""

from __future__ import annotations

from concurrent.futures import Executor

from bot import odds_desk
from bot.clock import Clock, SystemClock
from bot.config import BotConfig
from bot.dice import DiceSource, OsDice
from bot.odds_worker import start_worker
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
    odds_executor: Executor | None = None,
) -> Referee:
    """A referee on the configured database (migrated), with every open fight resumed;
    its ``!odds`` simulations run on ``odds_executor``, by default a worker process
    (:func:`bot.odds_worker.start_worker`, started first so it warms meanwhile). Stop it
    with :func:`bot.odds_desk.close`."""
    executor = odds_executor if odds_executor is not None else start_worker()
    store = Store(open_database(database or config.database))
    referee = Referee(config, store, dice or OsDice(), clock or SystemClock())
    odds_desk.attach(referee, executor)
    referee.resume()
    return referee
