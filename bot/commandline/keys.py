"""``ancath-bot key ids`` and ``key public``, and the ledger keys every subcommand that
reads or writes the ledger loads (``--key-file``, the config's ``ledger_key_file``,
``$ANCATH_LEDGER_KEY``)."""

from __future__ import annotations

import argparse
import sys

from bot.config import load_config
from storage.keys import Keyring, load_keyring

__all__ = ["key_ids", "key_public", "keyring_of"]


def keyring_of(args: argparse.Namespace, url: str, *, create: bool = False) -> Keyring:
    """The configured ledger keys; ``create`` makes a new SQLite database's default key,
    as the bot's first start does (else, for reading, nothing is made)."""
    key_file = getattr(args, "key_file", None) or \
        load_config(getattr(args, "config", None)).ledger_key_file
    return load_keyring(url, key_file, create=create)


def key_ids(args: argparse.Namespace, url: str) -> int:
    """``key ids``: each key's id, and which one signs."""
    found = keyring_of(args, url)
    if not found.keys:
        print(f"ancath-bot: no ledger keys; a key is looked for in {found.looked}",
              file=sys.stderr)
        return 2
    for place, (public, kid) in enumerate(zip(found.public_keys, found.ids, strict=True)):
        print(f"{public.id} {'signs and verifies' if place == 0 else 'verifies'} "
              f"(from {found.source}; its HMAC id, of older rows: {kid})")
    return 0


def key_public(args: argparse.Namespace, url: str) -> int:
    """``key public``: the public key of the key that signs, one line."""
    found = keyring_of(args, url)
    if not found.keys:
        print(f"ancath-bot: no ledger key; a key is looked for in {found.looked}",
              file=sys.stderr)
        return 2
    print(found.signer().public.text)
    return 0
