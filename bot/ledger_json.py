"""The ledger as ``ancath-bot ledger --format json`` writes it: one JSON array, the text
``json.dumps(rows, indent=1)`` gives of the rows' dictionaries, written a piece per
``CHUNK`` rows from their plain values (``Store.ledger_values``), so memory stays flat.
An indented ``json.dumps`` runs the standard library's pure-Python encoder, a generator
step per key; here each value goes through the same scalar encoder that one would call
(``json.encoder``'s), into a template of the row's keys. A value of any other type (none
the ledger holds) takes ``json.dumps`` itself, so the text is the same either way."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from json.encoder import INFINITY, encode_basestring_ascii
from typing import Any

from bot.ledger_csv import CHUNK
from storage.ledger_view import LEDGER_KEYS
from storage.models import Entry

__all__ = ["json_chunks"]


def _float(value: float) -> str:
    """``json.encoder``'s ``floatstr`` (NaN and infinities allowed, as ``json.dumps``)."""
    if value != value:
        return "NaN"
    if value == INFINITY:
        return "Infinity"
    return "-Infinity" if value == -INFINITY else float.__repr__(value)


_SCALARS: dict[type, Callable[[Any], str]] = {
    str: encode_basestring_ascii, Entry: encode_basestring_ascii, int: int.__repr__,
    float: _float, type(None): lambda _: "null", bool: lambda b: "true" if b else "false"}
_ITEM = " {" + ",".join(f"\n  {json.dumps(key)}: %s" for key in LEDGER_KEYS) + "\n }"
"""A row's object as ``json.dumps(row, indent=1)`` gives it, indented one more space."""


def _item(values: Sequence[Any]) -> str:
    try:
        return _ITEM % tuple([_SCALARS[value.__class__](value) for value in values])
    except KeyError:
        row = dict(zip(LEDGER_KEYS, values, strict=True))
        return textwrap.indent(json.dumps(row, indent=1), " ")


def json_chunks(rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """The array's text, ``CHUNK`` rows a piece (``[]`` and a new line when empty)."""
    sep = "[\n"
    values = iter(rows)
    while piece := list(islice(values, CHUNK)):
        yield sep + ",\n".join(map(_item, piece))
        sep = ",\n"
    yield "[]\n" if sep == "[\n" else "\n]\n"
