"""The ledger downloads, CSV and JSON, written as the rows stream in: a chunk of text
per ``CHUNK`` rows, so memory stays flat however many rows the filter picks. The rows
are those of ``ancath-bot ledger`` (the same keys and columns), shown as every page
shows them (``redact.ledger_fields``); a CSV cell a spreadsheet would run as a formula
(``=``, ``+``, ``-``, ``@``, a tab or a carriage return first) starts with ``'``."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from typing import Any

from bot.web.redact import ledger_fields
from storage.ledger_view import CSV_COLUMNS
from storage.records import LedgerEntry

__all__ = ["CHUNK", "csv_chunks", "json_chunks", "spreadsheet_safe"]

CHUNK = 500
"""Rows per piece of a download."""
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """Text a spreadsheet would take for a formula, quoted so it stays text."""
    if isinstance(value, str) and value.startswith(_FORMULA):
        return "'" + value
    return value


def _pieces(rows: Iterable[LedgerEntry]) -> Iterator[list[dict[str, Any]]]:
    piece: list[dict[str, Any]] = []
    for row in rows:
        piece.append(ledger_fields(row))
        if len(piece) == CHUNK:
            yield piece
            piece = []
    if piece:
        yield piece


def csv_chunks(rows: Iterable[LedgerEntry]) -> Iterator[str]:
    """The CSV text: the header, then the rows a chunk at a time."""
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    yield out.getvalue()
    for piece in _pieces(rows):
        out.seek(0)
        out.truncate()
        writer.writerows({k: spreadsheet_safe(v) for k, v in row.items()} for row in piece)
        yield out.getvalue()


def json_chunks(rows: Iterable[LedgerEntry]) -> Iterator[str]:
    """One JSON array of the rows, a chunk at a time."""
    sep = "[\n"
    for piece in _pieces(rows):
        yield sep + ",\n".join(json.dumps(row) for row in piece)
        sep = ",\n"
    yield "[]\n" if sep == "[\n" else "\n]\n"
