"""The ledger as CSV: the one writer of ``ancath-bot ledger --format csv`` and of the
web download (``/ledger.csv``). Rows come as ``ancath-bot ledger`` gives them (the web
shows them as its pages do first); the text comes a piece per ``CHUNK`` rows, so memory
stays flat however many rows there are. A cell a spreadsheet would run as a formula
(``=``, ``+``, ``-``, ``@``, a tab or a carriage return first) starts with ``'``."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

__all__ = ["CHUNK", "CSV_COLUMNS", "csv_chunks", "spreadsheet_safe"]

CHUNK = 500
"""Rows per piece of text."""
CSV_COLUMNS = ("id", "at", "warrior", "entry", "bp", "spent", "skill", "skill_value", "status",
               "actor", "moderator", "fight", "reason", "detail")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """Text a spreadsheet would take for a formula, quoted so it stays text."""
    if isinstance(value, str) and value.startswith(_FORMULA):
        return "'" + value
    return value


def csv_chunks(rows: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """The CSV text: the header, then the rows ``CHUNK`` at a time."""
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    yield _taken(out)
    for count, row in enumerate(rows, 1):
        writer.writerow({k: spreadsheet_safe(v) for k, v in row.items()})
        if count % CHUNK == 0:
            yield _taken(out)
    if out.tell():
        yield _taken(out)


def _taken(out: io.StringIO) -> str:
    """What ``out`` holds, and ``out`` emptied."""
    text = out.getvalue()
    out.seek(0)
    out.truncate()
    return text
