"""A turn in one line, for people on a real network: every answer is one line naming the
player to act by warrior and nick, nothing shows a ``user@host``, BP are said as the
ledger added them (R2.6), and a moderator's undo takes back one decision (R8.1).

Players here have no services account (as on ngircd): each is known by ``user@host``,
which the bot must never show, while it names them by the nick they use.
"""

from __future__ import annotations

from pathlib import Path

from club import Club

ROLL_HOW = "!rol d100 (WeeChat, irssi: //rol d100)"


def hosted(club: Club, line: str) -> list[str]:
    """``line`` from a player with no account: identity ``~nick@10.0.0.N`` (the
    moderator's ident is verified: ``mod@10.0.0.9``)."""
    channel = ""
    if line.startswith("#"):
        channel, line = line.split(" ", 1)
        channel += " "
    nick = line.split(" ", 1)[0]
    user = nick.lower().rstrip("_")  # gob_ is gob under another nick
    host = {"olaf": 1, "gob": 2, "ann": 3, "mod": 9}[user]
    ident = user if user == "mod" else f"~{user}"  # the moderator's host runs identd
    return club.say(channel + line, account="", mask=f"{nick}!{ident}@10.0.0.{host}")


def duel_club(tmp_path: Path, **options: object) -> Club:
    club = Club(tmp_path, moderators=("mod!mod@10.0.0.9",), verified_idents=True,
                **options)  # type: ignore[arg-type]
    hosted(club, "gob !create Gorbag goblin club spear")
    hosted(club, "olaf !create Olaf free-clans broadsword shield")
    return club


def test_nothing_in_the_channel_shows_a_user_at_host(tmp_path: Path) -> None:
    club = duel_club(tmp_path)
    assert hosted(club, "olaf !challenge Gorbag") == [
        "#arena Gorbag, Olaf challenges you to a practice fight: gob may !accept or !decline."]
    club.dice.push(50, 40)
    assert hosted(club, "gob !accept")[-1].endswith("Olaf (olaf) chooses: !first | !second")
    hosted(club, "olaf !first")
    club.dice.push(20, 80, 5)  # hit, the dodge fails, a kill on leather
    hosted(club, "olaf !attack")
    hosted(club, "gob !dodge")
    hosted(club, "ann !sheet Olaf")
    hosted(club, "ann !audit Gorbag")
    hosted(club, "olaf !warriors")
    assert club.sent and not [line for line in club.sent if "@" in line]
    assert club.dice.left == 0


def test_a_player_unseen_since_a_restart_is_not_named_by_host(tmp_path: Path) -> None:
    club = duel_club(tmp_path)
    club.restart()  # the new referee has seen nobody's nick yet
    assert hosted(club, "olaf !challenge Gorbag") == [
        "#arena Gorbag, Olaf challenges you to a practice fight: Gorbag's player may !accept "
        "or !decline."]
    assert hosted(club, "ann !sheet Gorbag")[0].startswith(
        "#arena ann: Gorbag (goblin, leather, unregistered)")


def test_warriors_of_a_nick_are_found_by_the_identity_behind_it(tmp_path: Path) -> None:
    club = duel_club(tmp_path)
    assert hosted(club, "ann !warriors gob") == ["#arena ann: gob: Gorbag (goblin, free, BP 0.0)"]
    # the same person under a new nick keeps the warriors; the old nick names nobody now
    hosted(club, "gob_ !warriors")
    assert hosted(club, "ann !warriors gob_") == [
        "#arena ann: gob_: Gorbag (goblin, free, BP 0.0)"]


def test_R2_6_the_bp_said_are_the_bp_added(tmp_path: Path) -> None:
    club = duel_club(tmp_path)
    hosted(club, "mod !mod bp Olaf +39.5 long service")
    hosted(club, "olaf !challenge Gorbag mortal")
    hosted(club, "gob !accept")  # Olaf has more BP: he chooses, no initiative
    hosted(club, "olaf !first")
    club.dice.push(20, 80, 5)  # hit, the dodge fails, a kill
    hosted(club, "olaf !attack")
    (line,) = hosted(club, "gob !dodge")
    # 39.5 + 0.5 reaches the 40.0 cap: nothing of the 1.0 for the foe slain is added
    assert line.endswith("Olaf wins by a kill. Gorbag is dead. BP: Olaf +0.5 (mortal fight "
                         "0.5, foe slain 0.0 of 1.0: at the 40.0 cap), Gorbag +0.5. "
                         "ledger #8 <mac>")
    assert club.warrior("Olaf")["bp"] == 400
    assert [r["bp"] for r in club.referee.store.ledger("Olaf")][-2:] == [0.5, 0.0]
    assert club.referee.store.verify() == []


def test_a_test_bonus_declaration_and_its_undo_are_one_line_each(tmp_path: Path) -> None:
    club = duel_club(tmp_path)
    hosted(club, "olaf !challenge Gorbag")
    club.dice.push(50, 40)
    hosted(club, "gob !accept")
    hosted(club, "olaf !first")
    club.dice.push(10)  # Test 10 vs 40 succeeds: Gorbag defends as if hit (R4.4)
    assert hosted(club, "olaf !test") == [
        "#arena Olaf tests [10 vs 40: success]. Gorbag (gob), defend: !dodge 30 | !parry 25 | "
        "!luck 5"]
    club.dice.push(90)  # the parry fails: a bonus of 30
    assert hosted(club, "gob !parry") == [
        "#arena Gorbag parries [90 vs 25: fails]. Olaf earns a +30 bonus (!bonus "
        "attack|defence|reduce). Gorbag (gob) to act: !attack 35 | !press 60 | !test 40 | "
        "!close 30 | !flee | !yield"]
    assert hosted(club, "olaf !bonus defence") == [
        "#arena Olaf puts the bonus on defence. Gorbag (gob) to act: !attack 35 | !press 60 | "
        "!test 40 | !close 30 | !flee | !yield"]
    # R4.5: declared at most once
    assert hosted(club, "olaf !bonus attack") == [
        "#arena olaf: Olaf's bonus is already declared for defence"]
    # a moderator takes back the declaration alone: the bonus is Olaf's to place again
    assert hosted(club, "mod !mod undo he meant attack") == [
        "#arena Undone: Olaf's bonus on defence (he meant attack). Gorbag (gob) to act: "
        "!attack 35 | !press 60 | !test 40 | !close 30 | !flee | !yield"]
    assert hosted(club, "olaf !bonus attack")[0].startswith(
        "#arena Olaf puts the bonus on attack.")
    assert club.dice.left == 0


def test_an_undone_dodge_keeps_the_hit_and_asks_the_defender_again(tmp_path: Path) -> None:
    club = duel_club(tmp_path, rolls="manual")
    hosted(club, "olaf !challenge Gorbag")
    hosted(club, "gob !accept")
    club.dice.push(50)
    hosted(club, "olaf !rol d100")
    club.dice.push(40)
    hosted(club, "gob !rol d100")
    hosted(club, "olaf !first")
    hosted(club, "olaf !attack")
    club.dice.push(20)
    hosted(club, "olaf !rol d100")  # a hit
    hosted(club, "gob !dodge")
    club.dice.push(80)
    hosted(club, "gob !rol d100")  # the dodge fails; Olaf's damage roll is due
    assert hosted(club, "mod !mod undo gob misclicked") == [
        "#arena Undone: Gorbag's dodge and its roll (gob misclicked). Gorbag (gob), defend: "
        "!dodge 30 | !parry 25 | !luck 5"]
    assert hosted(club, "gob !parry") == [
        f"#arena Gorbag parries. Gorbag (gob), roll for defence (25): {ROLL_HOW}"]
    assert club.dice.left == 0


def test_switching_to_automatic_rolls_makes_the_roll_that_is_due_in_one_line(
        tmp_path: Path) -> None:
    club = duel_club(tmp_path, rolls="manual")
    hosted(club, "olaf !challenge Gorbag")
    hosted(club, "gob !accept")
    club.dice.push(50)
    hosted(club, "olaf !rol d100")
    club.dice.push(40)
    assert hosted(club, "mod !mod rolls auto table talk") == [
        "#arena Rolls in #arena are now auto. Gorbag rolls 40 for initiative. Olaf (olaf) "
        "chooses: !first | !second"]
    assert hosted(club, "mod !mod rolls auto") == ["#arena mod: rolls in #arena are now auto"]
    assert club.dice.left == 0


def test_a_fight_start_with_the_longest_names_is_one_line_that_keeps_its_options(
        tmp_path: Path) -> None:
    """Warriors' names of 24 characters, players' nicks of 30: the names are cut, the
    chooser's options stay whole, on the one line."""
    club = Club(tmp_path)
    olaf, gorbag = "Olafthewanderingbardofth", "Gorbagsonofgrishnakhtheb"
    olafs, gobs = "o" * 30, "g" * 30
    club.say(f"{gobs} !create {gorbag} goblin club spear")
    club.say(f"{olafs} !create {olaf} free-clans broadsword shield")
    club.say(f"{olafs} !challenge {gorbag} mortal")
    club.dice.push(50, 40)
    (line,) = club.say(f"{gobs} !accept")
    assert line.startswith("#arena Mortal fight: Olafthewan") and "..." in line
    assert line.endswith(f". {olaf} ({olafs}) chooses: !first | !second")


def test_a_long_roll_is_one_line(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.dice.push(*[5] * 100)
    (line,) = club.say("ann !roll 100d1000")
    assert line.startswith("#arena ann rolls 100d1000 = 500: [5, 5, ")
    assert line.endswith(" more]")


def test_mod_armour_gives_a_goblin_captured_armour_between_fights(tmp_path: Path) -> None:
    club = duel_club(tmp_path)
    assert hosted(club, "mod !mod armour Gorbag mail taken at the ford") == [
        "#arena mod: Gorbag now wears mail (was leather)"]
    row = club.referee.store.ledger("Gorbag")[-1]
    assert (row["entry"], row["moderator"], row["reason"]) == (
        "moderator-armour", "mod@10.0.0.9", "taken at the ford")
    assert hosted(club, "ann !sheet Gorbag")[0].startswith("#arena ann: Gorbag (goblin, mail,")
    assert "free-clans armour must be one of" in hosted(club, "mod !mod armour Olaf officer x")[0]
    assert "no armour tin" in hosted(club, "mod !mod armour Olaf tin x")[0]
    hosted(club, "olaf !challenge Gorbag")
    club.dice.push(50, 40)
    # R2.1, R3.5: mail is -15 on Dodge, so Gorbag dodges at 15 now
    assert "Gorbag: spear (dodge 15, parry 25)." in hosted(club, "gob !accept")[0]
    assert hosted(club, "mod !mod armour Gorbag leather returned") == [
        "#arena mod: Gorbag is in a fight; change armour after it"]
    assert club.referee.store.verify() == []
