"""One transaction per `!accept`, and nothing pending lost to a restart: a write that
fails while a challenge is accepted leaves no half-started fight and is not blamed on a
race; a fight left waiting for an automatic roll gets it when the bot starts; pending
challenges are kept, their time limit counted again from the restart.

The cast is ``test_bot_fights``'s: Olaf (olaf) and Gorbag (gob), every skill 30.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from club import Club

from bot import resuming
from bot.systems.registry import SYSTEMS

CHALLENGE = "#arena Gorbag, Olaf challenges you to a practice fight: gob may !accept or !decline."
STARTED = ("#arena Practice fight: Olaf (olaf) vs Gorbag (gob). Olaf: broadsword and shield "
           "(dodge 30, block 30, parry 25). Gorbag: spear (dodge 30, parry 25). Olaf rolls 50 "
           "for initiative. Gorbag rolls 40 for initiative. Olaf (olaf) chooses: !first | "
           "!second")
FAULT = "#arena gob: that went wrong on my side and changed nothing; a moderator can check the log"


def warriors(club: Club) -> None:
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")


def count(club: Club, table: str) -> int:
    with sqlite3.connect(club.db) as db:
        return int(db.execute(f"select count(*) from {table}").fetchone()[0])


def test_a_write_failing_between_the_steps_of_an_accept_changes_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    club = Club(tmp_path)
    warriors(club)
    assert club.say("olaf !challenge Gorbag") == [CHALLENGE]
    # The fight and its sides go in; then the first initiative roll's command row fails.
    with sqlite3.connect(club.db) as db:
        db.execute("create trigger no_rolls before insert on fight_commands "
                   "begin select raise(abort, 'the disk says no'); end")
    club.dice.push(50, 40)
    # Today: a fight waiting forever for an initiative roll, and "it changed since it
    # was read", which is false.
    assert club.say("gob !accept") == [FAULT]
    assert "the disk says no" in caplog.text
    assert (count(club, "fights"), count(club, "fight_sides"), count(club, "fight_events")) == (
        0, 0, 0)
    assert not club.warrior("Gorbag")["in_fight"]
    assert club.referee.tables.table("#arena").fight is None
    assert club.restart() == []
    assert club.referee.store.open_fights() == ([], [])
    # The challenge still waits, in storage too; once the fault is gone it can be accepted.
    with sqlite3.connect(club.db) as db:
        db.execute("drop trigger no_rolls")
    club.dice.push(50, 40)
    assert club.say("gob !accept") == [STARTED]
    assert club.referee.store.verify() == []
    assert club.dice.left == 0


def test_a_fight_left_waiting_for_its_initiative_rolls_gets_them_at_the_next_start(
    tmp_path: Path,
) -> None:
    club = Club(tmp_path)
    warriors(club)
    # What a crash between the fight and its initiative left behind before one transaction.
    club.referee.store.open_fight("#arena", SYSTEMS.rules["ancath"], "practice",
                                  [("Olaf", "olaf"), ("Gorbag", "gob")], "gob")
    club.dice.push(50, 40)
    assert club.restart() == []
    assert club.dice.left == 0
    resumed = resuming.resume_line(club.referee.services, "#arena")
    assert resumed is not None and resumed.text == (
        "Fight resumed: Olaf rolls 50 for initiative. Gorbag rolls 40 for "
        "initiative. Olaf (olaf) chooses: !first | !second")
    # The rolls are kept: another restart has nothing left to roll.
    assert club.restart() == []
    resumed = resuming.resume_line(club.referee.services, "#arena")
    assert resumed is not None and resumed.text == (
        "Fight resumed: Olaf (olaf) chooses: !first | !second")
    assert club.say("olaf !first")[0].startswith("#arena Olaf acts first.")


def test_a_pending_challenge_survives_a_restart_with_a_fresh_time_limit(tmp_path: Path) -> None:
    club = Club(tmp_path, timeout_minutes=10)
    warriors(club)
    assert club.say("olaf !challenge Gorbag") == [CHALLENGE]
    assert club.wait(8) == []
    assert club.restart() == []
    assert club.wait(8) == []   # 16 minutes since the challenge, 8 since the restart
    assert club.wait(2) == ["#arena Olaf's challenge to Gorbag has lapsed."]
    assert club.restart() == []
    assert club.say("gob !accept") == ["#arena gob: there is no challenge to you here"]
    assert count(club, "challenges") == 0


@pytest.mark.parametrize(("answer", "said"), [
    ("gob !decline", "#arena Gorbag declines Olaf's challenge."),
    ("olaf !withdraw", "#arena Olaf withdraws the challenge."),
])
def test_an_answered_challenge_stays_answered_after_a_restart(
    tmp_path: Path, answer: str, said: str,
) -> None:
    club = Club(tmp_path)
    warriors(club)
    club.say("olaf !challenge Gorbag")
    assert club.say(answer) == [said]
    assert club.restart() == []
    assert club.say("gob !accept") == ["#arena gob: there is no challenge to you here"]


def test_an_accepted_challenge_is_gone_with_the_fight_it_started(tmp_path: Path) -> None:
    club = Club(tmp_path)
    warriors(club)
    club.say("olaf !challenge Gorbag")
    club.dice.push(50, 40)
    assert club.say("gob !accept") == [STARTED]
    assert count(club, "challenges") == 0
    assert club.restart() == []
    assert club.referee.tables.table("#arena").challenge is None


def damage(club: Club, statement: str) -> None:
    with sqlite3.connect(club.db) as db:
        db.execute(statement)
    db.close()


def test_a_challenge_of_an_unknown_kind_is_dropped_and_said_not_a_fault(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    club = Club(tmp_path)
    warriors(club)
    assert club.say("olaf !challenge Gorbag") == [CHALLENGE]
    damage(club, "UPDATE challenges SET kind = 'bogus'")
    assert club.restart() == []
    assert "its kind 'bogus' is none the bot knows" in caplog.text
    # today: "that went wrong on my side", and a traceback in the log
    assert club.say("gob !accept") == [
        "#arena Olaf's challenge to Gorbag is damaged in the records (its kind 'bogus' is "
        "no kind of An Cath fight) and is dropped; Olaf may challenge again."]
    assert count(club, "challenges") == 0 and "Traceback" not in caplog.text
    assert club.say("olaf !challenge Gorbag") == [CHALLENGE]


def test_an_open_fight_whose_setup_is_unreadable_blocks_its_channel_until_a_moderator_ends_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    club = Club(tmp_path)
    warriors(club)
    club.say("olaf !challenge Gorbag")
    club.dice.push(50, 40)
    assert club.say("gob !accept") == [STARTED]
    club.say("ann !create Ulf invaders spear")
    club.say("bob !create Finn invaders spear")
    damage(club, "UPDATE fights SET setup = '{broken' WHERE active")
    (problem,) = club.restart()
    assert "stored setup cannot be read: not JSON ('{broken')" in problem
    stuck = ("Fight 1 here cannot be taken up from the records (replay failed: its stored "
             "setup cannot be read: not JSON ('{broken')); no fight or challenge here until a "
             "moderator ends it: !mod end draw <reason> (or !mod end <warrior> <reason>)")
    # today: not a word in the channel, and the channel free while the fight stays open
    # in the records, so the next challenge here is accepted into "busy"
    # what the channel hears as the bot joins
    joined = resuming.resume_line(club.referee.services, "#arena")
    assert joined is not None and joined.text == stuck
    assert "fight 1 in #arena is not resumed" in caplog.text and "!mod end" in caplog.text
    assert club.say("bob !challenge Ulf") == [f"#arena bob: {stuck}"]
    assert club.say("olaf !first") == [f"#arena olaf: {stuck}"]
    assert club.say("gob !status") == [f"#arena gob: {stuck}"]
    assert club.say("mod !mod undo oops") == [
        "#arena mod: fight 1 cannot be read from the records, so nothing of it can be "
        "undone; end it with !mod end draw <reason>"]
    assert club.say("mod !mod end Ulf its setup is lost") == [
        "#arena mod: the winner must be Olaf or Gorbag, or draw"]
    (ended,) = club.say("mod !mod end draw its setup is lost")
    assert ended == ("#arena mod ends the fight: its setup is lost. Fight 1 (Olaf vs Gorbag) "
                     "is ended unread: a draw by a "
                     "moderator's ruling; no BP moved, since its records could not be read. "
                     "The channel is free. ledger #5 <mac>")
    assert club.referee.store.open_fights() == ([], [])
    assert not club.warrior("Olaf")["in_fight"] and club.warrior("Olaf")["bp"] == 0
    assert club.say("bob !challenge Ulf")[0].startswith("#arena Ulf, Finn challenges you")
    assert club.restart() == [] and resuming.resume_line(club.referee.services, "#arena") is None
    assert "Traceback" not in caplog.text
