"""Query parameters read strictly, and the errors a page answers with.

A parameter that is missing or empty is None; one that is there but wrong (not a whole
number, out of range, not a day, an unknown word, too long) is a :class:`BadRequest`
naming it, so hostile input gets a 400 page with one short line, never a server error.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from datetime import date

from storage.records import LogPlace

__all__ = ["LARGEST", "LONGEST", "BadRequest", "NotFound", "NotNow", "PageError", "day",
           "log_place", "number", "one_of", "place_text", "some_of", "words"]

LONGEST = 200
"""The most characters a text parameter may have."""
LARGEST = 2**31 - 1
"""The largest whole number a parameter may give: PostgreSQL's ``integer``, the type of
the ids the pages look up by (a larger one there would fail the query: a 500)."""
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_PLACE = re.compile(r"(\d{4}-\d{2}-\d{2}T[0-9:.+\-]{1,40})~([ur])(\d{1,12})")


class PageError(Exception):
    """A request the pages refuse: ``status`` and a short message for the page."""

    status = 500


class BadRequest(PageError):
    status = 400


class NotFound(PageError):
    status = 404


class NotNow(PageError):
    """Busy: the page can be read in a moment."""

    status = 503


def _given(params: Mapping[str, str], name: str) -> str | None:
    value = params.get(name, "").strip()
    return value or None


def number(params: Mapping[str, str], name: str, low: int = 1,
           high: int = LARGEST) -> int | None:
    """A whole number from ``low`` to ``high``."""
    value = _given(params, name)
    if value is None:
        return None
    if not (value.isascii() and value.isdecimal()) or len(value) > 13 or \
            not low <= int(value) <= high:
        raise BadRequest(f"{name}: a whole number from {low} to {high}")
    return int(value)


def one_of(params: Mapping[str, str], name: str, choices: Collection[str]) -> str | None:
    """One of ``choices``, as given."""
    value = _given(params, name)
    if value is not None and value not in choices:
        raise BadRequest(f"{name}: one of {', '.join(sorted(choices))}")
    return value


def some_of(values: Iterable[str], name: str, choices: Collection[str]) -> tuple[str, ...]:
    """Any of ``choices``, each once, in the order given (``?kind=award&kind=spend``)."""
    found: dict[str, None] = {}
    for value in (v.strip() for v in values):
        if value and value not in choices:
            raise BadRequest(f"{name}: any of {', '.join(sorted(choices))}")
        if value:
            found[value] = None
    return tuple(found)


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


def log_place(params: Mapping[str, str], name: str) -> LogPlace | None:
    """A place in the moderators' log, as :func:`place_text` writes it."""
    value = _given(params, name)
    if value is None:
        return None
    found = _PLACE.fullmatch(value)
    if found is None or int(found[3]) > LARGEST:
        raise BadRequest(f"{name}: a place in the log, as the Newer and Older links give it")
    return LogPlace(found[1], found[2] == "u", int(found[3]))


def place_text(place: LogPlace) -> str:
    """``2026-03-01T20:15:00.000000+00:00~r4123``: the time, then an undo's (``u``) or a
    ledger row's (``r``) id."""
    return f"{place.at}~{'u' if place.undo else 'r'}{place.id}"


def words(params: Mapping[str, str], name: str) -> str | None:
    """Text of at most ``LONGEST`` characters."""
    value = _given(params, name)
    if value is not None and (len(value) > LONGEST or "\x00" in value):
        raise BadRequest(f"{name}: at most {LONGEST} characters of text")
    return value
