"""The ledger as CSV: the one writer of ``ancath-bot ledger --format csv`` and of the
web download (``/ledger.csv``). Rows come as ``ancath-bot ledger`` gives them (the web
shows them as its pages do first), as dictionaries or as plain values in
``LEDGER_KEYS`` order; the text comes a piece per ``CHUNK`` rows, so memory stays flat
however many rows there are. A cell a spreadsheet would run as a formula (``=``,
``+``, ``-``, ``@``, a tab or a carriage return first) starts with ``'``."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import islice
from operator import itemgetter
from typing import Any

from storage.ledger_view import LEDGER_KEYS

__all__ = ["CHUNK", "CSV_COLUMNS", "csv_chunks", "csv_value_chunks", "spreadsheet_safe"]

CHUNK = 500
"""Rows per piece of text."""
CSV_COLUMNS = ("id", "at", "warrior", "entry", "bp", "spent", "skill", "skill_value", "status",
               "actor", "moderator", "fight", "reason", "detail")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_IN_CSV_ORDER = itemgetter(*(LEDGER_KEYS.index(name) for name in CSV_COLUMNS))


def spreadsheet_safe(value: Any) -> Any:
    """Text a spreadsheet would take for a formula, quoted so it stays text."""
    if isinstance(value, str) and value.startswith(_FORMULA):
        return "'" + value
    return value


def csv_chunks(rows: Iterable[Mapping[str, Any]],
               columns: Sequence[str] = CSV_COLUMNS) -> Iterator[str]:
    """The CSV text of rows as dictionaries (a column a row lacks is empty), of
    ``columns`` (the web's one-warrior download adds ``balance``)."""
    return _chunks(([row.get(name, "") for name in columns] for row in rows), columns)


def csv_value_chunks(rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """The CSV text of rows as their values in ``LEDGER_KEYS`` order
    (``Store.ledger_values``): the same text ``csv_chunks`` gives of their dictionaries."""
    return _chunks(map(_IN_CSV_ORDER, rows))


def _chunks(cells: Iterable[Sequence[Any]],
            columns: Sequence[str] = CSV_COLUMNS) -> Iterator[str]:
    """The header, then the rows (each its ``columns``' cells) ``CHUNK`` at a time."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(columns)
    yield _taken(out)
    rows = iter(cells)
    while piece := list(islice(rows, CHUNK)):
        writer.writerows([_safe(row) for row in piece])
        yield _taken(out)


def _safe(row: Sequence[Any]) -> Sequence[Any]:
    """``row`` with every cell ``spreadsheet_safe``, copied only when one must change."""
    for value in row:
        if isinstance(value, str) and value.startswith(_FORMULA):
            return list(map(spreadsheet_safe, row))
    return row


def _taken(out: io.StringIO) -> str:
    """What ``out`` holds, and ``out`` emptied."""
    text = out.getvalue()
    out.seek(0)
    out.truncate()
    return text
