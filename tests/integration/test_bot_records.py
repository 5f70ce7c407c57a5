"""Warrior records and moderators through the referee (R2, R7, R8), as chat transcripts.

Each test plays lines through :class:`club.Club` (a real SQLite file, scripted dice, a
fake clock) and checks what the bot says and what the ledger holds afterwards. Tests
state the correct behaviour of bot bugs found and fixed.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from club import Club
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.app import commands_for
from bot.safe_text import DEFAULT_BUDGET
from bot.systems.registry import PLUGINS

REGISTRY = commands_for(PLUGINS.values())

GENERIC = "went wrong on my side"
"""The referee's reply to an unexpected exception: never the answer to anything typed."""

MOD_REFUSED = "only moderators use !mod"


# -- helpers ------------------------------------------------------------------------------


def make_club(tmp_path: Path, **options: Any) -> Club:
    """A club with Gorbag (goblin, owned by gob) and Olaf (free-clans, owned by olaf)."""
    club = Club(tmp_path, **options)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    return club


def start_fight(club: Club, kind: str = "practice") -> None:
    """Olaf challenges Gorbag; Olaf wins the initiative (50 to 40) and acts first."""
    club.say(f"olaf !challenge Gorbag {kind}")
    club.dice.push(50, 40)
    assert club.say("gob !accept")[-1].endswith(" Olaf (olaf) chooses: !first | !second")
    club.say("olaf !first")


def olaf_kills_gorbag(club: Club) -> str:
    """Olaf's attack hits (20 vs 25), Gorbag's dodge fails (80 vs 30), damage 5: kill."""
    club.dice.push(20)
    club.say("olaf !attack")
    club.dice.push(80, 5)
    return club.say("gob !dodge")[-1]


def ledger(club: Club, name: str) -> list[dict[str, Any]]:
    return club.referee.store.ledger(name)


def only(lines: list[str]) -> str:
    assert len(lines) == 1, lines
    return lines[0]


def setting_row(club: Club, key: str) -> tuple[str, str]:
    """The stored value and who last changed it."""
    with sqlite3.connect(club.db) as db:
        row: tuple[str, str] | None = db.execute(
            "SELECT value, updated_by FROM settings WHERE key = ?", (key,)).fetchone()
    assert row is not None, f"no setting {key}"
    return row


def database_text(club: Club) -> str:
    """Everything the database holds, as SQL text (to find a recorded reason anywhere)."""
    with sqlite3.connect(club.db) as db:
        return "\n".join(db.iterdump())


# -- !create ------------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "name", "skills", "armour"), [
    ("gob !create Gorbag goblin club spear", "Gorbag", {"club", "move", "spear"}, "leather"),
    ("inv !create Ulf invaders spear", "Ulf", {"move", "shield", "spear"}, "cohort"),
    ("inv !create Ulf invader move shield spear", "Ulf", {"move", "shield", "spear"}, "cohort"),
    ("olaf !create Olaf free-clans axe greatsword", "Olaf", {"axe", "greatsword", "move"},
     "highlander"),
    ("olaf !create Olaf Free-Clans Broadsword Shield", "Olaf", {"broadsword", "move", "shield"},
     "highlander"),
])
def test_create_fills_in_the_skills_the_culture_always_has(
    tmp_path: Path, line: str, name: str, skills: set[str], armour: str
) -> None:
    club = Club(tmp_path)
    reply = only(club.say(line))
    nick = line.split()[0]
    assert reply.startswith(f"#arena {nick}: created {name} (")
    record = club.referee.store.warrior(name)
    assert {s.value: v for s, v in record.sheet.skills.items()} == dict.fromkeys(skills, 30)
    assert record.sheet.armour.value == armour
    assert record.owner == nick
    assert record.sheet.bp == 0 and record.sheet.bp_spent == 0
    assert [(r["entry"], r["actor"]) for r in ledger(club, name)] == [("created", nick)]


@pytest.mark.parametrize(("line", "armour"), [
    ("olaf !create Olaf free-clans axe shield none", "none"),
    ("olaf !create Olaf free-clans axe shield mail", "mail"),
    ("inv !create Ulf invaders broadsword officer", "officer"),
    ("inv !create Ulf invaders shortsword Leather", "leather"),
    ("gob !create Gorbag goblin axe club none", "none"),
])
def test_create_takes_an_allowed_armour(tmp_path: Path, line: str, armour: str) -> None:
    club = Club(tmp_path)
    assert f", {armour}, " in only(club.say(line))
    assert club.referee.store.warrior(line.split()[2]).sheet.armour.value == armour


@pytest.mark.parametrize(("text", "refusal"), [
    ("!create Bad martians spear", "culture must be invaders, free-clans, fairy or goblin"),
    ("!create Bad goblin club sword", "no skill sword"),
    ("!create Bad goblin club greatsword", "goblin cannot start with greatsword"),
    ("!create Bad goblin club", "goblin take 2 of axe/club/shield/spear"),
    ("!create Bad goblin axe club spear", "goblin take 2 of axe/club/shield/spear"),
    ("!create Bad invaders broadsword spear", "invaders take 1 of broadsword/shortsword/spear"),
    ("!create Bad free-clans axe", "free-clans take 1 of greatsword/shield"),
    ("!create Bad goblin club spear mail", "goblin armour must be one of leather, none"),
    ("!create Bad invaders spear mail", "invaders armour must be one of"),
    ("!create Bad free-clans axe shield cohort", "free-clans armour must be one of"),
    ("!create 9lives goblin club spear", "is not a usable name"),
    ("!create Bad", "usage: !create"),
    ("!create", "usage: !create"),
])
def test_create_refuses_bad_culture_skills_armour_and_names(
    tmp_path: Path, text: str, refusal: str
) -> None:
    club = Club(tmp_path)
    reply = only(club.say(f"ann {text}"))
    assert reply.startswith("#arena ann: ") and refusal in reply
    assert club.referee.store.warriors() == []


@pytest.mark.parametrize("name", ["Gorbag", "gorbag", "GORBAG", "gOrBaG"])
def test_warrior_names_are_unique_case_insensitively(tmp_path: Path, name: str) -> None:
    club = make_club(tmp_path)
    reply = only(club.say(f"ann !create {name} free-clans axe shield"))
    assert reply == f"#arena ann: the name {name} is taken"
    record = club.referee.store.warrior("gorbag")
    assert (record.sheet.name, record.owner, record.sheet.culture.value) == (
        "Gorbag", "gob", "goblin")
    assert len(club.referee.store.warriors()) == 2


def test_a_player_may_own_several_warriors(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    club.say("gob !create Snaga goblin axe shield")
    assert only(club.say("gob !warriors")) == (
        "#arena gob: gob: Gorbag (goblin, free, BP 0.0), Snaga (goblin, free, BP 0.0)")


def test_fairy_folk_are_refused_until_a_moderator_opens_them(tmp_path: Path) -> None:
    club = Club(tmp_path)
    closed = "Fairy Folk cannot be created yet"
    assert closed in only(club.say("fay !create Fae fairy lajatang"))

    assert MOD_REFUSED in only(club.say("fay !mod fairy open"))
    assert MOD_REFUSED in only(club.say("mod !mod fairy open", account="fay"))
    assert closed in only(club.say("fay !create Fae fairy lajatang"))

    assert only(club.say("mod !mod fairy open")) == "#arena mod: Fairy Folk creation is open"
    assert setting_row(club, "fairy_folk_open") == ('{"value": true}', "mod")
    assert "created Fae (fairy, leather, fay): lajatang 30, move 30, shortsword 30" in only(
        club.say("fay !create Fae fairy lajatang"))

    assert club.restart() == []
    assert "created Pix (fairy, none, fay)" in only(club.say("fay !create Pix fairy shield none"))

    assert only(club.say("mod !mod fairy close")) == "#arena mod: Fairy Folk creation is closed"
    assert setting_row(club, "fairy_folk_open") == ('{"value": false}', "mod")
    assert closed in only(club.say("fay !create Sprite fairy countersword"))
    assert [r.sheet.name for r in club.referee.store.warriors("fay")] == ["Fae", "Pix"]


def test_fairy_folk_open_by_configuration_can_be_closed(tmp_path: Path) -> None:
    club = Club(tmp_path, fairy=True)
    assert "created Fae" in only(club.say("fay !create Fae fairy shield"))
    club.say("mod !mod fairy close")
    assert "Fairy Folk cannot be created yet" in only(club.say("fay !create Pix fairy shield"))


# -- !sheet and !warriors -----------------------------------------------------------------


def test_sheet_shows_skills_bp_test_and_status(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    assert only(club.say("ann !sheet gorbag")) == (
        "#arena ann: Gorbag (goblin, leather, gob): club 30, move 30, spear 30; "
        "BP 0.0 (0 to spend); test 40; free")
    club.say("mod !mod bp Gorbag +2.5 tournament prize")
    reply = only(club.say("ann !sheet Gorbag"))
    assert "BP 2.5 (2 to spend); test 45; free" in reply


@pytest.mark.parametrize(("text", "refusal"), [
    ("!sheet Nobody", "no warrior named Nobody"),
    ("!sheet", "usage: !sheet <warrior>"),
    ("!sheet Gorbag Olaf", "usage: !sheet <warrior>"),
])
def test_sheet_refusals(tmp_path: Path, text: str, refusal: str) -> None:
    club = make_club(tmp_path)
    assert only(club.say(f"ann {text}")) == f"#arena ann: {refusal}"


def test_warriors_lists_yours_or_a_named_players(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    assert only(club.say("gob !warriors")) == "#arena gob: gob: Gorbag (goblin, free, BP 0.0)"
    assert only(club.say("ann !warriors olaf")) == (
        "#arena ann: olaf: Olaf (free-clans, free, BP 0.0)")
    assert only(club.say("ann !warriors")) == "#arena ann: ann has no warriors; !create makes one"


# -- !buy (R2.8) --------------------------------------------------------------------------


def test_buy_needs_bp_and_raises_ten_then_five(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    assert only(club.say("gob !buy Gorbag club")) == (
        "#arena gob: Gorbag has 0 BP to spend; club costs 1")

    assert only(club.say("mod !mod bp Gorbag +3.0 prize")) == "#arena mod: Gorbag: +3.0 BP recorded"
    bought = [only(club.say("gob !buy Gorbag club")) for _ in range(3)]
    assert "club 40" in bought[0] and "BP 3.0 (2 to spend)" in bought[0]
    assert "club 50" in bought[1] and "BP 3.0 (1 to spend)" in bought[1]
    assert "club 55" in bought[2] and "BP 3.0 (0 to spend)" in bought[2]
    assert all(line.startswith("#arena gob: bought: Gorbag") for line in bought)
    assert only(club.say("gob !buy Gorbag club")) == (
        "#arena gob: Gorbag has 0 BP to spend; club costs 1")

    gorbag = club.warrior("Gorbag")
    assert gorbag["bp"] == 30 and gorbag["spent"] == 3  # spending never lowers the total
    assert gorbag["skills"] == {"club": 55, "move": 30, "spear": 30}
    spends = [(r["entry"], r["spent"], r["skill"], r["skill_value"], r["actor"], r["reason"])
              for r in ledger(club, "Gorbag") if r["entry"] == "spend"]
    assert spends == [
        ("spend", 1, "club", 40, "gob", "bought club 30->40"),
        ("spend", 1, "club", 50, "gob", "bought club 40->50"),
        ("spend", 1, "club", 55, "gob", "bought club 50->55"),
    ]
    assert club.referee.store.verify() == []


def test_buy_stops_at_50_then_at_the_skill_maximum(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    club.say("mod !mod bp Gorbag +5.0 prize")
    club.say("mod !mod skill Gorbag club 45 training")
    assert "club 50" in only(club.say("gob !buy Gorbag club"))
    club.say("mod !mod skill Gorbag move 58 training")
    assert "move 60" in only(club.say("gob !buy Gorbag move"))
    assert only(club.say("gob !buy Gorbag move")) == (
        "#arena gob: Gorbag's move is already at its maximum 60")
    assert club.warrior("Gorbag")["spent"] == 2


def test_a_new_skill_costs_3_bp_and_starts_at_30(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    club.say("mod !mod bp Gorbag +2.9 prize")
    assert only(club.say("gob !buy Gorbag axe")) == (
        "#arena gob: Gorbag has 2 BP to spend; axe costs 3")
    club.say("mod !mod bp Gorbag +0.1 prize")
    reply = only(club.say("gob !buy Gorbag axe"))
    assert "axe 30, club 30" in reply and "BP 3.0 (0 to spend)" in reply
    assert club.warrior("Gorbag")["spent"] == 3
    assert only(club.say("gob !buy Gorbag greatsword")) == (
        "#arena gob: greatsword is not open to goblin")


@pytest.mark.parametrize(("line", "account"), [
    ("olaf !buy Gorbag club", None),
    ("gob !buy Gorbag club", "impostor"),  # gob's nick, someone else's account
    ("ann !buy gorbag club", None),
])
def test_only_the_owner_buys(tmp_path: Path, line: str, account: str | None) -> None:
    club = make_club(tmp_path)
    club.say("mod !mod bp Gorbag +3.0 prize")
    reply = only(club.say(line, account=account))
    assert reply.endswith("is not yours")
    assert club.warrior("Gorbag")["spent"] == 0


@pytest.mark.parametrize(("text", "refusal"), [
    ("!buy Gorbag", "usage: !buy <warrior> <skill>"),
    ("!buy Gorbag sword", "no skill sword"),
    ("!buy Nobody club", "no warrior named Nobody"),
])
def test_buy_refusals(tmp_path: Path, text: str, refusal: str) -> None:
    club = make_club(tmp_path)
    assert refusal in only(club.say(f"gob {text}"))


def test_no_buying_during_a_fight(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    start_fight(club)
    club.say("mod !mod bp Gorbag +3.0 prize")
    assert only(club.say("gob !buy Gorbag club")) == (
        "#arena gob: Gorbag is in a fight; buy skills after it")
    assert club.warrior("Gorbag")["spent"] == 0


# -- !audit -------------------------------------------------------------------------------


def test_audit_shows_what_who_and_why(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    assert only(club.say("ann !audit Gorbag")) == (
        "#arena ann: row 1 created by gob: warrior created")
    club.say("mod !mod bp Gorbag +3.0 tournament prize")
    club.say("gob !buy Gorbag club")
    reply = only(club.say("ann !audit gorbag"))
    rows = reply.removeprefix("#arena ann: ").split(" | ")
    assert rows[0] == "row 1 created by gob: warrior created"
    assert rows[1].endswith("moderator-bp +3.0 BP by mod (mod mod): tournament prize")
    assert rows[2].endswith("spend spent 1 by gob: bought club 30->40")


def test_audit_shows_the_last_five_rows(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    for n in range(1, 8):
        club.say(f"mod !mod bp Gorbag +0.{n} prize {n}")
    rows = only(club.say("ann !audit Gorbag")).removeprefix("#arena ann: ").split(" | ")
    assert [row.rsplit(" ", 1)[1] for row in rows] == ["3", "4", "5", "6", "7"]


def test_audit_says_which_skill_a_moderator_set(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    club.say("mod !mod skill Gorbag axe 40 captured an axe")
    row = only(club.say("ann !audit Gorbag")).split(" | ")[-1]
    assert "moderator-skill" in row and "captured an axe" in row
    assert "axe" in row.replace("captured an axe", "") and "40" in row


def test_audit_credits_a_fights_awards_to_the_bot_and_says_rows_and_fights(
        tmp_path: Path) -> None:
    """Olaf's !accept ends the fight, but the bot awards its BP (R7.2): a row is
    ``row N``, a fight ``fight #N`` (as !history and !fight say), each word once."""
    club = make_club(tmp_path)
    take_gorbag_prisoner(club)   # olaf's "!accept prisoner" closes mortal fight #1
    assert only(club.say("ann !audit Olaf")) == (
        "#arena ann: row 2 created by olaf: warrior created | "
        "row 3 award +0.5 BP by the bot: fight #1 (mortal) | "
        "row 5 award +1.0 BP by the bot: prisoner, fight #1 (mortal)")
    assert only(club.say("ann !audit Gorbag")).endswith(
        "row 4 award +0.5 BP by the bot: fight #1 (mortal) | "
        "row 6 prisoner-taken by the bot: taken prisoner by Olaf (fight #1)")
    club.say("olaf !free Gorbag")   # the captor's own act: by olaf
    assert only(club.say("ann !audit Gorbag")).endswith(
        "row 8 prisoner-freed by olaf: released by the captor")


def test_audit_refusals(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    assert only(club.say("ann !audit Gorbag Olaf")) == "#arena ann: usage: !audit [warrior]"
    assert only(club.say("ann !audit Nobody")) == "#arena ann: no warrior named Nobody"


# -- moderators: records (R8.1) -----------------------------------------------------------


def test_mod_bp_writes_a_ledger_row_with_moderator_and_reason(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    assert only(club.say("mod !mod bp gorbag +1.5 won the archery")) == (
        "#arena mod: gorbag: +1.5 BP recorded")
    assert only(club.say("mod !mod bp Gorbag -0.2 cheated at dice")) == (
        "#arena mod: Gorbag: -0.2 BP recorded")
    rows = [(r["entry"], r["bp"], r["actor"], r["moderator"], r["fight"], r["reason"])
            for r in ledger(club, "Gorbag")[1:]]
    assert rows == [
        ("moderator-bp", 1.5, "mod", "mod", None, "won the archery"),
        ("moderator-bp", -0.2, "mod", "mod", None, "cheated at dice"),
    ]
    assert club.warrior("Gorbag")["bp"] == 13
    assert club.referee.store.verify() == []


def test_mod_bp_stays_within_0_and_40_and_records_what_was_applied(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    club.say("mod !mod bp Gorbag +0.1 start")
    assert only(club.say("mod !mod bp Gorbag +50 hero")) == "#arena mod: Gorbag: +39.9 BP recorded"
    assert club.warrior("Gorbag")["bp"] == 400
    assert only(club.say("mod !mod bp Gorbag -60 disgrace")) == (
        "#arena mod: Gorbag: -40.0 BP recorded")
    assert club.warrior("Gorbag")["bp"] == 0
    assert [r["bp"] for r in ledger(club, "Gorbag")[1:]] == [0.1, 39.9, -40.0]
    assert club.referee.store.verify() == []


@pytest.mark.parametrize(("text", "refusal"), [
    ("!mod bp Gorbag 0.05 prize", "BP go in tenths"),
    ("!mod bp Gorbag lots prize", "the amount is like +1.5 or -0.2"),
    ("!mod bp Gorbag Infinity prize", "BP go in tenths"),
    ("!mod bp Gorbag NaN prize", "BP go in tenths"),
    ("!mod bp Gorbag +1.0", "usage: !mod"),
    ("!mod bp Nobody +1.0 prize", "no warrior named Nobody"),
])
def test_mod_bp_refusals(tmp_path: Path, text: str, refusal: str) -> None:
    club = make_club(tmp_path)
    assert refusal in only(club.say(f"mod {text}"))
    assert len(ledger(club, "Gorbag")) == 1


@pytest.mark.parametrize("text", [
    pytest.param("!mod bp Gorbag sNaN prize", id="bp-sNaN"),
    pytest.param("!mod bp Gorbag -snan7 prize", id="bp-signalling-nan-payload"),
    pytest.param("!mod bp Gorbag 1e999999 prize", id="bp-overflow"),
    pytest.param("!mod skill Gorbag club ² training", id="skill-superscript-digit"),
    pytest.param("!mod skill Gorbag club ① training", id="skill-circled-digit"),
])
def test_odd_moderator_numbers_are_refused_not_crashed(tmp_path: Path, text: str) -> None:
    club = make_club(tmp_path)
    reply = only(club.say(f"mod {text}"))
    assert GENERIC not in reply
    assert club.referee.store.verify() == []


def test_mod_skill_writes_a_ledger_row(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    assert only(club.say("mod !mod skill Gorbag axe 40 captured an axe")) == (
        "#arena mod: Gorbag: axe set to 40")
    assert only(club.say("mod !mod skill Gorbag Spear 0 lost the spear")) == (
        "#arena mod: Gorbag: spear set to 0")
    assert club.warrior("Gorbag")["skills"] == {"axe": 40, "club": 30, "move": 30}
    rows = [(r["entry"], r["skill"], r["skill_value"], r["actor"], r["moderator"], r["reason"])
            for r in ledger(club, "Gorbag")[1:]]
    assert rows == [
        ("moderator-skill", "axe", 40, "mod", "mod", "captured an axe"),
        ("moderator-skill", "spear", 0, "mod", "mod", "lost the spear"),
    ]
    assert club.referee.store.verify() == []


@pytest.mark.parametrize(("text", "refusal"), [
    ("!mod skill Gorbag move 61 wish", "move must be 0..60"),
    ("!mod skill Gorbag sword 40 wish", "no skill sword"),
    ("!mod skill Gorbag club -5 wish", "usage: !mod"),
    ("!mod skill Gorbag club 40", "usage: !mod"),
    ("!mod skill Nobody club 40 wish", "no warrior named Nobody"),
])
def test_mod_skill_refusals(tmp_path: Path, text: str, refusal: str) -> None:
    club = make_club(tmp_path)
    assert refusal in only(club.say(f"mod {text}"))
    assert club.warrior("Gorbag")["skills"] == {"club": 30, "move": 30, "spear": 30}


def take_gorbag_prisoner(club: Club) -> None:
    """A mortal fight in which Gorbag yields and Olaf takes him prisoner."""
    club.say("olaf !challenge Gorbag mortal")
    club.dice.push(50, 40)
    club.say("gob !accept")
    club.say("olaf !second")
    club.say("gob !yield")
    line = club.say("olaf !accept prisoner ransom 10 sheep")[-1]
    assert "Gorbag is Olaf's prisoner (ransom: 10 sheep)" in line
    assert club.warrior("Gorbag")["status"] == "prisoner"


def test_mod_free_releases_a_prisoner_with_a_ledger_row(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    take_gorbag_prisoner(club)
    assert "prisoner (held by Olaf)" in only(club.say("ann !sheet Gorbag"))
    assert only(club.say("gob !free Gorbag")) == (
        "#arena gob: Gorbag is held by Olaf: its captor's player frees it (!free Gorbag), or a "
        "moderator (!mod free Gorbag <reason>)")
    assert only(club.say("mod !mod free gorbag ransom paid")) == (
        "#arena Gorbag is free by a moderator's ruling.")
    assert club.warrior("Gorbag")["status"] == "free"
    assert club.warrior("Gorbag")["captor"] is None
    row = ledger(club, "Gorbag")[-1]
    assert (row["entry"], row["status"], row["actor"], row["moderator"], row["reason"]) == (
        "prisoner-freed", "free", "mod", "mod", "ransom paid")
    assert "is not a prisoner" in only(club.say("mod !mod free Gorbag again"))
    assert club.referee.store.verify() == []


def test_a_prisoners_own_player_is_told_who_frees_it(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    assert only(club.say("gob !free Gorbag")) == "#arena gob: Gorbag is not a prisoner"
    take_gorbag_prisoner(club)
    assert only(club.say("gob !free Gorbag")) == (
        "#arena gob: Gorbag is held by Olaf: its captor's player frees it (!free Gorbag), or a "
        "moderator (!mod free Gorbag <reason>)")
    assert only(club.say("ann !free Gorbag")) == "#arena ann: Gorbag is not your prisoner"
    assert club.warrior("Gorbag")["status"] == "prisoner"


def test_the_captor_frees_a_prisoner(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    take_gorbag_prisoner(club)
    assert only(club.say("olaf !free Gorbag")) == "#arena Gorbag is free."
    row = ledger(club, "Gorbag")[-1]
    assert (row["entry"], row["actor"], row["moderator"]) == ("prisoner-freed", "olaf", None)


# -- moderators: fights (R8.1) ------------------------------------------------------------


def test_mod_end_names_a_winner_and_the_awards_carry_the_moderator(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    start_fight(club)
    line = only(club.say("mod !mod end olaf Gorbag left the table"))
    assert line == ("#arena mod ends the fight: Gorbag left the table. Olaf wins by a "
                    "moderator's ruling. BP: Olaf +0.2, Gorbag +0.1. ledger #5 <mac>")
    assert club.warrior("Olaf")["bp"] == 2 and club.warrior("Gorbag")["bp"] == 1
    assert not club.warrior("Olaf")["in_fight"] and not club.warrior("Gorbag")["in_fight"]
    for name, bp, why in (("Olaf", 0.2, "win"), ("Gorbag", 0.1, "loss")):
        row = ledger(club, name)[-1]
        assert (row["entry"], row["bp"], row["actor"], row["moderator"]) == (
            "award", bp, "mod", "mod")
        assert row["fight"] is not None and why in row["reason"]
    assert "no fight in this channel" in only(club.say("olaf !attack"))
    assert club.referee.store.verify() == []


def test_mod_end_draw_gives_each_side_the_losers_award(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    start_fight(club)
    assert only(club.say("mod !mod end draw both too tired")) == (
        "#arena mod ends the fight: both too tired. The fight is a draw. BP: Olaf +0.1, "
        "Gorbag +0.1. ledger #5 <mac>")
    for name in ("Olaf", "Gorbag"):
        row = ledger(club, name)[-1]
        assert (row["entry"], row["bp"], row["moderator"]) == ("award", 0.1, "mod")


def test_R8_1_a_moderators_end_says_who_ruled_and_why_cut_to_fit_never_the_anchor(
        tmp_path: Path) -> None:
    club = make_club(tmp_path)
    start_fight(club)
    reason = "Gorbag's player had to go " + "and the table agreed to stop there " * 8
    (line,) = club.say(f"mod !mod end olaf {reason.strip()}")
    assert line.startswith("#arena mod ends the fight: Gorbag's player had to go and the ")
    assert line.endswith(   # the reason cut, the rest whole
        "... Olaf wins by a moderator's ruling. BP: Olaf +0.2, Gorbag +0.1. ledger #5 <mac>")
    assert len(line.removeprefix("#arena ").encode()) <= DEFAULT_BUDGET
    assert ledger(club, "Olaf")[-1]["reason"].endswith(f"ruling: {reason.strip()}")


def test_mod_end_draw_in_a_mortal_fight(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    start_fight(club, "mortal")
    assert "BP: Olaf +0.5, Gorbag +0.5." in only(club.say("mod !mod end draw the hall burns"))
    assert club.warrior("Olaf")["status"] == "free" and club.warrior("Gorbag")["status"] == "free"


def test_mod_end_reason_goes_into_the_ledger(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    start_fight(club)
    club.say("mod !mod end Olaf Gorbag left the table")
    for name in ("Olaf", "Gorbag"):
        assert "Gorbag left the table" in ledger(club, name)[-1]["reason"]


@pytest.mark.parametrize(("text", "refusal"), [
    ("!mod end Nobody reason", "the winner must be Olaf or Gorbag, or draw"),
    ("!mod end Olaf", "usage: !mod"),
])
def test_mod_end_refusals(tmp_path: Path, text: str, refusal: str) -> None:
    club = make_club(tmp_path)
    start_fight(club)
    assert refusal in only(club.say(f"mod {text}"))
    assert club.warrior("Olaf")["in_fight"]


def test_mod_end_needs_a_fight_in_the_channel(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    start_fight(club)
    assert "no fight in this channel" in only(club.say("#side mod !mod end Olaf reason"))
    assert "no fight here to undo" in only(club.say("#side mod !mod undo reason"))
    assert club.warrior("Olaf")["in_fight"]


def test_mod_undo_during_a_fight_takes_back_the_last_action_and_its_rolls(
    tmp_path: Path,
) -> None:
    club = make_club(tmp_path)
    start_fight(club)
    club.dice.push(20)
    assert club.say("olaf !attack")[-1].endswith(
        " Gorbag (gob), defend: !dodge 30 | !parry 25 | !luck 5")
    rows_before = len(club.referee.store.ledger())
    assert club.say("mod !mod undo misclick") == [
        "#arena Undone: Olaf's attack and its roll (misclick). Olaf (olaf) to act: !attack 25 "
        "| !press 50 | !test 40 | !close 30 | !flee | !yield"]
    assert "waiting for Olaf" in only(club.say("gob !dodge"))  # no longer Gorbag's move
    # no BP moved: the undo's one row says what it took back (R8.1)
    assert [(r["entry"], r["warrior"], r["bp"], r["moderator"], r["reason"], r["detail"])
            for r in club.referee.store.ledger()[rows_before:]] == [
        ("undo", None, 0.0, "mod", "misclick",
         "took back 2 commands (#4 olaf: Act attack; #5 bot: Roll 20); kept 3")]
    assert "misclick" in database_text(club)  # the undo and its reason are on record

    assert olaf_kills_gorbag(club).endswith(
        "Olaf wins by a kill. BP: Olaf +0.2, Gorbag +0.1. ledger #6 <mac>")
    assert club.dice.left == 0
    assert club.referee.store.verify() == []


def test_mod_undo_right_after_the_end_reopens_the_fight_with_reversal_rows(
    tmp_path: Path,
) -> None:
    club = make_club(tmp_path)
    start_fight(club)
    assert "Olaf wins by a kill" in olaf_kills_gorbag(club)
    assert club.warrior("Olaf")["bp"] == 2 and not club.warrior("Olaf")["in_fight"]

    # One decision is taken back (R8.1): Gorbag's dodge and its two rolls; Olaf's hit stands.
    assert club.say("mod !mod undo the dodge roll was misread") == [
        "#arena Undone: Gorbag's dodge and its 2 rolls (the dodge roll was misread). "
        "Gorbag (gob), defend: !dodge 30 | !parry 25 | !luck 5"]
    for name, taken in (("Olaf", -0.2), ("Gorbag", -0.1)):
        warrior = club.warrior(name)
        assert warrior["bp"] == 0 and warrior["in_fight"] and warrior["status"] == "free"
        award, reversal = ledger(club, name)[-2:]
        assert award["entry"] == "award"
        assert (reversal["entry"], reversal["bp"], reversal["actor"], reversal["moderator"],
                reversal["fight"], reversal["reason"]) == (
            "reversal", taken, "mod", "mod", award["fight"], "undo: the dodge roll was misread")

    club.dice.push(10)
    assert "Gorbag parries [10 vs 25: saved]." in club.say("gob !parry")[0]
    assert club.referee.store.verify() == []
    assert club.restart() == []
    assert club.warrior("Olaf")["in_fight"]


def test_mod_undo_after_a_prisoner_was_taken_frees_him(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    take_gorbag_prisoner(club)
    club.say("mod !mod undo the yield was a joke")
    gorbag = club.warrior("Gorbag")
    assert (gorbag["status"], gorbag["captor"], gorbag["bp"], gorbag["in_fight"]) == (
        "free", None, 0, True)
    assert {r["entry"] for r in ledger(club, "Gorbag")[-2:]} == {"reversal"}
    assert club.referee.store.verify() == []


def test_mod_undo_of_an_ended_fight_is_refused_once_a_fighter_is_busy_or_taken(
    tmp_path: Path,
) -> None:
    club = make_club(tmp_path)
    start_fight(club)
    olaf_kills_gorbag(club)
    club.say("#side olaf !challenge Gorbag mortal")
    club.say("#side gob !accept")  # Olaf has more BP: he chooses, no initiative roll
    rows = club.referee.store.ledger()
    assert only(club.say("mod !mod undo late appeal")) == (
        "#arena mod: a fighter or the channel is busy in another fight")
    assert club.referee.store.ledger() == rows
    club.say("#side olaf !second")
    club.say("#side gob !yield")
    club.say("#side olaf !accept prisoner")
    rows = club.referee.store.ledger()
    assert only(club.say("mod !mod undo late appeal")) == (
        "#arena mod: Gorbag is prisoner since this fight ended; it cannot reopen")
    assert club.referee.store.ledger() == rows
    assert club.warrior("Gorbag")["status"] == "prisoner"
    assert club.referee.store.verify() == []


def test_mod_undo_with_nothing_to_undo(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    assert "no fight here to undo" in only(club.say("mod !mod undo oops"))
    club.say("olaf !challenge Gorbag")
    club.dice.push(50, 40)
    club.say("gob !accept")
    assert "nothing to undo" in only(club.say("mod !mod undo oops"))
    assert only(club.say("mod !mod undo")).startswith("#arena mod: usage: !mod")


def test_mod_undo_right_after_the_end_survives_a_restart(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    start_fight(club)
    olaf_kills_gorbag(club)
    assert club.restart() == []
    assert club.say("mod !mod undo misread roll") == [
        "#arena Undone: Gorbag's dodge and its 2 rolls (misread roll). "
        "Gorbag (gob), defend: !dodge 30 | !parry 25 | !luck 5"]
    assert club.warrior("Olaf")["in_fight"] and club.warrior("Olaf")["bp"] == 0


def test_mod_rolls_manual_then_auto(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    assert only(club.say("mod !mod rolls manual")) == "#arena mod: rolls in #arena are now manual"
    assert setting_row(club, "rolls:default:#arena") == ('{"value": "manual"}', "mod")
    club.say("olaf !challenge Gorbag")
    assert club.say("gob !accept")[-1].endswith(
        " Olaf (olaf), roll for initiative: !rol d100 (WeeChat, irssi: //rol d100)")
    club.dice.push(50)
    assert club.say("olaf /rol d100")[0].startswith("#arena Olaf rolls 50 for initiative.")
    club.dice.push(40)
    assert club.say("gob !rol d100")[-1].endswith(" Olaf (olaf) chooses: !first | !second")

    assert only(club.say("mod !mod rolls auto")) == "#arena mod: rolls in #arena are now auto"
    assert setting_row(club, "rolls:default:#arena") == ('{"value": "auto"}', "mod")
    club.say("olaf !first")
    club.dice.push(20)
    assert "[20 vs 25: hit]" in club.say("olaf !attack")[0]
    assert club.dice.left == 0


def test_mod_rolls_is_per_channel_and_needs_a_channel(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    club.say("#side mod !mod rolls manual")
    assert club.referee.settings.rolls_mode("#side") == "manual"
    assert club.referee.settings.rolls_mode("#arena") == "auto"
    assert club.pm("mod !mod rolls manual") == ["mod !mod works in a channel, not in private"]


@pytest.mark.parametrize("text", [
    "!mod bp Gorbag +3.0 prize",
    "!mod skill Gorbag club 60 training",
    "!mod free Gorbag ransom paid",
    "!mod end Olaf he left",
    "!mod end draw tired",
    "!mod undo misclick",
    "!mod fairy open",
    "!mod fairy close",
    "!mod rolls manual",
    "!mod rolls auto",
    "!mod",
    "!mod nonsense",
])
@pytest.mark.parametrize(("nick", "account", "mask"), [
    pytest.param("ann", None, None, id="player"),
    pytest.param("mod", "someone", None, id="nick-mod-other-account"),
    pytest.param("mod", "", "mod!m@elsewhere.example", id="nick-mod-no-account"),
    pytest.param("boss", "", "boss!b@evil.example", id="other-host"),
    pytest.param("boss", "", "boss!B@club.example", id="mask-user-not-exact"),
])
def test_R8_2_non_moderators_are_refused_every_mod_command(
    tmp_path: Path, text: str, nick: str, account: str | None, mask: str | None
) -> None:
    club = make_club(tmp_path, moderators=("mod", "boss!b@club.example"), fairy=True,
                     verified_idents=True)
    start_fight(club)
    before = (club.referee.store.ledger(), club.referee.settings.fairy_open(),
              club.referee.settings.rolls_mode("#arena"), club.warrior("Olaf"))
    assert club.say(f"{nick} {text}", account=account, mask=mask) == [
        f"#arena {nick}: only moderators use !mod (by services account or host mask; "
        "without services: /msg <bot> !mod login <password>)"]
    after = (club.referee.store.ledger(), club.referee.settings.fairy_open(),
             club.referee.settings.rolls_mode("#arena"), club.warrior("Olaf"))
    assert after == before


@pytest.mark.parametrize(("nick", "account", "mask", "who"), [
    pytest.param("mod", None, None, "mod", id="account-is-the-nick"),
    pytest.param("zed", "mod", None, "mod", id="account-other-nick"),
    pytest.param("boss", "", "boss!b@club.example", "b@club.example", id="exact-mask"),
    pytest.param("boss", "bossacct", "boss!b@club.example", "bossacct",
                 id="exact-mask-any-account"),
])
def test_R8_2_moderators_are_recognised_by_account_or_exact_mask(
    tmp_path: Path, nick: str, account: str | None, mask: str | None, who: str
) -> None:
    club = make_club(tmp_path, moderators=("mod", "boss!b@club.example"),
                     verified_idents=True)
    assert club.say(f"{nick} !mod bp Gorbag +1.0 prize", account=account, mask=mask) == [
        f"#arena {nick}: Gorbag: +1.0 BP recorded"]
    row = ledger(club, "Gorbag")[-1]
    assert (row["actor"], row["moderator"]) == (who, who)
    assert only(club.say(f"{nick} !mod fairy open", account=account, mask=mask)).endswith(
        "Fairy Folk creation is open")


@pytest.mark.parametrize(("text", "reason"), [
    ("!mod bp Gorbag +1.0 REASON", "bp"),
    ("!mod skill Gorbag club 40 REASON", "skill"),
    ("!mod end Olaf REASON", "end"),
    ("!mod end draw REASON", "draw"),
    ("!mod undo REASON", "undo"),
    ("!mod fairy open REASON", "fairy"),
])
def test_R8_1_every_moderator_ruling_keeps_its_reason(
    tmp_path: Path, text: str, reason: str
) -> None:
    club = make_club(tmp_path)
    start_fight(club)
    marker = f"ruling-{reason}-because-of-this"
    reply = club.say(f"mod {text.replace('REASON', marker)}")
    assert reply and all(MOD_REFUSED not in line and "usage" not in line for line in reply)
    assert marker in database_text(club)


# -- private messages ---------------------------------------------------------------------


def test_private_messages_are_answered_to_the_nick(tmp_path: Path) -> None:
    club = make_club(tmp_path)
    helped = only(club.pm("ann !help"))
    assert helped.startswith("ann fight: ") and "warriors: audit " in helped
    assert only(club.pm("ann !help buy")).startswith("ann !buy <warrior> <skill>: ")
    assert only(club.pm("ann !sheet Gorbag")) == (
        "ann Gorbag (goblin, leather, gob): club 30, move 30, spear 30; "
        "BP 0.0 (0 to spend); test 40; free")
    assert only(club.pm("ann !audit Gorbag")) == "ann row 1 created by gob: warrior created"
    assert only(club.pm("ann !sheet Nobody")) == "ann no warrior named Nobody"
    assert only(club.pm("gob !warriors")) == "gob gob: Gorbag (goblin, free, BP 0.0)"
    assert only(club.pm("ann !challenge Gorbag")) == (
        "ann !challenge works in a channel, not in private")
    assert only(club.pm("ann !nonsense")) == "ann I don't know !nonsense; !help lists the commands"


# -- nothing typed crashes the bot --------------------------------------------------------


class RandomDice:
    """Dice that never run out (scripted dice would stop a random transcript)."""

    def __init__(self, source: random.Random) -> None:
        self.source = source

    def roll(self, sides: int) -> int:
        return self.source.randint(1, sides)


WORDS = [
    "Gorbag", "gorbag", "Olaf", "Nobody", "as", "club", "spear", "axe", "shield", "move",
    "broadsword", "countersword", "goblin", "free-clans", "invaders", "fairy", "none",
    "leather", "mail", "practice", "duel", "mortal", "prisoner", "release", "ransom",
    "attack", "defence", "reduce", "two-handed", "d100", "d%", "1d8!", "4d6kh3", "3d0",
    "+3.0", "-0.2", "0", "30", "99", "1e3", "open", "close", "auto", "manual", "draw",
    "undo", "end", "bp", "skill", "free", "rolls", "!", "/rol", "#arena",
]
word = st.one_of(st.sampled_from(WORDS), st.text(min_size=1, max_size=10))
command_line = st.builds(
    lambda name, args: " ".join(["!" + name, *args]),
    st.sampled_from(sorted(REGISTRY)), st.lists(word, max_size=6),
)
chat_line = st.one_of(command_line, st.text(max_size=80), st.text(max_size=40).map("!".__add__))
SETUPS = ["empty", "challenge", "fight", "manual fight", "mortal fight", "ended"]


def fuzz_club(tmp_path: Path, setup: str, dice: random.Random) -> Club:
    club = make_club(tmp_path, moderators=("mod",))
    if setup == "manual fight":
        club.say("mod !mod rolls manual")
    if setup != "empty":
        club.say("olaf !challenge Gorbag" + (" mortal" if setup == "mortal fight" else ""))
    if setup == "manual fight":
        club.say("gob !accept")  # the fight now waits for Olaf's /rol d100
    if setup in ("fight", "mortal fight", "ended"):
        club.dice.push(50, 40)
        club.say("gob !accept")
        club.say("olaf !first")
    if setup == "ended":
        olaf_kills_gorbag(club)
    club.referee.services = replace(club.referee.services, dice=RandomDice(dice))
    return club


def assert_sane(replies: list[str]) -> None:
    for reply in replies:
        assert GENERIC not in reply, reply
        assert "Traceback" not in reply and "\r" not in reply and "\n" not in reply, reply


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.sampled_from(SETUPS), dice=st.randoms(use_true_random=False),
       lines=st.lists(st.tuples(st.sampled_from(["gob", "olaf", "ann"]), chat_line,
                                st.booleans()), max_size=20))
def test_nothing_a_player_types_crashes_the_bot(
    tmp_path_factory: pytest.TempPathFactory, setup: str, dice: random.Random,
    lines: list[tuple[str, str, bool]],
) -> None:
    club = fuzz_club(tmp_path_factory.mktemp("fuzz"), setup, dice)
    for nick, text, private in lines:
        assert_sane(club.pm(f"{nick} {text}") if private else club.say(f"{nick} {text}"))
    assert club.referee.store.verify() == []


mod_line = st.builds(
    lambda sub, args: " ".join(["!mod", sub, *args]),
    st.sampled_from(["bp", "skill", "free", "end", "undo", "fairy", "rolls"]),
    st.lists(word, max_size=5),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(setup="empty", dice=random.Random(0), lines=[
    "!mod bp Gorbag sNaN x", "!mod bp Gorbag 1e999999 x", "!mod skill Gorbag club \u00b2 x",
    "!mod skill Gorbag club \u2460 x"])
@given(setup=st.sampled_from(SETUPS), dice=st.randoms(use_true_random=False),
       lines=st.lists(mod_line, max_size=12))
def test_nothing_a_moderator_types_crashes_the_bot(
    tmp_path_factory: pytest.TempPathFactory, setup: str, dice: random.Random,
    lines: list[str],
) -> None:
    club = fuzz_club(tmp_path_factory.mktemp("fuzz"), setup, dice)
    for text in lines:
        assert_sane(club.say(f"mod {text}"))
    assert club.referee.store.verify() == []
