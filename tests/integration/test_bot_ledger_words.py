"""Everything a moderator changes is in the ledger, in words (issue 30, item 5): every
setting change (roll mode, time limit, Fairy Folk, odds, the ignore list, a moderator's
password, the home network) is a ``setting-changed`` row, a secret's by its key only; an
undo is an ``undo`` row saying what it took back, even when no BP moved; the armour a
moderator set, whom ``!mod add`` named and a ransom's terms are in their rows' detail and
shown in words by ``ancath-bot ledger`` (text, CSV, JSON); a moderator logged in by
password is recorded by the name they logged in as. None of these rows counts toward a
warrior: ``audit verify`` passes on the club that wrote them.

A ransom longer than the limit is refused in one line naming it, never cut.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from club import Club
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.chat.moderators import hash_password, password_key
from bot.messages import Incoming, Sender
from bot.safe_text import DEFAULT_BUDGET
from bot.systems.ancath.plugin import RANSOM_MOST
from storage.club import HOME_NETWORK, seal_digest
from storage.store import Store

BOSS = Sender(nick="boss", mask="boss!~boss@127.0.0.1", host="~boss@127.0.0.1")
"""A moderator on a network without services: known by ``user@host`` until logged in."""


# -- helpers ------------------------------------------------------------------------------


def make_club(tmp_path: Path, **options: Any) -> Club:
    """Gorbag (goblin, gob's) and Olaf (free-clans, olaf's)."""
    club = Club(tmp_path, **options)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    return club


def rows_since(club: Club, first: int) -> list[tuple[Any, ...]]:
    """The ledger rows numbered ``first`` on: entry, warrior, actor, moderator, reason and
    the detail in words."""
    return [(r["entry"], r["warrior"], r["actor"], r["moderator"], r["reason"], r["detail"])
            for r in club.referee.store.ledger() if r["id"] >= first]


def next_row(club: Club) -> int:
    return len(club.referee.store.ledger()) + 1


def said(club: Club, sender: Sender, text: str, channel: str | None = None) -> list[str]:
    return [f"{o.target} {o.text}" for o in club.referee.handle(
        Incoming(sender=sender, text=text, channel=channel))]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True,
                          text=True, timeout=60)


def honest(club: Club, export: bool = False) -> None:
    """The books balance: in process, and by ``ancath-bot audit verify``; with
    ``export``, by ``audit verify --export`` with the club's public key alone too."""
    assert club.referee.store.verify() == []
    checked = cli("audit", "verify", "--db", club.db)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    if export:
        key = cli("key", "public", "--db", club.db).stdout.strip()
        out = str(Path(club.db).with_suffix(".jsonl"))
        assert cli("audit", "export", "--db", club.db, "--out", out).returncode == 0
        proved = cli("audit", "verify", "--export", out, "--public-key", key)
        assert proved.returncode == 0, proved.stdout + proved.stderr


# -- settings -----------------------------------------------------------------------------


def test_every_setting_a_moderator_changes_is_a_ledger_row_with_who_what_and_why(
    tmp_path: Path,
) -> None:
    club = make_club(tmp_path)
    first = next_row(club)
    assert club.say("mod !mod rolls manual dice bot is down") == [
        "#arena mod: rolls in #arena are now manual"]
    club.say("mod !mod rolls auto")
    assert club.say("mod !mod timelimit 5 slow evening") == [
        "#arena mod: the time to decide in #arena is now 5 min, from the next decision"]
    club.say("mod !mod timelimit default")
    assert club.say("mod !mod fairy open a fairy tournament") == [
        "#arena mod: Fairy Folk creation is open"]
    club.say("mod !mod odds fighters no backseat players")
    club.say("mod !mod ignore spammer floods the channel")
    club.say("mod !mod unignore spammer said sorry")
    assert rows_since(club, first) == [
        ("setting-changed", None, "mod", "mod", "dice bot is down",
         "rolls:default:#arena set to manual"),
        ("setting-changed", None, "mod", "mod", "", "rolls:default:#arena set to auto"),
        ("setting-changed", None, "mod", "mod", "slow evening",
         "timelimit:default:#arena set to 5"),
        ("setting-changed", None, "mod", "mod", "",
         "timelimit:default:#arena set to the default"),
        ("setting-changed", None, "mod", "mod", "a fairy tournament",
         "fairy_folk_open set to true"),
        ("setting-changed", None, "mod", "mod", "no backseat players",
         "odds:default:#arena set to fighters"),
        ("setting-changed", None, "mod", "mod", "ignore spammer: floods the channel",
         "ignored set to spammer"),
        ("setting-changed", None, "mod", "mod", "unignore spammer: said sorry",
         "ignored set to none"),
    ]
    # the rows count toward no warrior: the sheets are as created, and the books balance
    assert club.warrior("Gorbag")["bp"] == 0 and club.warrior("Olaf")["bp"] == 0
    honest(club)


def test_a_refused_setting_change_writes_no_row(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    rows = club.referee.store.ledger()
    assert club.say("mod !mod timelimit 0 too fast") == [
        "#arena mod: the time limit is in minutes, 1 to 1440 (or default)"]
    assert club.say("ann !mod fairy open") == [
        "#arena ann: only moderators use !mod (by services account or host mask; without "
        "services: /msg <bot> !mod login <password>)"]
    assert club.say("mod !mod timelimit 5 " + "x" * 420) == [
        "#arena mod: a reason holds at most 400 characters: say it shorter"]
    assert club.referee.store.ledger() == rows
    assert club.referee.settings.turn_seconds("#arena") == 600   # unchanged


def test_a_moderators_password_is_a_row_naming_the_key_never_the_hash(tmp_path: Path) -> None:
    club = make_club(tmp_path, moderators=("mod", "boss"))
    store = club.referee.store
    first = next_row(club)
    sealed = hash_password("hunter2hunter2", "boss", store.keyring)
    store.set_setting(password_key("boss"), sealed, "cli", "password for boss")
    assert rows_since(club, first) == [
        ("setting-changed", None, "cli", None, "password for boss",
         "moderator-password:boss set (a secret, not recorded)")]
    with sqlite3.connect(club.db) as db:
        (detail,) = db.execute("SELECT detail FROM ledger WHERE id = ?", (first,)).fetchone()
        chain = "\n".join(str(row) for row in db.execute("SELECT * FROM ledger"))
    assert json.loads(detail) == {"key": "moderator-password:boss",   # and which seal
                                  "seal": seal_digest(sealed)}          # is the newest
    assert str(sealed["hash"]) not in chain and str(sealed["salt"]) not in chain
    assert said(club, BOSS, "!mod login hunter2hunter2")[0].startswith(
        "boss logged in as moderator boss")
    honest(club)


def test_the_home_network_claimed_at_start_is_a_row(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    first = next_row(club)
    assert club.referee.store.home_network("libera") == "libera"
    assert club.referee.store.home_network("oftc") == "libera"   # claimed once
    assert rows_since(club, first) == [
        ("setting-changed", None, "ancath-bot", None,
         "the first network an IRC bot started on: its accounts are the club's names; "
         "another network's are <network>:<account>", f"{HOME_NETWORK} set to libera")]
    honest(club)


# -- a password moderator -----------------------------------------------------------------


def test_a_password_moderator_is_recorded_by_the_name_logged_in_as(tmp_path: Path) -> None:
    club = make_club(tmp_path, moderators=("mod", "boss"))
    store = club.referee.store
    store.set_setting(password_key("boss"), hash_password("hunter2hunter2", "boss",
                                                           store.keyring), "cli")
    assert said(club, BOSS, "!mod login hunter2hunter2") == [
        "boss logged in as moderator boss until boss quits, changes nick, leaves my "
        "channels or speaks from another host"]
    first = next_row(club)
    assert said(club, BOSS, "!mod armour Gorbag mail won it in a raid", "#arena") == [
        "#arena boss: Gorbag now wears mail (was leather)"]
    said(club, BOSS, "!mod bp Olaf +1.0 prize", "#arena")
    said(club, BOSS, "!mod timelimit 3 quick night", "#arena")
    said(club, BOSS, "!mod add alice helps on Sundays", "#arena")
    said(club, BOSS, "!mod remove alice moved away", "#arena")
    rows = rows_since(club, first)
    assert [(entry, actor, moderator) for entry, _, actor, moderator, _, _ in rows] == [
        ("moderator-armour", "boss", "boss"), ("moderator-bp", "boss", "boss"),
        ("setting-changed", "boss", "boss"), ("moderator-added", "boss", "boss"),
        ("moderator-removed", "boss", "boss")]
    assert "~boss@127.0.0.1" not in json.dumps(store.ledger())

    # a fight's rulings too: an undo's rows, its record, and a moderator's end
    club.say("olaf !challenge Gorbag")
    club.dice.push(50, 40)
    club.say("gob !accept")
    club.say("olaf !first")
    club.dice.push(20)
    club.say("olaf !attack")
    first = next_row(club)
    assert said(club, BOSS, "!mod undo misclick", "#arena")[0].startswith(
        "#arena Undone: Olaf's attack and its roll (misclick).")
    said(club, BOSS, "!mod end draw both left", "#arena")
    assert {(actor, moderator) for _, _, actor, moderator, _, _ in rows_since(club, first)} \
        == {("boss", "boss")}
    fight = club.referee.tables.table("#arena").last_fight_id
    assert fight is not None
    assert [c.actor for c in store.command_log(fight)][-2:] == ["boss", "boss"]

    # by services account, a moderator is recorded by the account as before
    club.say("mod !mod bp Olaf +1.0 prize")
    assert (store.ledger("Olaf")[-1]["actor"], store.ledger("Olaf")[-1]["moderator"]) == (
        "mod", "mod")
    honest(club)


# -- undo -----------------------------------------------------------------------------------


def test_an_undo_after_the_end_says_what_it_took_back_before_its_reversals(
    tmp_path: Path,
) -> None:
    club = make_club(tmp_path)
    club.say("olaf !challenge Gorbag")
    club.dice.push(50, 40)
    club.say("gob !accept")
    club.say("olaf !first")
    club.dice.push(20)
    club.say("olaf !attack")
    club.dice.push(80, 5)
    assert club.say("gob !dodge")[-1].endswith(
        "Olaf wins by a kill. BP: Olaf +0.2, Gorbag +0.1. ledger #5 <mac>")
    first = next_row(club)
    assert club.say("mod !mod undo the dodge roll was misread") == [
        "#arena Undone: Gorbag's dodge and its 2 rolls (the dodge roll was misread). "
        "Gorbag (gob), defend: !dodge 30 | !parry 25 | !luck 5"]
    assert rows_since(club, first) == [
        ("undo", None, "mod", "mod", "the dodge roll was misread",
         "took back 3 commands (#6 gob: Defend dodge; #7 bot: Roll 80; #8 bot: Roll 5); "
         "kept 5"),
        ("reversal", "Olaf", "mod", "mod", "undo: the dodge roll was misread",
         "takes back row #3"),
        ("reversal", "Gorbag", "mod", "mod", "undo: the dodge roll was misread",
         "takes back row #4"),
        ("fight-reopened", None, "mod", "mod", "undo: the dodge roll was misread",
         "reopened after command 9"),
    ]
    undo = club.referee.store.ledger()[first - 1]
    assert (undo["fight"], undo["bp"]) == (1, 0.0)
    # a second undo takes back Olaf's attack: its own row, and no row of the first
    # undo is taken back again
    first = next_row(club)
    club.say("mod !mod undo the attack too")
    assert rows_since(club, first) == [
        ("undo", None, "mod", "mod", "the attack too",
         "took back 2 commands (#4 olaf: Act attack; #5 bot: Roll 20); kept 3")]
    club.dice.push(20)
    club.say("olaf !attack")
    club.dice.push(80, 5)
    assert "Olaf wins by a kill" in club.say("gob !dodge")[-1]
    assert club.warrior("Olaf")["bp"] == 2 and club.warrior("Gorbag")["bp"] == 1
    honest(club, export=True)
    assert club.restart() == []


# -- what the rows' detail says, on the command line -------------------------------------


def test_the_ledger_on_the_command_line_says_armour_moderators_ransom_undo_and_settings(
    tmp_path: Path,
) -> None:
    club = make_club(tmp_path)
    club.say("mod !mod armour Gorbag mail won it in a raid")
    club.say("mod !mod add alice helps on Sundays")
    club.say("mod !mod timelimit 5 slow evening")
    club.say("olaf !challenge Gorbag mortal")
    club.dice.push(50, 40)
    club.say("gob !accept")
    club.say("olaf !second")
    club.say("gob !yield")
    assert "Gorbag is Olaf's prisoner (ransom: 10 sheep and a cask)" in club.say(
        "olaf !accept prisoner ransom 10 sheep and a cask")[-1]
    club.say("mod !mod undo the yield was a joke")
    club.referee.store.engine.dispose()   # the command line reads the file on its own

    words = ["armour from leather to mail", "moderator alice",
             "timelimit:default:#arena set to 5", "ransom: 10 sheep and a cask",
             "took back 1 command (#5 olaf: AcceptYield prisoner, ransom 10 sheep and a "
             "cask); kept 4"]
    text = cli("ledger", "--db", club.db)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    for said_ in words:
        assert any(said_ in line for line in lines), said_
    assert next(line for line in lines if "moderator-added" in line).split("  ")[2:] == [
        "club", "moderator-added", "moderator alice", "mod (mod mod)", "helps on Sundays"]
    assert any("  fight 1  undo  took back" in line for line in lines)

    table = cli("ledger", "--db", club.db, "--format", "csv")
    details = [row["detail"] for row in csv.DictReader(io.StringIO(table.stdout))]
    rows = json.loads(cli("ledger", "--db", club.db, "--format", "json").stdout)
    for said_ in words:
        assert any(said_ in detail for detail in details), said_
        assert any(said_ in row["detail"] for row in rows), said_
    assert details == [row["detail"] for row in rows]
    honest(club, export=True)


# -- ransom -------------------------------------------------------------------------------


def yielded(club: Club, winner: str = "Olaf", loser: str = "Gorbag") -> None:
    """A mortal fight in which ``loser`` (gob's) yields to ``winner`` (olaf's)."""
    club.say(f"olaf !challenge {loser} mortal")
    club.dice.push(50, 40)
    club.say("gob !accept")
    club.say("olaf !second")
    assert f"{winner} (olaf), answer the yield" in club.say("gob !yield")[-1]


def test_a_ransom_over_the_limit_is_refused_in_one_line_never_cut(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    yielded(club)
    rows = club.referee.store.ledger()
    too_long = "ten goats, " * 8   # 88 characters
    assert club.say(f"olaf !accept prisoner ransom {too_long}") == [
        f"#arena olaf: a ransom is at most {RANSOM_MOST} characters: say it shorter"]
    wide = "é" * 41   # 41 characters, 82 bytes
    assert club.say(f"olaf !accept prisoner ransom {wide}") == [
        f"#arena olaf: a ransom is at most {RANSOM_MOST} characters (a letter beyond plain "
        "ASCII counts 2 to 4): say it shorter"]
    assert club.referee.store.ledger() == rows   # nothing written, still waiting
    assert club.warrior("Gorbag")["status"] == "free"
    terms = "g" * RANSOM_MOST
    assert f"Gorbag is Olaf's prisoner (ransom: {terms})." in club.say(
        f"olaf !accept prisoner ransom {terms}")[-1]
    taken = club.referee.store.ledger("Gorbag")[-1]
    assert (taken["entry"], taken["detail"]) == ("prisoner-taken", f"ransom: {terms}")
    honest(club)


def test_the_longest_ransom_with_the_longest_names_ends_the_fight_in_one_whole_line(
    tmp_path: Path,
) -> None:
    winner, loser = "Aelfricthewanderingbardx", "Gorbagsonofgrishnakhthez"   # 24 letters
    club = Club(tmp_path)
    club.say(f"gob !create {loser} goblin club spear")
    club.say(f"olaf !create {winner} free-clans broadsword shield")
    yielded(club, winner, loser)
    terms = "ten goats, " * 7 + "ale"
    assert len(terms) == RANSOM_MOST
    (line,) = club.say(f"olaf !accept prisoner ransom {terms}")
    assert f"(ransom: {terms})." in line and "..." not in line
    assert line.endswith(" ledger #7 <mac>")
    # a row id of 7 digits in place of 7, and a 16-digit anchor: still one line
    said_ = line.removeprefix("#arena ").replace("#7 <mac>", "#9999999 4305b5ca9e1f0c2d")
    assert len(said_.encode()) <= DEFAULT_BUDGET


def test_the_moderators_log_has_an_undo_once(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    club.say("olaf !challenge Gorbag")
    club.dice.push(50, 40)
    club.say("gob !accept")
    club.say("olaf !first")
    club.dice.push(20)
    club.say("olaf !attack")
    club.say("mod !mod undo misclick")
    club.say("mod !mod fairy open")
    entries = club.referee.store.moderator_window().items
    assert len(entries) == 2   # the setting's row, and the undo (as its record) once
    assert [getattr(e, "reason", None) for e in entries] == [None, "misclick"]


# -- nothing a moderator types crashes the bot ---------------------------------------------

WORDS = ["Gorbag", "Olaf", "alice", "spammer", "*!*@*", "x!y@z.example", "mail", "none",
         "5", "0", "1440", "1441", "2.5", "default", "open", "close", "auto", "manual",
         "fighters", "everyone", "é" * 30, "w" * 200]
mod_line = st.builds(
    lambda sub, args: " ".join(["!mod", sub, *args]),
    st.sampled_from(["timelimit", "odds", "ignore", "unignore", "add", "remove", "armour",
                     "fairy", "rolls", "undo", "bp"]),
    st.lists(st.one_of(st.sampled_from(WORDS), st.text(min_size=1, max_size=12)),
             max_size=6))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(mod_line, max_size=10))
def test_nothing_a_moderator_types_about_settings_crashes_the_bot(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str],
) -> None:
    club = make_club(tmp_path_factory.mktemp("settings"))
    club.say("olaf !challenge Gorbag")
    club.dice.push(50, 40)
    club.say("gob !accept")
    for text in lines:
        for line in club.say(f"mod {text}"):
            assert "went wrong on my side" not in line, (text, line)
    assert club.referee.store.verify() == []


def test_a_store_writes_setting_rows_on_every_backend(store: Store) -> None:
    store.set_setting("rolls:default:#arena", "manual", "mod", "dice bot is down", "mod")
    store.set_setting(password_key("boss"), {"hash": "secret-hash"}, "cli")
    store.set_setting("timelimit:default:#arena", 2.5, "mod", moderator="mod")
    rows = store.ledger()
    assert [(r["entry"], r["warrior"], r["moderator"], r["detail"]) for r in rows] == [
        ("setting-changed", None, "mod", "rolls:default:#arena set to manual"),
        ("setting-changed", None, None, "moderator-password:boss set (a secret, not recorded)"),
        ("setting-changed", None, "mod", "timelimit:default:#arena set to 2.5")]
    assert "secret-hash" not in json.dumps(rows)
    assert store.setting(password_key("boss")) == {"hash": "secret-hash"}
    assert store.verify() == []
