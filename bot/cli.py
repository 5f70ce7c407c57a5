"""The ``ancath-bot`` command line (a contract: other tools drive the bot through it).

``run`` and ``console`` referee fights; ``warrior show``, ``ledger`` and ``audit
verify`` serve leadership, and ``web`` serves them the leadership pages beside the bot
(:mod:`bot.web`); ``db upgrade``, ``db current`` and ``db downgrade`` keep the schema,
``db home-network`` shows or sets the club's home network, ``backup`` copies a SQLite
database; ``key new``, ``key ids`` and ``key public`` help keep the ledger keys;
``audit export`` writes what ``audit verify --export`` checks with the public key alone
(:mod:`bot.commandline.audit`). ``ledger`` and ``audit verify`` never change the database
(no migration; a read-only file or a backup copy can be checked). ``status`` says whether
the running IRC bot is alive and connected, from its heartbeat (:mod:`bot.heartbeat`).
``config check`` says what ``run`` would do, touching nothing (:mod:`bot.config_check`).
Each family of subcommands is a module of :mod:`bot.commandline`; this one parses and
dispatches.

Exit status: 0 done (for ``audit verify``: all proved; for ``status``: healthy), 1
``audit verify`` found problems or ``status`` did not find the bot healthy, 2 an error (a
bad option, configuration or database, or a ledger key that is not available), 3 and 4
scripted dice ran out or were left over.
"""

from __future__ import annotations

import sys

from sqlalchemy.exc import DBAPIError

from bot.commandline import audit, db, keys, moderators, records
from bot.commandline.parser import build_parser
from bot.config import ConfigError, load_config
from bot.config_check import check as check_config
from storage.db_engines import DatabaseUnavailable
from storage.db_urls import check_url, database_problem
from storage.keys import KeyringError, new_key
from storage.store import StorageError

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command in ("run", "console"):   # the IRC client is imported for these only
            from bot.commandline import run

            return run.serve(args)
        if args.command == "config":
            print("\n".join(check_config(args.config, args.key_file)))
            return 0
        if args.command == "key" and args.action == "new":
            print(new_key())
            return 0
        if args.command == "audit" and args.action == "verify" and args.export:
            return audit.verify(args, None)
        if args.command == "status":
            from bot import heartbeat

            healthy, line = heartbeat.status(heartbeat.heartbeat_path(load_config(args.config)))
            print(line)
            return 0 if healthy else 1
        url = db.database(args)
        if args.command == "backup":   # SQLite's own copy: no driver needed
            return db.backup(args, url)
        check_url(url)   # before a key is looked for or the database touched
        if args.command == "db":
            return db.db(args, url)
        if args.command == "key":
            if args.action == "public":
                return keys.key_public(args, url)
            return keys.key_ids(args, url)
        if args.command == "audit":
            return (audit.verify if args.action == "verify" else audit.export)(args, url)
        if args.command == "web":
            # Starlette and uvicorn are imported for the pages only
            from bot.web.server import serve as serve_web

            return serve_web(load_config(args.config), url, key_file=args.key_file,
                             host=args.host, port=args.port, public_key=args.public_key)
        if args.command == "ledger":   # read only: no keys needed, none made
            return records.ledger(args, url)
        if args.command == "moderator":
            return moderators.set_password(args, url)
        return records.warrior_show(args, url)
    except (ConfigError, StorageError, KeyringError, DatabaseUnavailable) as error:
        print(f"ancath-bot: {' '.join(str(error).split())}", file=sys.stderr)  # one line
        return 2
    except DBAPIError as error:   # the database failed under the command (a damaged page)
        said = database_problem(getattr(args, "db", None) or "the database", error)
        print(f"ancath-bot: {' '.join(str(said).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
