"""Query parameters read strictly, and the errors a page answers with.

A parameter that is missing or empty is None; one that is there but wrong (not a whole
number, out of range, not a day, an unknown word, too long) is a :class:`BadRequest`
naming it, so hostile input gets a 400 page with one short line, never a server error.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from datetime import date

__all__ = ["LONGEST", "BadRequest", "NotFound", "PageError", "day", "moment", "number",
           "one_of", "words"]

LONGEST = 200
"""The most characters a text parameter may have."""
_BIGGEST = 10**12
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_MOMENT = re.compile(r"\d{4}-\d{2}-\d{2}T[0-9:.+\-]{1,40}")


class PageError(Exception):
    """A request the pages refuse: ``status`` and a short message for the page."""

    status = 500


class BadRequest(PageError):
    status = 400


class NotFound(PageError):
    status = 404


def _given(params: Mapping[str, str], name: str) -> str | None:
    value = params.get(name, "").strip()
    return value or None


def number(params: Mapping[str, str], name: str, low: int = 1,
           high: int = _BIGGEST) -> int | None:
    """A whole number from ``low`` to ``high``."""
    value = _given(params, name)
    if value is None:
        return None
    if not value.isdecimal() or len(value) > 13 or not low <= int(value) <= high:
        raise BadRequest(f"{name}: a whole number from {low} to {high}")
    return int(value)


def one_of(params: Mapping[str, str], name: str, choices: Collection[str]) -> str | None:
    """One of ``choices``, as given."""
    value = _given(params, name)
    if value is not None and value not in choices:
        raise BadRequest(f"{name}: one of {', '.join(sorted(choices))}")
    return value


def day(params: Mapping[str, str], name: str) -> date | None:
    """A day as ``YYYY-MM-DD``, from 0001-01-01 to 9999-12-30."""
    value = _given(params, name)
    if value is None:
        return None
    try:
        found = date.fromisoformat(value) if _DAY.fullmatch(value) else None
    except ValueError:
        found = None
    if found is None or found == date.max:
        raise BadRequest(f"{name}: a day as YYYY-MM-DD, such as 2026-03-01")
    return found


def moment(params: Mapping[str, str], name: str) -> str | None:
    """A time as the records keep it (ISO 8601, ``2026-03-01T20:15:00.000000+00:00``)."""
    value = _given(params, name)
    if value is not None and not _MOMENT.fullmatch(value):
        raise BadRequest(f"{name}: a time such as 2026-03-01T20:15:00+00:00")
    return value


def words(params: Mapping[str, str], name: str) -> str | None:
    """Text of at most ``LONGEST`` characters."""
    value = _given(params, name)
    if value is not None and (len(value) > LONGEST or "\x00" in value):
        raise BadRequest(f"{name}: at most {LONGEST} characters of text")
    return value
