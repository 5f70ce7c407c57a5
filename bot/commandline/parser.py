"""The ``ancath-bot`` command line's options, every subcommand's (a contract: other
tools drive the bot through it, :mod:`bot.cli`)."""

from __future__ import annotations

import argparse
import importlib.metadata

from bot.commandline.audit import public_key
from storage.ledger import Anchor

__all__ = ["build_parser"]


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
