"""The club's records in chat (issue 15): ``!top``, ``!history``, ``!stats`` and
``!fight`` as transcripts on a club with a history (``club_history.played``), their
refusals, one line within the byte budget for the longest answers, and no crash
whatever words follow them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from club import Club
from club_history import played
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.chat.history import MOST
from bot.config import WebConfig
from bot.safe_text import DEFAULT_BUDGET

GENERIC = "went wrong on my side"
"""The referee's reply to an unexpected exception: never the answer to anything typed."""


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Club:
    return played(tmp_path_factory.mktemp("records"))


@pytest.fixture(scope="module")
def day(club: Club) -> str:
    """The day (UTC) the club's fights were fought, as the answers give it."""
    days = {f.started_at[:10] for f in club.referee.store.fights()}
    assert len(days) == 1, days
    return days.pop()


def one(lines: list[str]) -> str:
    """The one line sent, whole within the byte budget."""
    assert len(lines) == 1, lines
    _, text = lines[0].split(" ", 1)
    assert len(text.encode()) <= DEFAULT_BUDGET, lines
    return lines[0]


# -- the played club ----------------------------------------------------------------------


def test_top_is_the_standings_by_bp_then_wins_in_one_line(club: Club) -> None:
    assert one(club.say("ann !top")) == (
        "#arena ann: Standings: 1. Gorbag 1.9 BP (1-2-1) | 2. Olaf 1.8 BP (2-1-0) | "
        "3. Bran 0.1 BP (0-0-1)")
    assert one(club.say("ann !top 2")) == (   # and how many warriors are past the n asked
        "#arena ann: Standings: 1. Gorbag 1.9 BP (1-2-1) | 2. Olaf 1.8 BP (2-1-0) | 1 more")


def test_top_of_one_culture_in_either_order(club: Club) -> None:
    assert one(club.say("ann !top free-clans")) == (
        "#arena ann: Standings (free-clans): 1. Olaf 1.8 BP (2-1-0) | 2. Bran 0.1 BP (0-0-1)")
    assert one(club.say("ann !top Goblin 1")) == one(club.say("ann !top 1 goblin")) == (
        "#arena ann: Standings (goblin): 1. Gorbag 1.9 BP (1-2-1)")
    assert one(club.say("ann !top fairy")) == "#arena ann: no fairy warriors yet; !create makes one"


def test_history_is_the_last_fights_newest_first(club: Club, day: str) -> None:
    assert one(club.say("ann !history olaf")) == (
        f"#arena ann: Olaf's fights: fight #3 {day} practice vs Gorbag: lost (escaped), "
        f"+0.1 BP | fight #2 {day} mortal vs Gorbag: won by yield, +1.5 BP | "
        f"fight #1 {day} practice vs Gorbag: won by kill, +0.2 BP")
    assert one(club.say("ann !history Gorbag 2")) == (
        f"#arena ann: Gorbag's fights: fight #4 {day} duel vs Bran: draw, +0.1 BP | "
        f"fight #3 {day} practice vs Olaf: won (foe escaped), +0.2 BP")


def test_stats_counts_fights_endings_prisoners_and_where_bp_came_from(club: Club) -> None:
    assert one(club.say("ann !stats Olaf")) == (
        "#arena ann: Olaf: fights 3 (won 2, lost 1, drawn 0), kills 1, yields 0, escapes 1, "
        "prisoners taken 1; BP 1.8: +1.8 from fights, +0.0 from moderators")
    assert one(club.say("ann !stats gorbag")) == (
        "#arena ann: Gorbag: fights 4 (won 1, lost 2, drawn 1), kills 0, yields 1, "
        "escapes 0, prisoners taken 0; BP 1.9: +0.9 from fights, +1.0 from moderators")


def test_a_dead_warrior_is_marked_in_top_and_stats(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("olaf !challenge Gorbag mortal")
    club.dice.push(50, 40, 20, 80, 5)   # Olaf first; 20 hits; dodge 80 fails; 5 kills
    club.say("gob !accept")
    club.say("olaf !first")
    club.say("olaf !attack")
    assert "Gorbag is dead." in one(club.say("gob !dodge"))
    assert one(club.say("ann !top")) == (
        "#arena ann: Standings: 1. Olaf 1.5 BP (1-0-0) | 2. Gorbag (dead) 0.5 BP (0-1-0)")
    assert one(club.say("ann !stats Gorbag")).startswith(
        "#arena ann: Gorbag (dead): fights 1 (won 0, lost 1, drawn 0)")
    assert one(club.say("ann !stats Olaf")).startswith("#arena ann: Olaf: fights 1 (won 1")


def test_fight_gives_sides_kind_ending_and_bp(club: Club, day: str) -> None:
    assert one(club.say("ann !fight 1")) == one(club.say("ann !fight #1")) == (
        f"#arena ann: Fight #1, practice, {day}: Olaf (olaf) +0.2 BP vs Gorbag (gob) +0.1 BP; "
        "Olaf won by kill")
    assert one(club.say("ann !fight 3")) == (
        f"#arena ann: Fight #3, practice, {day}: Gorbag (gob) +0.2 BP vs Olaf (olaf) +0.1 BP; "
        "Gorbag won (foe escaped)")


def test_fight_names_a_player_without_an_account_unregistered(club: Club, day: str) -> None:
    """Bran's player is known only by ``bran@host.example``, which is never shown."""
    line = one(club.say("ann !fight 4"))
    assert line == (f"#arena ann: Fight #4, duel, {day}: Bran (unregistered) +0.1 BP vs "
                    "Gorbag (gob) +0.1 BP; draw")
    assert "@" not in line


def test_fight_links_its_replay_when_the_club_has_pages(
    club: Club, day: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    web = WebConfig(base_url="https://club.example.org/ancath/")
    monkeypatch.setattr(club.referee, "services", replace(
        club.referee.services, config=club.config.model_copy(update={"web": web})))
    assert one(club.say("ann !fight 2")) == (
        f"#arena ann: Fight #2, mortal, {day}: Olaf (olaf) +1.5 BP vs Gorbag (gob) +0.5 BP; "
        "Olaf won by yield; replay: https://club.example.org/ancath/fights/2")


def test_in_private_the_answers_are_the_same_unaddressed(club: Club, day: str) -> None:
    assert one(club.pm("ann !top 1")) == "ann Standings: 1. Gorbag 1.9 BP (1-2-1) | 2 more"
    assert one(club.pm("ann !history Bran")) == (
        f"ann Bran's fights: fight #4 {day} duel vs Gorbag: draw, +0.1 BP")
    assert one(club.pm("ann !stats Bran")).startswith("ann Bran: fights 1 (won 0, lost 0, drawn 1)")
    assert one(club.pm("ann !fight 4")).startswith("ann Fight #4, duel")


@pytest.mark.parametrize(("text", "refusal"), [
    ("!top elves", "culture must be invaders, free-clans, fairy or goblin"),
    ("!top 0", f"usage: !top [n] [culture], n from 1 to {MOST}"),
    ("!top 11", f"usage: !top [n] [culture], n from 1 to {MOST}"),
    ("!top -3", f"usage: !top [n] [culture], n from 1 to {MOST}"),
    ("!top 3 4", f"usage: !top [n] [culture], n from 1 to {MOST}"),
    ("!top goblin fairy", f"usage: !top [n] [culture], n from 1 to {MOST}"),
    ("!history", "usage: !history <warrior> [n]"),
    ("!history Nobody", "no warrior named Nobody"),
    ("!history Olaf many", f"usage: !history <warrior> [n], n from 1 to {MOST}"),
    ("!history Olaf 99999999999999999999", f"usage: !history <warrior> [n], n from 1 to {MOST}"),
    ("!history Olaf 2 3", "usage: !history <warrior> [n]"),
    ("!stats", "usage: !stats <warrior>"),
    ("!stats Nobody", "no warrior named Nobody"),
    ("!stats Olaf Gorbag", "usage: !stats <warrior>"),
    ("!fight", "usage: !fight <number>, as !history shows it: !fight 12"),
    ("!fight one", "usage: !fight <number>, as !history shows it: !fight 12"),
    ("!fight 1 2", "usage: !fight <number>, as !history shows it: !fight 12"),
    ("!fight 99", "no fight #99; !history <warrior> shows the numbers"),
    ("!fight #0", "no fight #0; !history <warrior> shows the numbers"),
    ("!fight #002147483648", "no fight #2147483648; !history <warrior> shows the numbers"),
    ("!fight " + "9" * 400, "usage: !fight <number>, as !history shows it: !fight 12"),
    ("!stats " + "x" * 400, "no such warrior: a name is 1 to 24 letters, digits, ' _ -"),
    ("!history Gorb@g", "no such warrior: a name is 1 to 24 letters, digits, ' _ -"),
])
def test_refusals_are_one_line_naming_the_fix(club: Club, text: str, refusal: str) -> None:
    assert club.say(f"ann {text}") == [f"#arena ann: {refusal}"]


# -- an open fight, and the longest answers -----------------------------------------------


def test_an_open_fight_is_ongoing_in_its_channel(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("#pit olaf !challenge Gorbag mortal")
    club.dice.push(50, 40)
    club.say("#pit gob !accept")
    (fight,) = club.referee.store.fights()
    day = fight.started_at[:10]
    assert one(club.say("ann !history Gorbag")) == (
        f"#arena ann: Gorbag's fights: fight #1 {day} mortal vs Olaf: ongoing in #pit")
    assert one(club.say("ann !fight 1")) == (
        f"#arena ann: Fight #1, mortal, {day}: Olaf (olaf) vs Gorbag (gob); ongoing in #pit")
    assert one(club.say("ann !stats Gorbag")).startswith("#arena ann: Gorbag: fights 0 ")
    assert club.dice.left == 0


NICK = "n" * 30
"""A long nick (NICKLEN 30), the one every long answer is addressed to."""
CHANNEL = "#" + "c" * 49
NAMES = [letter + "o" * 23 for letter in "ABCDEFGHIJK"]
"""Eleven warriors with names of the longest kind (24 characters)."""


def long_club(tmp_path: Path) -> Club:
    """Eleven long-named warriors of long-named players at 40.0 BP; the first has fought
    each of the others in ``CHANNEL`` and won by a moderator's ruling."""
    club = Club(tmp_path)
    players = [f"{'p' * 28}{index:02}" for index in range(len(NAMES))]
    for name, player in zip(NAMES, players, strict=True):
        club.say(f"{player} !create {name} free-clans broadsword shield")
        club.say(f"mod !mod bp {name} +40.0 long service")
    for foe, player in zip(NAMES[1:], players[1:], strict=True):
        club.say(f"{CHANNEL} {players[0]} !challenge {foe} as {NAMES[0]}")
        club.dice.push(50, 40)
        club.say(f"{CHANNEL} {player} !accept")
        club.say(f"{CHANNEL} mod !mod end {NAMES[0]} a long afternoon")
    assert club.dice.left == 0
    return club


def test_the_longest_answers_are_one_line_within_the_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    club = long_club(tmp_path)
    web = WebConfig(base_url="https://records.club.example.org/an-cath/leadership")
    monkeypatch.setattr(club.referee, "services", replace(
        club.referee.services, config=club.config.model_copy(update={"web": web})))
    day = club.referee.store.fights()[0].started_at[:10]
    a, k, j, i = NAMES[0], NAMES[10], NAMES[9], NAMES[8]
    standings = " | ".join(f"{n}. {NAMES[n - 1]} 40.0 BP (0-1-0)" for n in range(2, 8))
    assert one(club.say(f"{NICK} !top {MOST}")) == (   # 3 past the line, 1 past the 10
        f"#arena {NICK}: Standings: 1. {a} 40.0 BP (10-0-0) | {standings} | 4 more")
    assert one(club.say(f"{NICK} !history {a} {MOST}")) == (
        f"#arena {NICK}: {a}'s fights: fight #10 {day} practice vs {k}: won by moderator, "
        f"+0.0 BP | fight #9 {day} practice vs {j}: won by moderator, +0.0 BP | "
        f"fight #8 {day} practice vs {i}: won by moderator, +0.0 BP | 7 more")
    assert one(club.say(f"{NICK} !stats {a}")) == (
        f"#arena {NICK}: {a}: fights 10 (won 10, lost 0, drawn 0), kills 0, yields 0, "
        "escapes 0, prisoners taken 0; BP 40.0: +0.0 from fights, +40.0 from moderators")
    player = "p" * 28
    assert one(club.say(f"{NICK} !fight 10")) == (
        f"#arena {NICK}: Fight #10, practice, {day}: {a} ({player}00) +0.0 BP vs {k} "
        f"({player}10) +0.0 BP; {a} won by moderator; replay: "
        "https://records.club.example.org/an-cath/leadership/fights/10")


def test_a_list_that_fits_says_nothing_more_than_the_warriors_past_it(tmp_path: Path) -> None:
    club = long_club(tmp_path)
    assert one(club.say(f"{NICK} !top 3")).endswith(f"3. {NAMES[2]} 40.0 BP (0-1-0) | 8 more")
    assert not one(club.pm(f"{NICK} !history {NAMES[0]} 3")).endswith("more")


# -- nothing typed crashes them -----------------------------------------------------------


WORDS = ["Gorbag", "olaf", "Bran", "Nobody", "goblin", "free-clans", "fairy", "elves", "1",
         "#1", "4", "#4", "0", "-1", "+5", "10", "11", "99", "#", "##2", "1e3", "\uff12", "\u0663",
         "9" * 30]
word = st.one_of(st.sampled_from(WORDS), st.text(min_size=1, max_size=12))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["top", "history", "stats", "fight"]),
       args=st.lists(word, max_size=4), private=st.booleans())
def test_any_words_get_one_line_and_change_nothing(
    club: Club, name: str, args: list[str], private: bool,
) -> None:
    before = len(club.referee.store.ledger())
    text = " ".join([f"!{name}", *args])
    replies = club.pm(f"ann {text}") if private else club.say(f"ann {text}")
    line = one(replies)
    assert GENERIC not in line and "Traceback" not in line, line
    assert len(club.referee.store.ledger()) == before
