"""``ancath-bot run`` and ``console``: the referee on IRC (with its heartbeat, until
SIGINT or SIGTERM), or in a console channel on standard input (``--dice``: scripted
dice; exit 3 when they run out, 4 when some are left over)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from typing import NoReturn

from bot import heartbeat
from bot.app import build_referee, freeze_start, stop_referee
from bot.config import BotConfig, ConfigError, IrcConfig, load_config
from bot.config_check import irc_at_start
from bot.console import DEFAULT_CHANNEL
from bot.console import serve as serve_console
from bot.dice import DiceExhausted, DiceSource, ScriptedDice
from bot.irc.supervisor import IrcBot
from bot.logs import setup_logging
from bot.odds import pending
from bot.odds.worker import start_workers
from storage.db_urls import check_url

__all__ = ["serve"]


def _dice(text: str | None) -> DiceSource | None:
    if text is None:
        return None
    try:
        return ScriptedDice(int(n) for n in text.split(",") if n.strip())
    except ValueError:
        raise ConfigError("--dice takes whole numbers separated by commas: 57,12,90") from None


async def _serve_irc(bot: IrcBot, beat: heartbeat.Heartbeat) -> None:
    """The IRC bot until SIGINT or SIGTERM, which send QUIT and end cleanly; its
    heartbeat written meanwhile."""
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, bot.stop)
    beating = asyncio.create_task(heartbeat.keep(bot, beat))
    try:
        await bot.run()
    finally:
        beating.cancel()
        await asyncio.gather(beating, return_exceptions=True)   # its last word: stopped
        pending.close(bot.referee)  # before the loop closes: a late answer calls it


def serve(args: argparse.Namespace) -> int:
    """``run``: IRC when configured, else the console; ``console``: a console channel on
    stdin until end of input (and the ``!odds`` answers still due)."""
    config = load_config(args.config)
    check_url(getattr(args, "db", None) or config.database)   # before the ledger key
    dice = _dice(getattr(args, "dice", None))
    irc = config.irc if args.command == "run" else None
    beat: heartbeat.Heartbeat | None = None
    without: str | None = None
    if args.command == "console" and sys.stdin is None:   # closed (<&-)
        raise ConfigError("no standard input for the console channel (it is closed): give "
                          "it the channel's lines (ancath-bot console < lines.txt), or run it "
                          "in a terminal")
    if args.command == "run":
        if irc is None and not (sys.stdin and sys.stdin.isatty()):
            raise ConfigError("no irc: section in the configuration and no terminal for the "
                              "console: add an irc: section (see config.example.yaml), or "
                              "run it in a terminal")
        if irc is not None:   # what config check says, before anything is made
            irc, without = irc_at_start(irc)
            beat = heartbeat.Heartbeat(heartbeat.heartbeat_path(config))
            beat.claim()   # one running bot a heartbeat file
        setup_logging(config.log)
        if without:
            logging.getLogger("ancath.irc").warning(without)
    try:
        return _referee(args, config, dice, irc, beat)
    finally:
        if beat is not None:
            beat.release()


def _referee(args: argparse.Namespace, config: BotConfig, dice: DiceSource | None,
             irc: IrcConfig | None, beat: heartbeat.Heartbeat | None) -> int:
    """The referee on IRC (``irc``, its heartbeat ``beat``), else in the console channel
    on stdin, until it ends."""
    on_irc = irc is not None
    referee = build_referee(config, database=getattr(args, "db", None), dice=dice,
                            odds_workers=start_workers(warm=on_irc), key_file=args.key_file,
                            odds_ahead=on_irc)
    freeze_start()
    try:
        if irc is not None:
            assert beat is not None
            asyncio.run(_serve_irc(IrcBot(irc, referee), beat))
            return 0
        if sys.stdin.isatty():
            print(f"ancath-bot: console channel {DEFAULT_CHANNEL}; type '<nick> <message>', "
                  "e.g. 'ann !help'; Ctrl-D quits", file=sys.stderr)
        try:
            serve_console(referee, sys.stdin, lambda line: print(line, flush=True))
        except DiceExhausted as error:
            print(f"ancath-bot: {error}", file=sys.stderr)
            return 3
    finally:
        stop_referee(referee)
        if referee.unwritable:   # nothing may close SQLite's connections (SIGBUS)
            _leave(2)
    if isinstance(dice, ScriptedDice) and dice.left:
        print(f"ancath-bot: {dice.left} scripted dice left over", file=sys.stderr)
        return 4
    return 0


def _leave(code: int) -> NoReturn:
    """End the process now, its output flushed, with no finalizer run: the records could
    not be written, and closing SQLite's connections would write to its mapped ``-shm``
    and die of SIGBUS."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
