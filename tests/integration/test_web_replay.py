"""A fight's replay on the leadership pages says, step by step, exactly what the
referee said in the channel: every system, automatic and manual rolls, an undo (also
of a fight's end), a moderator's end. The channel's lines come from playing through
the referee; the replay's from the stored commands only."""

from __future__ import annotations

import re
from pathlib import Path

from club import Club
from club_history import played
from starlette.testclient import TestClient

from bot.web.app import make_app
from bot.web.replay import replay
from storage.ledger_view import LedgerFilter
from storage.store import Store

_MAC = re.compile(r"(ledger #\d+) [0-9a-f]{16}\b")


def replayed(store: Store, fight_id: int) -> list[str]:
    """The replay's lines, said in ``#arena`` with the anchors' MACs as the club writes them."""
    summary = store.fight_summary(fight_id)
    assert summary is not None
    steps = replay(summary, store.command_log(fight_id),
                   list(store.ledger_rows(where=LedgerFilter(fight=fight_id)))).steps
    return [_MAC.sub(r"\1 <mac>", f"#arena {step.line}") for step in steps]


def play(club: Club, *script: str | tuple[int, ...]) -> list[str]:
    """What the channel heard for ``script``: lines to say, and dice to push first."""
    heard: list[str] = []
    for item in script:
        if isinstance(item, tuple):
            club.dice.push(*item)
        else:
            heard += club.say(item)
    return heard


def test_an_cath_with_an_undo_as_the_channel_heard_it(tmp_path: Path) -> None:
    club = played(tmp_path)
    start = next(i for i, line in enumerate(club.sent) if "Practice fight: Olaf" in line)
    end = next(i for i, line in enumerate(club.sent) if "Olaf wins by a kill" in line)
    assert replayed(club.referee.store, 1) == club.sent[start:end + 1]


def test_an_undone_end_and_manual_rolls(tmp_path: Path) -> None:
    club = Club(tmp_path, rolls="manual")
    play(club, "gob !create Gorbag goblin club spear",
         "olaf !create Olaf free-clans broadsword shield", "olaf !challenge Gorbag duel")
    heard = play(club, "gob !accept", (50,), "olaf !rol d100", (40,), "gob !rol d100",
                 "olaf !first", "olaf !attack", (20,), "olaf !rol d100", "gob !dodge", (80,),
                 "gob !rol d100", (5,), "olaf !rol d100", "mod !mod undo wrong defence",
                 "gob !parry", (90,), "gob !rol d100", "mod !mod end Olaf Gorbag left")
    assert any("Olaf wins by a kill" in line for line in heard)
    assert any(line.startswith("#arena Undone: Gorbag's dodge and its 2 rolls") for line in heard)
    assert replayed(club.referee.store, 1) == heard


def test_a_simple_contest_automatic_and_manual(tmp_path: Path) -> None:
    for rolls in ("auto", "manual"):
        (tmp_path / rolls).mkdir()
        club = Club(tmp_path / rolls, rolls=rolls)
        play(club, "al !create Alain contest 15W sword^3 armour 2",
             "bo !create Bors contest 12 axe^2", "al !challenge Bors")
        by_hand = ("al !rol d20", "bo !rol d20") if rolls == "manual" else ()
        heard = play(club, "bo !accept", "al !strike", (5, 19), "bo !strike", *by_hand,
                     "al !strike", (3, 9), "bo !strike", *by_hand)
        assert heard[-1].endswith("Alain wins: the foe is dying. ledger #3 <mac>")
        assert replayed(club.referee.store, 1) == heard, rolls


def test_a_general_rules_fight(tmp_path: Path) -> None:
    club = Club(tmp_path)
    play(club, "fa !create Farthan general health=25 str=13 skill=14 weapon=1d10 base=1d8 "
         "defense=0 protection=2", "tr !create Troll general health=20 str=16 skill=10 "
         "weapon=2d6 base=1d8 defense=1 protection=3", "fa !challenge Troll")
    heard = play(club, "tr !accept", (5, 19, 8, 5, 4, 18), "fa !attack", (2, 6, 1, 1),
                 "fa !attack", (20,), "tr !attack", "fa !yield")
    assert replayed(club.referee.store, 1) == heard
    page = TestClient(make_app(club.referee.store)).get("/fights/1?step=1")
    assert page.status_code == 200   # the state after a step: the system's !status line
    assert ('<p class="state">After it: Turn 3. Farthan: 25/25 health / Troll: 6/20 health, '
            "stunned. Farthan (fa) to act: !attack 14 | !yield</p>") in page.text
