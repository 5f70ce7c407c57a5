"""The bot proves the ledger at its start, from the last head it proved (storage.proof):
an honest club is proved and said so by ``!audit``; a row forged after the note, or a
note moved on by someone without the key, is caught and said plainly, in the log and
in ``!audit``, never hidden."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from club import Club
from sqlalchemy import create_engine, text

from storage.proof import CHECKED

DUEL = [
    ("gob !create Gorbag goblin club spear", ()),
    ("olaf !create Olaf free-clans broadsword shield", ()),
    ("olaf !challenge Gorbag", ()),
    ("gob !accept", (50, 40)),      # Olaf wins the initiative
    ("olaf !first", ()),
    ("olaf !attack", (20,)),        # a hit
    ("gob !dodge", (80, 5)),        # the dodge fails; damage 5 kills on leather
]


def played(tmp_path: Path) -> Club:
    club = Club(tmp_path)
    for line, rolls in DUEL:
        club.dice.push(*rolls)
        club.say(line)
    assert "wins by a kill" in club.last()
    return club


def sql(club: Club, statement: str, **values: object) -> None:
    engine = create_engine(f"sqlite:///{club.db}")
    with engine.begin() as connection:
        connection.execute(text(statement), values)
    engine.dispose()


def note(club: Club) -> dict[str, object]:
    engine = create_engine(f"sqlite:///{club.db}")
    with engine.connect() as connection:
        value = connection.execute(text("SELECT value FROM settings WHERE key = :k"),
                                   {"k": CHECKED}).scalar_one()
    engine.dispose()
    noted: dict[str, object] = json.loads(value)["value"]
    return noted


def test_an_honest_club_is_proved_at_each_start_from_where_the_last_stopped(
        tmp_path: Path) -> None:
    club = played(tmp_path)
    check = club.referee.settings.ledger_check
    assert check.state == "verified" and check.head is None   # the first start: empty
    club.restart()
    check = club.referee.settings.ledger_check
    head = club.referee.store.anchor()
    assert check.state == "verified" and check.head == head and check.rows == head.id
    assert note(club)["id"] == head.id
    assert club.say("ann !audit") == [
        f"#arena ann: the ledger was proved through its head ledger #{head.id} <mac> when "
        "the bot started; "
        "anyone can check it with the club's public key"]
    club.say("mod !mod bp Olaf +1.0 prize")
    club.restart()   # only the rows since the note are walked
    assert club.referee.settings.ledger_check.state == "verified"
    assert club.referee.settings.ledger_check.rows == 1


def test_a_row_forged_after_the_note_is_said_in_the_log_and_by_audit(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    club = played(tmp_path)
    club.restart()
    newest = club.referee.store.anchor()
    club.say("mod !mod bp Gorbag +1.0 prize")
    sql(club, "UPDATE ledger SET bp = 100 WHERE id = :id", id=newest.id + 1)
    with caplog.at_level(logging.ERROR, logger="bot.app"):
        club.restart()
    check = club.referee.settings.ledger_check
    assert check.state == "failed" and check.broken == newest.id + 1
    assert f"ledger row {newest.id + 1}: content does not match its hash" in check.first
    assert any("the ledger does not verify" in r.getMessage() for r in caplog.records)
    (said,) = club.say("ann !audit")
    assert said.startswith("#arena ann: the ledger FAILED its check when the bot started: "
                           f"ledger row {newest.id + 1}")
    (rows,) = club.say("ann !audit Gorbag")
    assert rows.startswith(f"#arena ann: NOT PROVED (the ledger failed its check at row "
                           f"{newest.id + 1}")


def test_a_note_moved_on_without_the_key_walks_the_whole_chain(tmp_path: Path) -> None:
    club = played(tmp_path)
    club.restart()
    sql(club, "UPDATE ledger SET reason = 'forged' WHERE id = 1")
    noted = note(club)
    head = club.referee.store.anchor()
    club.say("mod !mod bp Olaf +1.0 prize")
    engine = create_engine(f"sqlite:///{club.db}")
    with engine.connect() as connection:
        newest = connection.execute(text("SELECT hash FROM ledger ORDER BY id DESC LIMIT 1")
                                    ).scalar_one()
    engine.dispose()
    moved = {**noted, "id": head.id + 1, "hash": newest}   # the old signature kept
    sql(club, "UPDATE settings SET value = :v WHERE key = :k",
        v=json.dumps({"value": moved}), k=CHECKED)
    club.restart()
    check = club.referee.settings.ledger_check
    assert check.state == "failed" and "ledger row 1: content does not match" in check.first


@pytest.mark.parametrize("cut", ["rewound", "emptied"])
def test_rows_cut_off_below_the_note_are_said(tmp_path: Path, cut: str) -> None:
    """The newest rows deleted and the head wound back (or the whole ledger emptied):
    the chain left is whole, but the bot proved a head that is no longer there."""
    club = played(tmp_path)
    club.restart()
    noted = note(club)
    keep = 3 if cut == "rewound" else 0
    sql(club, "DELETE FROM ledger WHERE id > :keep", keep=keep)
    sql(club, "UPDATE ledger_head SET last_id = :keep, last_hash = COALESCE((SELECT hash "
        "FROM ledger WHERE id = :keep), :genesis)", keep=keep, genesis="0" * 64)
    club.restart()
    check = club.referee.settings.ledger_check
    assert check.state == "failed"
    assert check.first.startswith(f"the bot proved the ledger through row {noted['id']} ")
    assert "is gone: rows cut off" in check.first
    (said,) = club.say("ann !audit")
    assert "FAILED its check" in said and f"row {noted['id']}" in said


def test_a_removal_deleted_below_the_note_brings_no_moderator_back(tmp_path: Path) -> None:
    """Deleting the row that removed a moderator (below the bot's note): the chain
    misses a row, the start says so, and chat-named moderators are suspended."""
    club = played(tmp_path)
    club.say("mod !mod add mallory helps")
    club.say("mod !mod remove mallory abused it")
    club.say("mod !mod bp Olaf +0.5 later")
    club.restart()   # the note now covers the removal
    sql(club, "DELETE FROM ledger WHERE entry = 'moderator-removed'")
    club.restart()
    check = club.referee.settings.ledger_check
    assert check.state == "failed" and "of the rows before it are gone" in check.first
    assert "only moderators use !mod" in club.say("mallory !mod bp Olaf +3.0 mine")[0]
