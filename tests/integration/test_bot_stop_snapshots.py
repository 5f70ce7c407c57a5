"""A clean stop keeps a checked snapshot of each open fight (``bot.app.stop_referee``), so
the next start takes it up from there instead of replaying every command; a crash (no
stop) leaves the last start's snapshot, and the start replays what came after it.

The cast is ``test_bot_fights``'s: Olaf (olaf) and Gorbag (gob)."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest
from club import Club

from bot.app import stop_referee


def snapshots(club: Club) -> list[tuple[int, int]]:
    with sqlite3.connect(club.db) as db:
        return db.execute("select fight_id, seq from fight_snapshots").fetchall()


def started_from(caplog: pytest.LogCaptureFixture) -> str:
    said = [r.getMessage() for r in caplog.records if "open fights rebuilt" in r.getMessage()]
    return said[-1]


def test_a_clean_stop_keeps_each_open_fights_snapshot_for_the_next_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("olaf !challenge Gorbag")
    club.dice.push(50, 40)
    club.say("gob !accept")
    club.say("olaf !first")
    fight = club.referee.tables.table("#arena").fight
    assert fight is not None and snapshots(club) == []
    stop_referee(club.referee)
    assert snapshots(club) == [(fight.id, len(fight.commands))]
    with caplog.at_level(logging.INFO, logger="storage.fights"):
        assert club.restart() == []
    assert started_from(caplog) == ("1 open fights rebuilt, 1 from their snapshots; "
                                    "0 commands replayed")
    resumed = club.referee.tables.table("#arena").fight
    assert resumed is not None
    assert (resumed.id, resumed.state, resumed.commands, resumed.seq) == (
        fight.id, fight.state, fight.commands, fight.seq)
