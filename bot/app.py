"""Wiring: the commands the bot answers (:func:`commands_for`), one function that builds
the referee from the configuration (store and its ledger keys, dice, clock, commands, and
where ``!odds`` are worked out), another that stops it."""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import Executor
from types import ModuleType
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from bot.chat import basics, history, mod, odds, warriors
from bot.clock import Clock, SystemClock
from bot.commands.registry import Registry, Spec, load
from bot.config import BotConfig
from bot.dice import DiceSource, OsDice
from bot.fights import challenges, play, time_limits
from bot.odds import pending
from bot.odds.worker import start_workers
from bot.referee import Referee
from bot.systems.plugin import Plugin
from bot.systems.registry import SYSTEMS
from storage import ledger
from storage.db import close_database, open_database
from storage.errors import DatabaseProblem
from storage.keys import Keyring, default_key_path, load_keyring
from storage.store import StorageError, Store

__all__ = ["COMMAND_MODULES", "build_referee", "commands_for", "freeze_start", "stop_referee"]

log = logging.getLogger(__name__)

COMMAND_MODULES = (basics, warriors, history, challenges, play, time_limits, odds)
"""The modules whose commands the bot answers, whatever the systems."""


def commands_for(systems: Iterable[Plugin[Any, Any]]) -> Registry:
    """The bot's commands for ``systems``: ``!create``, ``!sheet``, ``!warriors`` and
    ``!mod`` built with them, their fight verbs (before ``!status``) and each one's own
    commands outside a fight (An Cath's ``!buy``, the General rules' ``!travel``)."""
    plugins = tuple(systems)
    modules: list[ModuleType | Iterable[Spec]] = list(COMMAND_MODULES)
    modules.insert(modules.index(warriors), warriors.commands(plugins))
    modules.insert(modules.index(challenges), mod.commands(plugins))
    modules.insert(modules.index(play), play.verb_commands(plugins))
    modules.extend(p.commands for p in plugins)
    return load(modules)


def build_referee(
    config: BotConfig,
    *,
    database: str | None = None,
    dice: DiceSource | None = None,
    clock: Clock | None = None,
    odds_workers: Executor | Sequence[Executor] | None = None,
    keyring: Keyring | None = None,
    key_file: str | None = None,
    odds_ahead: bool = False,
) -> Referee:
    """A referee on the configured database (migrated), signing the ledger with
    ``keyring`` (else the configured keys), with every open fight resumed. A SQLite
    database gets its own key on the first start only: once rows are keyed, a missing
    key stops the start (``KeyringError``) instead of starting a new one. Its ``!odds``
    chains are solved on ``odds_workers``, by default worker processes
    (:func:`bot.odds.worker.start_workers`, started first so they warm meanwhile); stop
    them with :func:`bot.odds.pending.close`. With ``odds_ahead`` (a bot on IRC) each fight's odds
    are worked out on it from the fight's start, behind the requests."""
    url = database or config.database
    key_file = key_file or config.ledger_key_file
    if keyring is None:   # a PostgreSQL database without a key fails before it is touched
        keyring = load_keyring(url, key_file, create=default_key_path(url) is None)
    engine = open_database(url)
    if not keyring.keys and not ledger.is_keyed(engine):
        keyring = load_keyring(url, key_file)   # the first start: make the default key
    store = Store(engine, keyring=keyring, network=config.network, systems=SYSTEMS.rules)
    store.check_signing_key()
    sealed = store.seal_legacy()
    if sealed:
        log.warning("%d ledger rows written at the start (older rows sealed, or a new key "
                    "introduced): the ledger is signed with public key %s", sealed,
                    keyring.signer().public.text)
    started = time.perf_counter()
    verdict = store.prove_ledger()
    log.info("the ledger checked from the last head proved: %d rows walked in %.1f s, %s",
             verdict.rows, time.perf_counter() - started, verdict.state)
    if verdict.state == "failed":
        log.error("the ledger does not verify (%s); from row %s on nothing is proved: run "
                  "ancath-bot audit verify", verdict.first, verdict.broken)
    workers = odds_workers if odds_workers is not None else start_workers()
    referee = Referee(config, store, dice or OsDice(), clock or SystemClock(),
                      commands_for(SYSTEMS))
    referee.settings.ledger_check = verdict
    pending.attach(referee, workers, work_ahead=odds_ahead)
    referee.resume()
    return referee


def freeze_start() -> None:
    """Keep what the start built, and still uses, out of every later garbage collection
    (``gc.freeze``, after one collection): a full one walked every object the imports
    made, a pause in the middle of play (``bench/README.md``). Once, after :func:`build_referee`."""
    gc.collect()
    gc.freeze()


def stop_referee(referee: Referee) -> None:
    """After the referee's last command: its ``!odds`` workers stopped, a checked
    snapshot of each open fight kept (the next start replays only the commands after
    it), and its store's connections closed, a SQLite file's write-ahead log
    checkpointed into it, so that file alone holds every record. A checkpoint that
    cannot finish is logged, not raised (on a fault, the fault is what the stop
    reports). Records that cannot be written (``referee.unwritable``) are not touched
    at all: SQLite's close writes to its mapped ``-shm``, and would die of SIGBUS; the
    caller ends the process without closing them (:func:`bot.cli.main` does)."""
    pending.close(referee)
    if referee.unwritable:
        log.critical("the database is left as it is, not closed: %s", referee.lost)
        return
    if referee.lost is None:   # a checked snapshot of each open fight: the next start
        try:                   # replays only what comes after it (storage.fight_snapshots)
            referee.store.open_fights(referee.serves)
        except (StorageError, SQLAlchemyError) as error:
            log.warning("open fights' snapshots not kept at the stop: %s", error)
    try:
        close_database(referee.store.engine)
    except DatabaseProblem as problem:
        log.warning("%s", problem)
