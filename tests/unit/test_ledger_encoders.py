"""The streaming encoders of ``ancath-bot ledger``: from a row's plain values they
write the text the row's dictionary gave through ``json.dumps(rows, indent=1)`` and
``csv.DictWriter`` (formulas neutralised), for any value a column can hold."""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

import pytest

from bot.ledger_csv import CSV_COLUMNS, csv_chunks, csv_value_chunks, spreadsheet_safe
from bot.ledger_json import json_chunks
from storage.ledger_view import LEDGER_KEYS
from storage.models import Entry
from storage.records import LedgerEntry

ODD = ["", "=1+1", "-2", 'say "hi", then\nleave', "naïve ☃ 𝄞 \x1b \u2028", None, 0, -7,
       2**70, 0.1, -0.0, 1e300, math.inf, -math.inf, True, False, Entry.MODERATOR_BP]


def row(n: int) -> tuple[Any, ...]:
    """Values of every kind, a different one in each column from row to row."""
    return tuple(ODD[(n + i) % len(ODD)] for i in range(len(LEDGER_KEYS)))


def dicts(count: int) -> list[dict[str, Any]]:
    return [dict(zip(LEDGER_KEYS, row(n), strict=True)) for n in range(count)]


def test_the_values_are_in_the_order_of_a_ledger_entrys_keys() -> None:
    assert tuple(LedgerEntry.__annotations__) == LEDGER_KEYS


@pytest.mark.parametrize("count", [0, 1, 499, 500, 501, 1203])
def test_json_is_the_text_json_dumps_gives_of_the_dicts(count: int) -> None:
    values = [row(n) for n in range(count)]
    assert "".join(json_chunks(iter(values))) == json.dumps(dicts(count), indent=1) + "\n"


def test_a_value_no_scalar_encoder_takes_is_dumped_as_json_dumps_would() -> None:
    odd = [(*row(3)[:-1], {"nested": [1, "x"]}), (*row(4)[:-1], [math.nan])]
    expected = json.dumps([dict(zip(LEDGER_KEYS, r, strict=True)) for r in odd], indent=1)
    assert "".join(json_chunks(odd)) == expected + "\n"


@pytest.mark.parametrize("count", [0, 1, 500, 1203])
def test_csv_of_values_is_the_text_the_dict_writer_gave(count: int) -> None:
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    for one in dicts(count):
        writer.writerow({k: spreadsheet_safe(v) for k, v in one.items()})
    assert "".join(csv_value_chunks(row(n) for n in range(count))) == out.getvalue()
    assert "".join(csv_chunks(dicts(count))) == out.getvalue()
    assert count == 0 or "'=1+1" in out.getvalue()
