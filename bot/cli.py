"""The ``ancath-bot`` command line (a contract: other tools drive the bot through it).

``run`` and ``console`` referee fights; ``warrior show``, ``ledger`` and ``audit
verify`` serve leadership, and ``web`` serves them the leadership pages beside the bot
(:mod:`bot.web`); ``db upgrade``, ``db current`` and ``db downgrade`` keep the schema,
``db home-network`` shows or sets the club's home network, ``backup`` copies a SQLite
database; ``key new``, ``key ids`` and ``key public`` help keep the ledger keys;
``audit export`` writes what ``audit verify --export`` checks with the public key alone
(:mod:`bot.audit_cli`). ``ledger`` and ``audit verify`` never change the database (no
migration; a read-only file or a backup copy can be checked). ``status`` says whether
the running IRC bot is alive and connected, from its heartbeat (:mod:`bot.heartbeat`).
``config check`` says what ``run`` would do, touching nothing (:mod:`bot.config_check`).

Exit status: 0 done (for ``audit verify``: all proved; for ``status``: healthy), 1
``audit verify`` found problems or ``status`` did not find the bot healthy, 2 an error (a
bad option, configuration or database, or a ledger key that is not available), 3 and 4
scripted dice ran out or were left over.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import importlib.metadata
import json
import logging
import os
import signal
import sys
import textwrap
from collections.abc import Iterable
from typing import Any, NoReturn

from sqlalchemy.exc import DBAPIError

from bot import audit_cli, heartbeat
from bot.app import build_referee, freeze_start, stop_referee
from bot.audit_cli import printable, public_key
from bot.chat.moderators import hash_password, password_key
from bot.config import BotConfig, ConfigError, IrcConfig, load_config, network_name
from bot.config_check import check as check_config
from bot.config_check import irc_at_start
from bot.console import DEFAULT_CHANNEL, serve
from bot.dice import DiceExhausted, DiceSource, ScriptedDice
from bot.irc.supervisor import IrcBot
from bot.ledger_csv import csv_chunks
from bot.logs import setup_logging
from bot.odds import desk
from bot.odds.worker import start_workers
from bot.systems.registry import PLUGINS
from storage.backup import backup_sqlite
from storage.club import HOME_NETWORK
from storage.db import (
    DatabaseUnavailable,
    check_url,
    club_revision,
    current_revision,
    database_problem,
    downgrade,
    head_revision,
    make_engine,
    open_database,
    open_read_only,
)
from storage.errors import DatabaseProblem
from storage.keys import Keyring, KeyringError, load_keyring, new_key
from storage.ledger import Anchor
from storage.records import LedgerEntry
from storage.store import StorageError, Store

__all__ = ["main"]


def _database(args: argparse.Namespace) -> str:
    if getattr(args, "db", None):
        return str(args.db)
    return load_config(getattr(args, "config", None)).database


def _version() -> str:
    try:
        return importlib.metadata.version("ancath-bot")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ancath-bot", description="IRC referee bot for An Cath percentile-dice duels."
    )
    parser.add_argument("--version", action="version", version=f"ancath-bot {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def with_db(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument("--config", help="YAML configuration file")
        p.add_argument("--db", help="SQLAlchemy URL or SQLite file path")
        return p

    def with_keys(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument("--key-file", help="file of ledger keys, one per line (the first "
                       "signs); overrides the config's ledger_key_file; $ANCATH_LEDGER_KEY "
                       "overrides both")
        return p

    run = with_keys(sub.add_parser("run", help="referee on IRC, or in a local console channel"))
    run.add_argument("--config")
    status = sub.add_parser("status", help="one line on the running IRC bot (the same "
                            "config): exit 0 when its heartbeat is fresh and it is connected, "
                            "else 1; a container's HEALTHCHECK")
    status.add_argument("--config", help="YAML configuration file")
    console = with_keys(with_db(sub.add_parser("console", help="one local console channel")))
    console.add_argument("--dice", help="scripted dice: N,N,...")

    warrior = sub.add_parser("warrior", help="warrior records").add_subparsers(
        dest="action", required=True)
    show = with_db(warrior.add_parser("show", help="one warrior"))
    show.add_argument("name")
    show.add_argument("--json", action="store_true")

    ledger = with_db(sub.add_parser("ledger", help="the BP ledger"))
    ledger.add_argument("--warrior")
    ledger.add_argument("--format", choices=("json", "csv", "table"), default="table")

    audit = sub.add_parser("audit", help="audit tools").add_subparsers(dest="action",
                                                                       required=True)
    verify = with_keys(with_db(audit.add_parser(
        "verify", help="check the ledger chain, every warrior and every finished fight")))
    verify.add_argument("--anchor", action="append", type=_anchor, default=[],
                        metavar="ID:HASH", help="a published ledger head "
                        "(4123:9f2c1a7e0b5d8c33) the chain must still extend; repeatable")
    verify.add_argument("--anchors", action="append", default=[], metavar="FILE",
                        help="any text (a channel log): every 'ledger #<id> <hash>' in it is "
                        "an anchor; repeatable")
    verify.add_argument("--export", metavar="FILE", help="check this audit export instead "
                        "of a database: no database and no secret needed, only --public-key")
    verify.add_argument("--public-key", type=public_key, metavar="KEY",
                        help="the club's public key (ed25519:<64 hex>, as key public prints "
                        "it): signed rows must be this key's, or introduced by it")
    export = with_keys(with_db(audit.add_parser(
        "export", help="write every ledger row with what proves it, every fight's logs and "
        "every warrior, as JSON Lines anyone can check with the public key")))
    export.add_argument("--out", required=True, metavar="FILE", help="the file to write")

    key = sub.add_parser("key", help="ledger keys").add_subparsers(dest="action",
                                                                   required=True)
    key.add_parser("new", help="print a new random ledger key (put it first in the key file "
                   "to rotate)")
    with_keys(with_db(key.add_parser("ids", help="the ids of the ledger keys configured, "
                                     "and which one signs")))
    with_keys(with_db(key.add_parser("public", help="the public key anyone checks the "
                                     "ledger with: one line, ed25519:<64 hex>")))

    moderator = sub.add_parser("moderator", help="moderators who log in by password")
    password = with_keys(with_db(moderator.add_subparsers(dest="action", required=True)
                                 .add_parser("password", help="set the password a moderator "
                                             "gives to !mod login (R8.2): asked twice at a "
                                             "terminal; without one (a pipe, docker exec "
                                             "without -it) the first line of standard input")))
    password.add_argument("name", help="the moderator's name, as listed in moderators:")
    password.add_argument("--password-stdin", action="store_true",
                          help="read the password from the first line of standard input, "
                          "even from a terminal (without one it always is: echo 'the "
                          "password' | ancath-bot moderator password NAME)")

    db = sub.add_parser("db", help="database tools").add_subparsers(dest="action",
                                                                    required=True)
    with_db(db.add_parser("upgrade", help="migrate the schema to the newest revision"))
    with_db(db.add_parser("current", help="print the schema revision"))
    down = with_db(db.add_parser("downgrade", help="take the schema back to an older "
                                 "revision (the next start upgrades it again)"))
    down.add_argument("revision", help="a revision id (0004), or base")
    home = with_keys(with_db(db.add_parser(
        "home-network", help="the network whose services accounts are the club's names "
        "(others' are <network>:<account>); a change is a signed ledger row")))
    home.add_argument("network", nargs="?", help="make this network the home (restart every "
                      "bot after); without it, print the home")
    with_keys(with_db(db.add_parser("seal-legacy", help="seal the legacy (unkeyed) ledger rows "
                                    "of a club from before ledger keys, once: the bot never "
                                    "does on its own")))

    web = with_keys(with_db(sub.add_parser(
        "web", help="the leadership pages: a read-only web server beside the bot")))
    web.add_argument("--host", help="the address to listen on (default: the config's web.host, "
                     "127.0.0.1)")
    web.add_argument("--port", type=_port, help="the port (default: web.port, 8080; 0 takes "
                     "any free port)")
    web.add_argument("--public-key", type=public_key, metavar="KEY",
                     help="the club's public key (ed25519:<64 hex>; default: web.public_key): "
                     "the pages prove the ledger with it, and need no ledger secret")

    backup = with_keys(with_db(sub.add_parser(
        "backup", help="copy a SQLite database while the bot runs (not its ledger key)")))
    backup.add_argument("file", help="the new file to write (never overwritten)")

    check = with_keys(sub.add_parser("config", help="the configuration").add_subparsers(
        dest="action", required=True).add_parser("check", help="validate the file and the "
        "environment as run does and say what run would do; connects to and writes nothing"))
    check.add_argument("--config", help="YAML configuration file")
    return parser


def _port(text: str) -> int:
    if not text.isdecimal() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: 0 to 65535")
    return int(text)


def _anchor(text: str) -> Anchor:
    try:
        return Anchor.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _keyring(args: argparse.Namespace, url: str, *, create: bool = False) -> Keyring:
    """The configured ledger keys; ``create`` makes a new SQLite database's default key,
    as the bot's first start does (else, for reading, nothing is made)."""
    key_file = getattr(args, "key_file", None) or \
        load_config(getattr(args, "config", None)).ledger_key_file
    return load_keyring(url, key_file, create=create)


def _key_ids(args: argparse.Namespace, url: str) -> int:
    keyring = _keyring(args, url)
    if not keyring.keys:
        print(f"ancath-bot: no ledger keys; a key is looked for in {keyring.looked}",
              file=sys.stderr)
        return 2
    for place, (public, kid) in enumerate(zip(keyring.public_keys, keyring.ids, strict=True)):
        print(f"{public.id} {'signs and verifies' if place == 0 else 'verifies'} "
              f"(from {keyring.source}; its HMAC id, of older rows: {kid})")
    return 0


def _warrior_json(store: Store, name: str) -> dict[str, Any]:
    """``warrior show``'s fields, as the warrior's rules system gives them."""
    record = store.warrior(name)
    return PLUGINS[record.system].fighters.show(record)


def _print_ledger(rows: Iterable[LedgerEntry], form: str) -> None:
    """Each row as it comes (the JSON is the one ``json.dumps(rows, indent=1)`` gives)."""
    if form == "json":
        sep = "[\n"
        for row in rows:
            sys.stdout.write(sep + textwrap.indent(json.dumps(row, indent=1), " "))
            sep = ",\n"
        print("[]" if sep == "[\n" else "\n]")
        return
    if form == "csv":
        sys.stdout.writelines(csv_chunks(rows))
        return
    for row in rows:
        bp = f"{row['bp']:+.1f}" if row["bp"] else ""
        spent = f"spent {row['spent']}" if row["spent"] else ""
        skill = f"{row['skill']}={row['skill_value']}" if row["skill"] else ""
        who = row["actor"] + (f" (mod {row['moderator']})" if row["moderator"] else "")
        whose = row["warrior"] or (   # a fight's row is on no warrior; a setting's, a
            f"fight {row['fight']}" if row["fight"] is not None else "club")   # moderator's
        fields = [str(row["id"]), row["at"][:19], whose, row["entry"], bp, spent,
                  skill, row["status"] or "", row["detail"], who, row["reason"]]
        print(printable("  ".join(f for f in fields if f)))


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
        desk.close(bot.referee)  # before the loop closes: a late answer calls it


def _serve(args: argparse.Namespace) -> int:
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
            serve(referee, sys.stdin, lambda line: print(line, flush=True))
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


def _read_password(name: str, from_stdin: bool) -> str:
    """The first line of standard input when asked, or when it is no terminal (a pipe,
    ``docker exec`` without ``-it``); else asked twice at the terminal."""
    if sys.stdin is None:   # closed (<&-)
        raise ConfigError(f"no standard input to read the password from (it is closed): "
                          f"echo 'the password' | ancath-bot moderator password {name}")
    try:
        if from_stdin or not sys.stdin.isatty():
            password = sys.stdin.readline().rstrip("\r\n")
            if not password:
                raise ConfigError(f"no password on standard input; give it as the first "
                                  f"line: echo 'the password' | ancath-bot moderator "
                                  f"password {name}")
        else:
            password = getpass.getpass(f"password for {name}: ")
            if getpass.getpass("again: ") != password:
                raise ConfigError("the two passwords differ; nothing was changed")
        password.encode()   # bytes that are no UTF-8 come surrogate-escaped
    except EOFError:   # Ctrl-D at the prompt
        raise ConfigError("no password given; nothing was changed") from None
    except UnicodeError:
        raise ConfigError("the password is not UTF-8 text; nothing was changed") from None
    return password


def _set_password(args: argparse.Namespace, url: str) -> int:
    """``moderator password <name>``: a slow hash of the password in the club's settings
    (the name and the password are checked before the database is opened)."""
    listed = load_config(getattr(args, "config", None)).moderators
    if args.name not in listed:
        raise ConfigError(f"{args.name} is not in moderators: in the configuration; add it "
                          "there first")
    password = _read_password(args.name, args.password_stdin)
    if len(password) < 8:
        raise ConfigError("a moderator's password has at least 8 characters")
    store = Store(open_database(url), keyring=_keyring(args, url, create=True))
    sealed = hash_password(password, args.name, store.keyring)
    store.set_setting(password_key(args.name), sealed, "cli", f"password for {args.name}")
    print(f"password set: {args.name} logs in with /msg <bot> !mod login <password>")
    return 0


def _db(args: argparse.Namespace, url: str) -> int:
    """``db upgrade``, ``db current``, ``db downgrade <revision>`` and ``db home-network
    [network]``."""
    if args.action == "upgrade":
        open_database(url)
        print("database schema is up to date")
    elif args.action == "current":
        revision, head = club_revision(url), head_revision()
        newest = "the newest" if revision == head else f"the newest is {head}"
        print(f"{revision} ({newest})")
    elif args.action == "home-network":
        _home_network(args, url)
    elif args.action == "seal-legacy":
        return audit_cli.seal_legacy(args, url, lambda a, u: _keyring(a, u, create=True))
    else:
        was = club_revision(url)   # a club's database must be there: nothing is made
        engine = make_engine(url)
        try:
            downgrade(engine, args.revision)
        finally:
            engine.dispose()
        print(f"database schema at {current_revision(url) or 'none'} (was {was}); "
              "`ancath-bot run` upgrades it again at its next start")
    return 0


def _home_network(args: argparse.Namespace, url: str) -> None:
    """Print the club's home network, or make ``args.network`` it (a ``setting-changed``
    ledger row, signed with the club's key); the schema is never migrated here (a
    database taken down for an older bot stays so)."""
    network: str | None = args.network
    if network is None:
        store = Store(open_read_only(url), keyring=Keyring())
        try:
            home = store.setting(HOME_NETWORK)
        finally:
            store.engine.dispose()
        print(f"home network: {home or 'none yet (the first IRC bot to start names it)'}")
        return
    try:
        network_name(network)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    revision, head = current_revision(url), head_revision()
    if revision != head:
        raise DatabaseProblem(f"the database's schema is at {revision or 'none'}, not this "
                              f"version's {head}: run `ancath-bot db upgrade` first")
    keyring = _keyring(args, url, create=True)
    store = Store(open_database(url, migrate=False), keyring=keyring)
    try:
        was = store.setting(HOME_NETWORK)
        store.set_setting(HOME_NETWORK, network, "command line",
                          f"home network set on the command line (was {was or 'none'})")
    finally:
        store.engine.dispose()
    print(f"home network: {network} (was {was or 'none'}); restart every bot of the club, "
          "and give each config this home_network: or none")


def _backup(args: argparse.Namespace, url: str) -> int:
    """``backup <file>``: the SQLite copy, and where its ledger key is (not in it)."""
    source = backup_sqlite(url, args.file)
    keyring = _keyring(args, url)
    where = keyring.source if keyring.keys else f"none found: {keyring.looked}"
    print(f"backed up {source} to {args.file}; the ledger key is not in it (the key: "
          f"{where}): keep both; check it with ancath-bot audit verify --db {args.file} "
          "--key-file <the key file>")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command in ("run", "console"):
            return _serve(args)
        if args.command == "config":
            print("\n".join(check_config(args.config, args.key_file)))
            return 0
        if args.command == "key" and args.action == "new":
            print(new_key())
            return 0
        if args.command == "audit" and args.action == "verify" and args.export:
            return audit_cli.verify(args, None, _keyring)
        if args.command == "status":
            healthy, line = heartbeat.status(heartbeat.heartbeat_path(load_config(args.config)))
            print(line)
            return 0 if healthy else 1
        url = _database(args)
        if args.command == "backup":   # SQLite's own copy: no driver needed
            return _backup(args, url)
        check_url(url)   # before a key is looked for or the database touched
        if args.command == "db":
            return _db(args, url)
        if args.command == "key":
            if args.action == "public":
                return audit_cli.key_public(args, url, _keyring)
            return _key_ids(args, url)
        if args.command == "audit":
            run = audit_cli.verify if args.action == "verify" else audit_cli.export
            return run(args, url, _keyring)
        if args.command == "web":
            # Starlette and uvicorn are imported for the pages only
            from bot.web.server import serve as serve_web

            return serve_web(load_config(args.config), url, key_file=args.key_file,
                             host=args.host, port=args.port, public_key=args.public_key)
        if args.command == "ledger":   # read only: no keys needed, none made
            store = Store(open_read_only(url), keyring=Keyring())
            _print_ledger(store.ledger_rows(args.warrior), args.format)
            return 0
        if args.command == "moderator":
            return _set_password(args, url)
        data = _warrior_json(Store(open_database(url)), args.name)
        if args.json:
            print(json.dumps(data))
        else:
            print("\n".join(f"{k}: {v}" for k, v in data.items()))
        return 0
    except (ConfigError, StorageError, KeyringError, DatabaseUnavailable) as error:
        print(f"ancath-bot: {' '.join(str(error).split())}", file=sys.stderr)  # one line
        return 2
    except DBAPIError as error:   # the database failed under the command (a damaged page)
        said = database_problem(getattr(args, "db", None) or "the database", error)
        print(f"ancath-bot: {' '.join(str(said).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
