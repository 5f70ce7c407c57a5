"""``ancath-bot moderator password <name>``: the password a moderator gives to ``!mod
login`` (R8.2), kept as a slow hash in the club's settings."""

from __future__ import annotations

import argparse
import getpass
import sys

from bot.chat.moderators import hash_password, password_key
from bot.commandline.keys import keyring_of
from bot.config import ConfigError, load_config
from bot.systems.registry import SYSTEMS
from storage.db import open_database
from storage.store import Store

__all__ = ["set_password"]


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


def set_password(args: argparse.Namespace, url: str) -> int:
    """``moderator password <name>``: a slow hash of the password in the club's settings
    (the name and the password are checked before the database is opened)."""
    listed = load_config(getattr(args, "config", None)).moderators
    if args.name not in listed:
        raise ConfigError(f"{args.name} is not in moderators: in the configuration; add it "
                          "there first")
    password = _read_password(args.name, args.password_stdin)
    if len(password) < 8:
        raise ConfigError("a moderator's password has at least 8 characters")
    store = Store(open_database(url), systems=SYSTEMS.rules,
                  keyring=keyring_of(args, url, create=True))
    sealed = hash_password(password, args.name, store.keyring)
    store.set_setting(password_key(args.name), sealed, "cli", f"password for {args.name}")
    print(f"password set: {args.name} logs in with /msg <bot> !mod login <password>")
    return 0
