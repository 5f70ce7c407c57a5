"""People and free text as the pages show them: never a ``user@host``.

An identity is a services account, ``bot`` for the referee's own rolls, or a
``user@host`` (a player on a network without services, :func:`is_host_identity`), which
the pages call "unregistered". Free text that people typed (reasons, ransoms, and the
audit's findings, which may quote an owner) has any ``user@host`` in it hidden the same
way. Everything is HTML-escaped by the templates, not here.
"""

from __future__ import annotations

import re
from typing import Any

from bot.identity.people import is_host_identity
from storage.records import LedgerEntry

__all__ = ["UNREGISTERED", "hide_hosts", "ledger_fields", "who"]

UNREGISTERED = "unregistered"
_HOST = re.compile(r"[^\s@'\"<>()\[\]{},;]+@[^\s@'\"<>()\[\]{},;]+")
"""A ``user@host`` (or ``nick!user@host``) inside text."""


def _text(value: object) -> str:
    """Text as stored; anything else (bytes, a number: written outside the bot) in
    words."""
    return value if isinstance(value, str) else str(value)


def who(identity: str | None) -> str:
    """An identity as shown: the account, or "unregistered"; '' for none."""
    if not identity:
        return ""
    identity = _text(identity)
    return UNREGISTERED if is_host_identity(identity) else identity


def hide_hosts(text: str | None) -> str:
    """Free text with every ``user@host`` in it shown as "unregistered"."""
    return _HOST.sub(UNREGISTERED, _text(text)) if text else ""


def ledger_fields(row: LedgerEntry) -> dict[str, Any]:
    """A ledger row as every page and download shows it: ``ancath-bot ledger``'s keys,
    the actor and moderator by account, the reason and the detail's words with no
    ``user@host``."""
    return {**row, "entry": row["entry"].value, "actor": who(row["actor"]),
            "moderator": who(row["moderator"]) or None, "reason": hide_hosts(row["reason"]),
            "detail": hide_hosts(row["detail"])}
