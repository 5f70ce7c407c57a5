"""The ledger downloads, CSV and JSON, written as the rows stream in: a chunk of text
per ``CHUNK`` rows, so memory stays flat however many rows the filter picks. The rows
are those of ``ancath-bot ledger`` (the same keys and columns), shown as every page
shows them (``redact.ledger_fields``). The CSV is ``ancath-bot ledger --format csv``'s
(:mod:`bot.ledger_csv`), formulas neutralised; one warrior's has a ``balance`` column
after ``bp``: the warrior's BP after the row (``balanced_csv_chunks``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from bot import ledger_csv
from bot.ledger_csv import CHUNK, CSV_COLUMNS
from bot.web.redact import ledger_fields
from storage.records import LedgerEntry

__all__ = ["BALANCED_COLUMNS", "balanced_csv_chunks", "csv_chunks", "json_chunks"]

BALANCED_COLUMNS = (*CSV_COLUMNS[:CSV_COLUMNS.index("bp") + 1], "balance",
                    *CSV_COLUMNS[CSV_COLUMNS.index("bp") + 1:])
"""One warrior's CSV: ``balance`` after ``bp``."""


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
    return ledger_csv.csv_chunks(ledger_fields(row) for row in rows)


def balanced_csv_chunks(rows: Iterable[tuple[LedgerEntry, int]]) -> Iterator[str]:
    """The CSV text of one warrior's rows, each with its BP after it (tenths)."""
    return ledger_csv.csv_chunks(({**ledger_fields(row), "balance": f"{balance / 10:.1f}"}
                                  for row, balance in rows), BALANCED_COLUMNS)


def json_chunks(rows: Iterable[LedgerEntry]) -> Iterator[str]:
    """One JSON array of the rows, a chunk at a time."""
    sep = "[\n"
    for piece in _pieces(rows):
        yield sep + ",\n".join(json.dumps(row) for row in piece)
        sep = ",\n"
    yield "[]\n" if sep == "[\n" else "\n]\n"
