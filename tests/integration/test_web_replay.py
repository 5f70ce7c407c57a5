"""A fight's replay on the leadership pages says, step by step, exactly what the
referee said in the channel: every system, automatic and manual rolls, an undo (also
of a fight's end), a moderator's end. The channel's lines come from playing through
the referee; the replay's from the stored commands only."""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

import pytest
from club import Club
from club_history import played
from starlette.testclient import TestClient

from bot.odds.worker import InlineExecutor
from bot.web.app import make_app
from bot.web.chances import WinChances
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


# -- the final state: how each ending left each side ------------------------------------


def rows(html: str) -> list[list[str]]:
    """The text of each table row's cells."""
    return [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", html, re.S) if "<td" in row]


def fates(store: Store, fight_id: int) -> dict[str, tuple[str, str]]:
    """Each fighter's injuries and end after the replay's last step."""
    summary = store.fight_summary(fight_id)
    assert summary is not None
    last = replay(summary, store.command_log(fight_id),
                  list(store.ledger_rows(where=LedgerFilter(fight=fight_id)))).steps[-1]
    return {side.name: (side.injuries, side.fate) for side in last.state.sides}


def test_the_played_clubs_endings_a_kill_a_prisoner_a_flight_a_draw(tmp_path: Path) -> None:
    store = played(tmp_path).referee.store
    assert fates(store, 1) == {   # practice: the loser lives on (R7.2)
        "Olaf": ("unhurt", "won by a kill"),
        "Gorbag": ("a killing blow",
                   "beaten by a killing blow (not dead: a practice fight, R7.2)")}
    assert fates(store, 2) == {
        "Olaf": ("unhurt", "won: took Gorbag prisoner, ransom: 10 silver"),
        "Gorbag": ("unhurt", "yielded; taken prisoner by Olaf, ransom: 10 silver (R4.6)")}
    assert fates(store, 3) == {"Gorbag": ("unhurt", "won: the foe fled"),
                               "Olaf": ("unhurt", "fled and got away (R4.8; a loss, R7.2)")}
    assert fates(store, 4) == {"Bran": ("unhurt", "a draw: a moderator's end (R8.1)"),
                               "Gorbag": ("unhurt", "a draw: a moderator's end (R8.1)")}
    html = TestClient(make_app(store)).get("/fights/1?step=5").text
    assert '<th scope="col">The end</th>' in html
    assert ["Gorbag", "spear", "a killing blow", "",
            "beaten by a killing blow (not dead: a practice fight, R7.2)"] in rows(html)
    assert "Gorbag (spear): a killing blow; beaten by a killing blow" in html   # the list


ENDINGS = {
    "mortal kill": ("mortal", (20,), "olaf !attack", (80, 5), "gob !dodge"),
    "first blood": ("duel", (17,), "olaf !attack", (99, 45), "gob !dodge"),
    "released": ("mortal", "olaf !yield", "gob !accept release"),
    "forfeit": ("practice", 10.0, "gob !claim"),
    "moderator": ("practice", "mod !mod end Gorbag Olaf left"),
}


@pytest.mark.parametrize(("ending", "olaf", "gorbag"), [
    ("mortal kill", ("unhurt", "won by a kill"), ("a killing blow", "slain (dead, R7.2)")),
    ("first blood", ("unhurt", "won at first blood (R3.2)"),
     ("right-leg wound", "lost at first blood (R3.2)")),
    ("released", ("unhurt", "yielded; released (R4.6)"), ("unhurt", "won: the foe yielded")),
    ("forfeit", ("unhurt", "forfeited: the time ran out (R7.4)"),
     ("unhurt", "won by forfeit (R7.4)")),
    ("moderator", ("unhurt", "lost: a moderator's end (R8.1)"),
     ("unhurt", "won: a moderator's end (R8.1)")),
])
def test_each_ending_leaves_each_side_as_it_ended(
        tmp_path: Path, ending: str, olaf: tuple[str, str], gorbag: tuple[str, str]) -> None:
    club = Club(tmp_path)
    kind, *script = ENDINGS[ending]
    play(club, "gob !create Gorbag goblin club spear",
         "olaf !create Olaf free-clans broadsword shield", f"olaf !challenge Gorbag {kind}",
         (50, 40), "gob !accept", "olaf !first")
    for item in script:
        if isinstance(item, float):
            club.wait(item)
        else:
            play(club, item)
    assert fates(club.referee.store, 1) == {"Olaf": olaf, "Gorbag": gorbag}


def test_another_systems_end_is_said_after_its_status_line(tmp_path: Path) -> None:
    club = Club(tmp_path)
    play(club, "al !create Alain contest 15W sword^3 armour 2",
         "bo !create Bors contest 12 axe^2", "al !challenge Bors", "bo !accept", "al !strike",
         (5, 19), "bo !strike", "al !strike", (3, 9), "bo !strike")
    summary = club.referee.store.fight_summary(1)
    assert summary is not None
    last = replay(summary, club.referee.store.command_log(1), []).steps[-1]
    assert last.state.ends == "Alain won; Bors dying"
    html = TestClient(make_app(club.referee.store)).get("/fights/1").text
    assert "The end: Alain won; Bors dying.</p>" in html


# -- the win chances after each step ------------------------------------------------------


class Held(Executor):
    """Holds each job until ``run``: the figures are being worked out meanwhile."""

    def __init__(self) -> None:
        self.jobs: list[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self.jobs.append((future, fn, args))
        return future

    def run(self) -> None:
        for future, fn, args in self.jobs:
            future.set_result(fn(*args))
        self.jobs.clear()


def figures(html: str) -> dict[int, tuple[str, str]]:
    """The chart's table: each step's chances, as shown."""
    table = html.split('<table class="swing-figures">')[1].split("</table>")[0]
    return {int(step): (first, second) for step, first, second in rows(table)}


def test_the_win_chances_are_what_odds_says_at_each_step(tmp_path: Path) -> None:
    club = Club(tmp_path, rolls="manual")
    play(club, "gob !create Gorbag goblin club spear",
         "olaf !create Olaf free-clans broadsword shield", "olaf !challenge Gorbag")
    said = {}
    for number, (line, asker) in enumerate([
            ("gob !accept", "ann"), ("olaf !rol d100", "bea"), ("gob !rol d100", "cy"),
            ("olaf !first", "dee"), ("olaf !attack", "eve"), ("olaf !rol d100", "fay")]):
        club.dice.push(*{1: (50,), 2: (40,), 5: (20,)}.get(number, ()))
        play(club, line)
        said[number] = next(text for text in club.say(f"{asker} !odds") if "(exact)" in text)
    chances = WinChances(InlineExecutor())
    html = TestClient(make_app(club.referee.store, chances=chances)).get("/fights/1").text
    shown = figures(html)
    for number, line in said.items():   # "Olaf wins 48.8% from here (exact)" at a roll
        if "from here" in line:
            name, chance = re.search(r"(\w+) wins ([\d.]+%) from here", line).groups()
            assert shown[number][0 if name == "Olaf" else 1] == chance, (number, line)
    assert sum("from here" in line for line in said.values()) >= 3
    assert 'class="swing"' in html and html.count('<circle class="mark') == len(shown) == 6


def test_the_win_chances_are_worked_out_once_off_the_request(tmp_path: Path) -> None:
    store = played(tmp_path).referee.store
    held = Held()
    client = TestClient(make_app(store, chances=WinChances(held)))
    first = client.get("/fights/1").text
    assert "Win chances being worked out: reload in a moment." in first
    assert client.get("/fights/1?step=2").status_code == 200 and len(held.jobs) == 1
    held.run()
    again = client.get("/fights/1").text
    assert figures(again)[5] == ("100.0%", "0.0%")   # Olaf's kill
    assert 'aria-labelledby="swing-svg-title swing-desc"' in again
    client.get("/fights/1?step=3")
    assert client.app.state.chances.asked == 1 and held.jobs == []   # kept: not again
    client.get("/fights/2")
    assert client.app.state.chances.asked == 2


def test_a_system_without_odds_says_why_it_has_no_chart(tmp_path: Path) -> None:
    club = Club(tmp_path)
    play(club, "al !create Alain contest 15W sword^3 armour 2",
         "bo !create Bors contest 12 axe^2", "al !challenge Bors", "bo !accept")
    chances = WinChances(Held())
    html = TestClient(make_app(club.referee.store, chances=chances)).get("/fights/1").text
    assert "No win chances: the odds advisor knows An Cath fights only." in html
    assert "swing-figures" not in html and chances.asked == 0
