"""``ancath-bot config check``: the configuration file and the environment validated as
``run`` reads them, and what ``run`` would do, without doing it.

Nothing is connected or written: no IRC connection, no database made or migrated, no
ledger key file made, no log file opened; a PostgreSQL database is not contacted, and a
SQLite file is only read (its schema revision, and which key signed its newest row, so
a missing or wrong key stops the check as it would stop the start). Secrets are named by
where they come from, never shown. What stops ``run`` is one line, exit 2.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import make_url
from sqlalchemy.orm import Session

from bot.config import BotConfig, ConfigError, IrcConfig, load_config
from bot.config_rules import ENV_NESTING, ENV_PREFIX
from bot.console import DEFAULT_CHANNEL
from bot.heartbeat import heartbeat_path
from storage import ledger
from storage.db import _check_writable, open_read_only
from storage.db_engines import check_file as _check_file
from storage.db_urls import check_url, database_url, shown_url, sqlite_path
from storage.keys import KeyringError, default_key_path, load_keyring
from storage.schema_revision import current_revision, head_revision

__all__ = ["check", "irc_at_start"]


def check(path: str | None, key_file: str | None) -> list[str]:
    """What ``run --config path [--key-file key_file]`` would do, a line a topic;
    ``ConfigError``, ``KeyringError`` or ``DatabaseProblem`` for what would stop it."""
    config = load_config(path)
    url = config.database
    keys = {k.upper() for k in BotConfig.model_fields}
    variables = sorted(f"${n}" for n in os.environ if n.upper().startswith(ENV_PREFIX)
                       and n.upper()[len(ENV_PREFIX):].split(ENV_NESTING)[0] in keys)
    lines = [f"config: {path or 'no file'}" + (f", and from the environment "
                                                f"{', '.join(variables)}" if variables else ""),
             f"database: {_database(url)}",
             f"ledger key: {_key(url, key_file or config.ledger_key_file)}",
             f"network: {config.network}; home network: "
             f"{config.home_network or 'the first network a bot of the club starts on'}"]
    irc = config.irc
    if irc is None:
        lines.append(f"irc: none: run serves the local console channel {DEFAULT_CHANNEL} "
                     "(in a terminal)")
    else:
        lines += [*_irc(irc), f"heartbeat: {heartbeat_path(config)} (ancath-bot status reads "
                  "it; one running bot a file)"]
    if config.other_processes_env:
        lines.append("other processes' variables, not read here: " + ", ".join(
            f"${n}{'' if n in os.environ else ' (not set)'}" for n in config.other_processes_env))
    lines.append("moderators: " + (", ".join(
        f"{m} ({'mask' if '!' in m else 'account or password login'})"
        for m in config.moderators) or "none: nobody can use !mod"))
    lines.append(f"log: {config.log.level}, {config.log.format}, to "
                 f"{_log_file(config.log.file) if config.log.file else 'standard error'}")
    lines.append("ok: nothing was connected or written")
    return lines


def _database(url: str) -> str:
    """The database, and what the start does to it (a SQLite file read only)."""
    check_url(url)   # what stops the start: an unknown database or missing driver,
    _check_file(url)   # a missing directory, a lost file, a file that cannot be written
    _check_writable(url)
    path = sqlite_path(url)
    if path is None:
        if make_url(database_url(url)).drivername.startswith("sqlite"):
            return "SQLite in memory: nothing is kept"
        return f"{shown_url(url)} (not contacted here)"
    if not path.exists():
        return f"{path} (SQLite; made at the first start)"
    revision, head = current_revision(url), head_revision()
    if revision == head:
        return f"{path} (SQLite, schema {revision}, the newest)"
    return f"{path} (SQLite, schema {revision or 'none'}: run upgrades it to {head})"


def _key(url: str, key_file: str | None) -> str:
    """Where the ledger key comes from, and the public key it signs with (never the key);
    a key that would not sign the database's chain stops the check as it stops the start."""
    keyring = load_keyring(url, key_file, create=default_key_path(url) is None)
    path = sqlite_path(url)
    chain = None
    if path is not None and path.exists() and current_revision(url) == head_revision():
        engine = open_read_only(url)
        try:
            with Session(engine) as session:
                chain = ledger.head_row(session)
        finally:
            engine.dispose()
    kid = chain.key_id if chain is not None else None
    if kid is not None and keyring.get(kid) is None and keyring.public(kid) is None:
        raise KeyringError(f"the newest ledger row #{chain.last_id if chain else 0} is signed "
                           f"with key {kid}, which is not available (have "
                           f"{keyring.describe()}); a key is looked for in {keyring.looked}")
    if not keyring.keys:
        made = default_key_path(url)
        return f"none yet: the first start makes {made and made.absolute()} (mode 0600)"
    count = f"{len(keyring.keys)} keys, the first signs" if len(keyring.keys) > 1 else "1 key"
    return f"from {keyring.source} ({count}; public key {keyring.signer().public.text})"


def _irc(irc: IrcConfig) -> list[str]:
    """Where and how the bot would connect, and where its secrets come from."""
    if not irc.tls:
        how = "plain text (no TLS)"
    elif irc.tls_fingerprint:
        how = "TLS, the certificate pinned by its fingerprint"
    else:
        how = f"TLS, trusting {irc.tls_ca_file or 'the system CAs'}"
    if irc.tls_client_cert:
        how += f", client certificate {irc.tls_client_cert}"
    lines = [f"irc: {irc.server}:{irc.port} over {how}, as {irc.nick} (then "
             f"{', '.join(irc.alt_nicks) or 'no other nick'})"]
    started, without = irc_at_start(irc)
    mechanism = started.sasl()
    if without:
        lines.append(f"sasl: none: ${irc.sasl_password_env} is not set and "
                     "irc.sasl_required is false: run goes on without SASL (a WARNING)")
    elif mechanism == "PLAIN":
        lines.append(f"sasl: PLAIN as {irc.sasl_account}, the password from "
                     f"${irc.sasl_password_env}")
    elif mechanism == "EXTERNAL":
        lines.append("sasl: EXTERNAL, by the client certificate")
    if irc.server_password_env:
        lines.append(f"server password: from ${irc.server_password_env}")
    lines.append(f"channels: {', '.join(irc.channels) or 'none (it joins no channel)'}")
    return lines


def irc_at_start(irc: IrcConfig) -> tuple[IrcConfig, str | None]:
    """What ``run`` connects with, and the WARNING it logs when it goes on without SASL
    (PLAIN's password variable is not set, and ``irc.sasl_required`` is false);
    ``ConfigError`` for a password variable that is not set where it is needed (an
    empty one is not set: the server would refuse it)."""
    if irc.server_password_env and not os.environ.get(irc.server_password_env):
        raise ConfigError(f"irc.server_password_env: {_unset(irc.server_password_env)}")
    if irc.sasl() != "PLAIN" or irc.sasl_password():
        return irc, None
    if irc.sasl_required:
        raise ConfigError(f"irc.sasl_account {irc.sasl_account}: "
                          f"{_unset(irc.sasl_password_env)}, or irc.sasl_required: false to "
                          "go on without SASL")
    return irc.model_copy(update={"sasl_account": None, "sasl_mechanism": None}), (
        f"${irc.sasl_password_env} is not set and irc.sasl_required is false: going on "
        f"without SASL, not logged in as {irc.sasl_account}")


def _unset(variable: str) -> str:
    return f"${variable} is not set: set it in the environment (a secret never goes in the file)"


def _log_file(name: str) -> str:
    """``name``, when ``run`` could append to it (checked without opening it)."""
    path = Path(name)
    if path.is_dir():
        problem: str | None = "it is a directory"
    elif not path.exists() and not path.parent.is_dir():
        problem = f"the directory {path.parent} does not exist"
    else:
        problem = None if os.access(path if path.exists() else path.parent,
                                    os.W_OK) else "Permission denied"
    if problem:
        raise ConfigError(f"log.file: cannot open {name}: {problem}")
    return name
