"""``ancath-bot ledger --format csv|json`` stream the rows as plain values through their
own encoders: the bytes are those the row dictionaries gave through ``json.dumps(rows,
indent=1)`` and ``csv.DictWriter`` (formulas neutralised), for every kind of row a
ledger holds, bot-written or odd, whole or for one warrior, in any batch size."""

from __future__ import annotations

import csv
import io
import json
from argparse import Namespace

import pytest
from sqlalchemy import insert, null, select, text, update
from test_ledger_trust import KEY, filled  # a finished fight, grants, a purchase

from bot.commandline import records
from bot.ledger_csv import CSV_COLUMNS, spreadsheet_safe
from rules.ancath.system import AN_CATH
from rules.contest.system import CONTEST
from rules.general.system import GENERAL
from storage import ledger_view
from storage.db import open_database
from storage.keys import Keyring
from storage.models import Entry, LedgerRow, Warrior
from storage.store import Store

ODD_TEXT = ['=HYPERLINK("x")', "+1", "-2", "@SUM(A1)", "\tx", "\r=x", 'a "quoted", comma',
            "two\nlines", "naïve ☃ 𝄞", "back\\slash", "", "\x1b[2J"]
ODD_DETAIL = [None, {}, {"from": "none", "to": "leather"}, {"seconds": 5.0, "on": True},
              {"names": ["a", "b"], "nested": {"x": 1}}, {"value": None}, [1, 2], "text"]


@pytest.fixture
def store(database_url: str) -> Store:
    return Store(open_database(database_url), systems=[AN_CATH, CONTEST, GENERAL],
                 keyring=Keyring.of(KEY))


def every_kind(store: Store) -> None:
    """The bot's own rows of a fight, grants and a purchase, then a row of every entry
    with odd values (formulas, quotes, new lines, wide characters, no warrior, odd
    details): what a download must carry unchanged."""
    filled(store)
    with store.engine.begin() as connection:
        olaf = connection.execute(select(Warrior.id).where(Warrior.name == "Olaf")).scalar_one()
        last = connection.execute(select(LedgerRow.id).order_by(LedgerRow.id.desc())
                                  ).scalars().first() or 0
        rows = []
        for n, entry in enumerate(list(Entry) * 2):
            words = ODD_TEXT[n % len(ODD_TEXT)]
            rows.append({
                "id": last + 1 + n, "warrior_id": olaf if n % 3 else None, "entry": entry.value,
                "bp": (n - 20) * 7, "spent": n % 4, "skill": words[:16] if n % 2 else None,
                "skill_value": n if n % 2 else None, "status": "free" if n % 5 else None,
                "captor_id": None, "detail": ODD_DETAIL[n % len(ODD_DETAIL)],
                "actor": words or "nick", "moderator": words if n % 2 else None,
                "fight_id": n if n % 4 == 0 else None, "command_seq": None,
                "reason": words, "created_at": f"2024-05-{1 + n % 28:02d}T12:00:00.{n:06d}+00:00",
                "prev_hash": "0" * 64, "hash": f"{n:064x}", "key_id": "k1" if n % 2 else None})
        connection.execute(insert(LedgerRow), rows)
        connection.execute(update(LedgerRow).where(LedgerRow.id == last + 1).values(
            detail=null()))   # SQL's null, beside the JSON nulls
        if connection.dialect.name == "sqlite":   # text that is no JSON (storage.damage)
            connection.execute(text("UPDATE ledger SET detail = '{broken' WHERE id = :id"),
                               {"id": last + 3})


def as_before(store: Store, warrior: str | None) -> dict[str, str]:
    """The outputs as the row dictionaries give them (the code before streaming)."""
    rows = store.ledger(warrior)
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: spreadsheet_safe(v) for k, v in row.items()})
    return {"json": json.dumps(rows, indent=1) + "\n", "csv": out.getvalue()}


@pytest.mark.parametrize("warrior", [None, "Olaf", "gorbag"])
def test_ledger_csv_and_json_are_the_bytes_the_row_dicts_gave(
    store: Store, database_url: str, warrior: str | None,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    every_kind(store)
    expected = as_before(store, warrior)
    assert expected["csv"].count("\n") >= 4
    assert warrior or (expected["csv"].count("'=") >= 4 and len(expected["json"]) > 10_000)
    assert "sqlite" not in database_url or warrior or "detail damaged: not JSON ('{broken')" \
        in expected["json"]
    for batch in (1000, 7, 1):
        monkeypatch.setattr(ledger_view, "LEDGER_BATCH", batch)
        for form in ("csv", "json"):
            assert records.ledger(Namespace(warrior=warrior, format=form), database_url) == 0
            assert capsys.readouterr().out == expected[form], (form, batch)


def test_an_empty_ledger_is_an_empty_array_and_a_header(
    store: Store, database_url: str, capsys: pytest.CaptureFixture[str],
) -> None:
    for form, shown in (("json", "[]\n"), ("csv", ",".join(CSV_COLUMNS) + "\r\n")):
        assert records.ledger(Namespace(warrior=None, format=form), database_url) == 0
        assert capsys.readouterr().out == shown
