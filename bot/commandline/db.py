"""``ancath-bot db upgrade``, ``db current``, ``db downgrade``, ``db home-network``, ``db
seal-legacy`` and ``backup``: the schema, the club's home network, a club from before
ledger keys sealed once on the operator's word, and a SQLite copy."""

from __future__ import annotations

import argparse

from bot.commandline.keys import keyring_of
from bot.config import ConfigError, load_config, network_name
from bot.systems.registry import SYSTEMS
from storage.backup import backup_sqlite
from storage.club import HOME_NETWORK
from storage.db import open_database, open_read_only
from storage.db_engines import make_engine
from storage.errors import DatabaseProblem
from storage.keys import Keyring
from storage.ledger_view import LedgerFilter
from storage.models import Entry
from storage.schema_revision import club_revision, current_revision, downgrade, head_revision
from storage.store import Store

__all__ = ["backup", "database", "db"]


def database(args: argparse.Namespace) -> str:
    """The database's URL: ``--db``, else the config's."""
    if getattr(args, "db", None):
        return str(args.db)
    return load_config(getattr(args, "config", None)).database


def db(args: argparse.Namespace, url: str) -> int:
    """``db upgrade``, ``db current``, ``db downgrade <revision>``, ``db home-network
    [network]`` and ``db seal-legacy``."""
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
        return _seal_legacy(args, url)
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
        store = Store(open_read_only(url), systems=SYSTEMS.rules, keyring=Keyring())
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
    keyring = keyring_of(args, url, create=True)
    store = Store(open_database(url, migrate=False), systems=SYSTEMS.rules, keyring=keyring)
    try:
        was = store.setting(HOME_NETWORK)
        store.set_setting(HOME_NETWORK, network, "command line",
                          f"home network set on the command line (was {was or 'none'})")
    finally:
        store.engine.dispose()
    print(f"home network: {network} (was {was or 'none'}); restart every bot of the club, "
          "and give each config this home_network: or none")


def _seal_legacy(args: argparse.Namespace, url: str) -> int:
    """``db seal-legacy``: the legacy rows of a club from before ledger keys sealed by a
    signed ``ledger-keyed`` row that names how many rows it seals (and ``attested`` rows
    of its warriors and finished fights), once; the schema is upgraded first, as the
    bot's start does. The bot never does this on its own: anyone who can write the
    database can make a chain of legacy rows."""
    engine = open_database(url)
    try:
        store = Store(engine, systems=SYSTEMS.rules, keyring=keyring_of(args, url, create=True))
        before = store.ledger_head()
        written = store.seal_legacy(legacy=True)
        keyed = store.ledger_page(LedgerFilter(entries=(Entry.LEDGER_KEYED,)), limit=1).rows
    finally:
        engine.dispose()
    if not written or before is None or not keyed or keyed[0]["id"] != before.id + 1:
        print("nothing to seal: no ledger row waits for a seal (the ledger is empty, or "
              "signed already)")
        return 0
    print(f"sealed {before.id} ledger rows (1..{before.id}) with key "
          f"{store.keyring.signer().public.id}: the signed ledger-keyed row #{before.id + 1} "
          f"names them, and {written - 1} attested rows follow it; the bot starts now")
    return 0


def backup(args: argparse.Namespace, url: str) -> int:
    """``backup <file>``: the SQLite copy, and where its ledger key is (not in it)."""
    source = backup_sqlite(url, args.file)
    keyring = keyring_of(args, url)
    where = keyring.source if keyring.keys else f"none found: {keyring.looked}"
    print(f"backed up {source} to {args.file}; the ledger key is not in it (the key: "
          f"{where}): keep both; check it with ancath-bot audit verify --db {args.file} "
          "--key-file <the key file>")
    return 0
