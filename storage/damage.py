"""Stored JSON that is not JSON, read without a traceback.

SQLite keeps a JSON column as text, so a damaged or hand-edited row may hold text that
is no JSON at all (PostgreSQL refuses such a value). Reading it raised in the middle of
a query, and took every other row of that query down with it: the bot could not start
for one damaged setting. The SQLite engines read JSON with :func:`loads`, which gives
such a value as an :class:`Unreadable` instead: a mapping of one key, ``UNREADABLE``, to
the text as stored. Whoever needs the value finds none of its fields, and says so
(``storage.errors.DamagedRecord``; a setting is skipped, a fight is not resumed), while
a digest or a ledger row's hash over it is one of the damaged text itself, never of an
empty value that could pass for what was there.
"""

from __future__ import annotations

import json
import logging
from typing import Any

__all__ = ["UNREADABLE", "Unreadable", "loads", "setting_value", "unreadable"]

log = logging.getLogger(__name__)

UNREADABLE = "unreadable JSON"
"""The one key of an :class:`Unreadable`: the text as stored."""


class Unreadable(dict[str, Any]):
    """A stored JSON value that is not JSON: ``{UNREADABLE: <the text>}``."""

    @property
    def text(self) -> str:
        return str(self[UNREADABLE])


def loads(text: str | bytes) -> Any:
    """``json.loads``, with text that is not JSON as an :class:`Unreadable`."""
    try:
        return json.loads(text)
    except ValueError:   # JSONDecodeError, or bytes that are not UTF-8
        raw = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        return Unreadable({UNREADABLE: raw})


def unreadable(value: Any) -> str | None:
    """Why ``value``, read from a JSON column, cannot be used as the bot wrote it: not
    JSON (a few of its characters shown), or None when it is JSON."""
    if isinstance(value, Unreadable):
        shown = value.text if len(value.text) <= 24 else f"{value.text[:24]}..."
        return f"not JSON ({shown!r})"
    return None


def setting_value(key: str, stored: Any, default: Any = None) -> Any:
    """The value a row of the settings table holds (``{"value": ...}``); ``default``
    for a row not so shaped (not JSON, or JSON the bot never writes there), with a
    WARNING naming it: the setting is skipped, as if never set."""
    if isinstance(stored, dict) and not isinstance(stored, Unreadable):
        return stored.get("value", default)
    said = unreadable(stored) or f"{stored!r}, not a setting's value"
    log.warning("setting %s is damaged (%s): skipped, as if never set; a moderator sets it "
                "again (the !mod command that sets it, or ancath-bot)", key, said)
    return default
