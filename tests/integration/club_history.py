"""A club with a history, played through the referee with scripted dice: what the
club-records tests (``!top``, ``!history``, ``!stats``, ``!fight``) and the leadership
pages read. The cast and chances are those of ``test_bot_fights.py``.

Fights, in order (their numbers as the database gives them):

1. #arena, practice: Olaf against Gorbag. Olaf's first attack is undone by a moderator
   ("misclick"); then Olaf hits, Gorbag's dodge fails, and damage 5 kills: Olaf wins
   (+0.2), Gorbag +0.1.
2. #arena, mortal: Olaf (more BP) chooses to act second; Gorbag yields and Olaf takes him
   prisoner for a ransom (Olaf +1.5, Gorbag +0.5); Olaf frees him.
3. #arena, practice: Gorbag challenges Olaf; Olaf flees, Gorbag's stop fails, his last
   attack does nothing: Olaf escapes and loses (Gorbag +0.2, Olaf +0.1).
4. #side, duel: Bran against Gorbag, ended by a moderator as a draw ("both left").

Then a moderator gives Gorbag 1.0 BP ("good sportsmanship"), and Olaf buys a skill.
Bran (owned by ``bran@host.example``, a user without services) has fought once.
"""

from __future__ import annotations

from pathlib import Path

from club import Club

__all__ = ["BRAN", "played"]

BRAN = "bran!bran@host.example"
"""Bran's player has no services account: the club knows him by ``bran@host.example``."""


def played(tmp_path: Path) -> Club:
    """The club above, every scripted roll used and the books balanced."""
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("bran !create Bran free-clans axe shield", account="", mask=BRAN)

    club.say("olaf !challenge Gorbag practice")  # fight 1
    club.dice.push(50, 40)  # initiative: Olaf 50, Gorbag 40
    club.say("gob !accept")
    club.say("olaf !first")
    club.dice.push(20)  # 20 vs 25: a hit, undone
    club.say("olaf !attack")
    _said(club, "mod !mod undo misclick", "Undone: Olaf's attack")
    club.dice.push(20)  # 20 vs 25: hit
    club.say("olaf !attack")
    club.dice.push(80, 5)  # Dodge 80 vs 30 fails; damage 5 on Leather: kill
    _said(club, "gob !dodge", "Olaf wins by a kill.")

    club.say("olaf !challenge Gorbag mortal")  # fight 2: Olaf has more BP, he chooses
    club.say("gob !accept")
    club.say("olaf !second")
    club.say("gob !yield")
    _said(club, "olaf !accept prisoner ransom 10 silver", "Gorbag is Olaf's prisoner")
    _said(club, "olaf !free Gorbag", "Gorbag is free.")

    club.say("gob !challenge Olaf practice")  # fight 3
    club.say("olaf !accept")
    club.say("olaf !first")
    club.say("olaf !flee")
    club.dice.push(90)  # stop: Dodge 90 vs 30 fails; Gorbag takes a last turn
    club.say("gob !stop")
    club.dice.push(31, 50, 80)  # 31 vs 35 hits; Olaf's luck 50 vs 5 fails; damage 80: none
    _said(club, "gob !attack", "Gorbag wins (the foe escaped).")

    club.say("#side bran !challenge Gorbag duel", account="", mask=BRAN)  # fight 4
    club.say("#side gob !accept")
    _said(club, "#side mod !mod end draw both left", "draw")

    _said(club, "mod !mod bp Gorbag +1.0 good sportsmanship", "Gorbag")
    _said(club, "olaf !buy Olaf shield", "bought:")
    assert club.dice.left == 0
    assert club.referee.store.verify() == []
    return club


def _said(club: Club, line: str, expected: str) -> None:
    said = club.say(line)
    assert any(expected in text for text in said), said
