"""Whole fights through the referee, as chat transcripts: every fight kind from the
challenge to the BP awards, yields and prisoners, flight, death, manual rolls, time
limits, two channels at once, a restart mid-fight, loadouts, and refusals.

Each scripted roll has a comment saying why it hits, misses or lands where it does;
the chances are worked out by hand from ``docs/rulings.md``.

The cast (every skill 30, BP 0 unless a test says otherwise):

- Olaf (olaf): Free Clans, broadsword (length 2, damage rating 4) and shield,
  Highlander armour: Dodge 30, Block 30, Parry 10 + 30/2 = 25 (R3.5).
  Against Gorbag's spear at standard range he attacks at 30 - 5 = 25 (R4.9), presses at
  50 (R4.3); Test 40 (R2.7); Close 30 (his Dodge, R4.7).
- Gorbag (gob): Goblin with club and spear. Club and spear tie at 30, so the default is
  the spear, the higher damage rating (3; R3.4); no Shield skill, so no shield and no
  Block. Leather armour: Dodge 30, Parry 25. He attacks at 30 + 5 = 35, presses at 60.
- Bran (bran): Free Clans, axe (length 2, DR 5, slow) and shield, Highlander: Dodge 30,
  Block 30, Parry 25.
- Ulf (ulf): Free Clans, broadsword and greatsword; the tie goes to the greatsword
  (length 3, DR 7, slow), no shield: Dodge 30, Parry 25. Ulf attacks Bran at 35, Bran
  attacks Ulf at 25. Both weapons are slow, so a wild miss gives no free attack (R4.10).

Damage columns (R6.1): Leather kill 1-11, head 12-16, torso 17-22, weapon arm 23-31,
off arm 32-40, right leg 41-52, left leg 53-64, no effect 65-100. Highlander kill 1-7,
head 8, torso 9-14, weapon arm 15-23, off arm 24-32, right leg 33-52, left leg 53-72,
no effect 73-100. A hit disables when the attack roll's last digit is at or below the
weapon's damage rating, else it wounds (R1.2, R6.2).

In automatic mode the bot rolls each d100 as soon as it is due, so a test pushes the
dice before the command that makes them due; ``club.dice.left == 0`` at the end proves
that no scripted roll was left over. Every accepted command is answered in exactly one
line (what happened, then who acts next by warrior and nick, with their options), so
each ``club.say(...) == [...]`` also counts the lines the command costs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from club import Club

from bot import resuming
from rules.ancath.events import PrisonerTaken

OLAF_TURN = "Olaf (olaf) to act: !attack 25 | !press 50 | !test 40 | !close 30 | !flee | !yield"
GORBAG_TURN = "Gorbag (gob) to act: !attack 35 | !press 60 | !test 40 | !close 30 | !flee | !yield"
OLAF_DEFENDS = "Olaf (olaf), defend: !dodge 30 | !block 30 | !parry 25 | !luck 5"
GORBAG_DEFENDS = "Gorbag (gob), defend: !dodge 30 | !parry 25 | !luck 5"
ROLL_HOW = "!rol d100 (WeeChat, irssi: //rol d100)"
LOADOUTS = ("Olaf: broadsword and shield (dodge 30, block 30, parry 25). "
            "Gorbag: spear (dodge 30, parry 25).")


def start(club: Club, kind: str = "practice") -> None:
    """Olaf challenges Gorbag in #arena; Olaf wins the initiative and must choose."""
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    fight = "a duel" if kind == "duel" else f"a {kind} fight"   # no "duel fight"
    assert club.say(f"olaf !challenge Gorbag {kind}") == [
        f"#arena Gorbag, Olaf challenges you to {fight}: gob may !accept or !decline."]
    club.dice.push(50, 40)  # initiative on equal BP (R3.6): Olaf 50 beats Gorbag 40
    assert club.say("gob !accept") == [
        f"#arena {fight[2:].capitalize()}: Olaf (olaf) vs Gorbag (gob). {LOADOUTS} "
        "Olaf rolls 50 for initiative. Gorbag rolls 40 for initiative. "
        "Olaf (olaf) chooses: !first | !second"]


def ledger_rows(club: Club, name: str) -> list[tuple[Any, ...]]:
    """A warrior's ledger rows, oldest first, as (entry, bp, status, reason)."""
    return [(r["entry"], r["bp"], r["status"], r["reason"])
            for r in club.referee.store.ledger(name)]


def snapshot(club: Club, channel: str) -> tuple[Any, ...]:
    """Everything a refused command must leave alone: the whole ledger, the fight as
    storage rebuilds it (sequence number and state), the dice and the clock."""
    table = club.referee.tables.table(channel)
    assert table.fight is not None
    stored = club.referee.store.fight(table.fight.id)
    return (club.referee.store.ledger(), stored.seq, stored.state, table.fight.seq,
            club.dice.left, table.timer)


def refused(club: Club, line: str, reply: str) -> None:
    """``line`` gets one reply addressed to its sender, and nothing changes."""
    channel = line.split(" ", 1)[0] if line.startswith("#") else "#arena"
    nick = line.removeprefix(channel).split()[0]
    before = snapshot(club, channel)
    assert club.say(line) == [f"{channel} {nick}: {reply}"]
    assert snapshot(club, channel) == before


def one(club: Club, line: str, *parts: str) -> None:
    """``line`` is answered with exactly one line in #arena: ``parts`` joined."""
    assert club.say(line) == ["#arena " + " ".join(parts)]


def finished(club: Club) -> None:
    """The books balance and every scripted roll was used."""
    assert club.referee.store.verify() == []
    assert club.dice.left == 0


# -- the three kinds of fight, challenge to BP -------------------------------------------


def test_practice_bout_from_challenge_to_awards(tmp_path: Path) -> None:
    club = Club(tmp_path)
    start(club)
    one(club, "olaf !first", "Olaf acts first.", OLAF_TURN)
    club.dice.push(70)  # Olaf's attack 70 vs 25: miss
    one(club, "olaf !attack", "Olaf attacks [70 vs 25: miss].", GORBAG_TURN)
    club.dice.push(15)  # Gorbag's attack 15 vs 35: hit
    one(club, "gob !attack", "Gorbag attacks [15 vs 35: hit].", OLAF_DEFENDS)
    # Block 40 vs 30 fails; damage 30 on Highlander is the off arm, and the attack roll's
    # last digit 5 is above the spear's rating 3: a wound. A practice fight goes on.
    club.dice.push(40, 30)
    one(club, "olaf !block",
        "Olaf blocks [40 vs 30: fails]. Gorbag's damage 30: Olaf's off arm wounded.", OLAF_TURN)
    club.dice.push(13)  # Olaf's attack 13 vs 25: hit
    one(club, "olaf !attack", "Olaf attacks [13 vs 25: hit].", GORBAG_DEFENDS)
    club.dice.push(90, 5)  # Parry 90 vs 25 fails; damage 5 on Leather (1-11): kill
    one(club, "gob !parry", "Gorbag parries [90 vs 25: fails]. Olaf's damage 5: kill. "
        "Olaf wins by a kill. BP: Olaf +0.2, Gorbag +0.1. ledger #5 <mac>")
    # R7.2: practice pays 0.2 to the winner and 0.1 to the loser; a practice kill is
    # not death.
    olaf, gorbag = club.warrior("Olaf"), club.warrior("Gorbag")
    assert (olaf["bp"], olaf["spent"], olaf["status"], olaf["in_fight"]) == (2, 0, "free", False)
    assert (gorbag["bp"], gorbag["status"], gorbag["in_fight"]) == (1, "free", False)
    assert ledger_rows(club, "Olaf")[1:] == [("award", 0.2, None, "practice fight: win")]
    assert ledger_rows(club, "Gorbag")[1:] == [("award", 0.1, None, "practice fight: loss")]
    assert club.say("olaf !attack") == [
        "#arena olaf: there is no fight in this channel; start one with !challenge"]
    finished(club)


def test_duel_ends_at_the_first_hit_that_is_not_no_effect(tmp_path: Path) -> None:
    club = Club(tmp_path)
    start(club, "duel")
    club.say("olaf !first")
    club.dice.push(21)  # 21 vs 25: hit
    one(club, "olaf !attack", "Olaf attacks [21 vs 25: hit].", GORBAG_DEFENDS)
    # Dodge 60 vs 30 fails; damage 80 on Leather is No Effect: no blood, the duel goes on
    # (R3.2).
    club.dice.push(60, 80)
    one(club, "gob !dodge", "Gorbag dodges [60 vs 30: fails]. Olaf's damage 80: no effect.",
        GORBAG_TURN)
    club.dice.push(35)  # 35 vs 35: hit (R1.1, at or below the chance)
    one(club, "gob !attack", "Gorbag attacks [35 vs 35: hit].", OLAF_DEFENDS)
    club.dice.push(31, 95)  # Parry 31 vs 25 fails; damage 95 on Highlander: No Effect
    one(club, "olaf !parry", "Olaf parries [31 vs 25: fails]. Gorbag's damage 95: no effect.",
        OLAF_TURN)
    club.dice.push(17)  # 17 vs 25: hit
    club.say("olaf !attack")
    # Dodge 99 fails; damage 45 on Leather is the right leg; last digit 7 > 4: a wound.
    # A mere wound is first blood.
    club.dice.push(99, 45)
    one(club, "gob !dodge", "Gorbag dodges [99 vs 30: fails]. Olaf's damage 45: Gorbag's "
        "right leg wounded. Olaf wins at first blood. BP: Olaf +0.2, Gorbag +0.1. ledger #5 <mac>")
    assert (club.warrior("Olaf")["bp"], club.warrior("Gorbag")["bp"]) == (2, 1)
    assert club.warrior("Gorbag")["status"] == "free"
    assert ledger_rows(club, "Olaf")[1:] == [("award", 0.2, None, "duel fight: win")]
    assert ledger_rows(club, "Gorbag")[1:] == [("award", 0.1, None, "duel fight: loss")]
    finished(club)


def test_mortal_kill_is_death_and_pays_the_deed(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("olaf !challenge Gorbag mortal")
    club.dice.push(40, 50)  # initiative: Olaf 40, Gorbag 50: Gorbag chooses
    assert club.say("gob !accept")[-1].endswith(" Gorbag (gob) chooses: !first | !second")
    one(club, "gob !second", "Olaf acts first.", OLAF_TURN)
    club.dice.push(20)  # 20 vs 25: hit; last digit 0 is at or below every rating (R1.2)
    club.say("olaf !attack")
    # Dodge 80 fails; damage 14 on Leather is the head, and the hit disables: a kill
    # (R6.4 step 4).
    club.dice.push(80, 14)
    one(club, "gob !dodge", "Gorbag dodges [80 vs 30: fails]. Olaf's damage 14: Gorbag's "
        "head disabled. That is a kill! Olaf wins by a kill. Gorbag is dead. "
        "BP: Olaf +1.5 (mortal fight 0.5, foe slain 1.0), Gorbag +0.5. ledger #7 <mac>")
    # R7.2: 0.5 to each side, 1.0 more to the winner for the foe slain; death is real.
    assert (club.warrior("Olaf")["bp"], club.warrior("Gorbag")["bp"]) == (15, 5)
    assert club.warrior("Gorbag")["status"] == "dead"
    assert ledger_rows(club, "Olaf")[1:] == [
        ("award", 0.5, None, "mortal fight: mortal"),
        ("award", 1.0, None, "mortal fight: foe-slain")]
    assert ledger_rows(club, "Gorbag")[1:] == [
        ("award", 0.5, None, "mortal fight: mortal"),
        ("death", 0.0, "dead", "slain in a mortal fight")]
    # The dead fight no more (R3.3), as target or as challenger.
    assert club.say("olaf !challenge Gorbag") == ["#arena olaf: Gorbag is dead and cannot fight"]
    assert club.say("gob !challenge Olaf as Gorbag") == [
        "#arena gob: Gorbag is dead and cannot fight"]
    assert club.say("olaf !status") == [
        "#arena olaf: there is no fight in this channel; start one with !challenge"]
    finished(club)


# -- yields -----------------------------------------------------------------------------


def test_mortal_yield_prisoner_with_ransom_then_freed(tmp_path: Path) -> None:
    club = Club(tmp_path)
    start(club, "mortal")
    club.say("olaf !first")
    club.dice.push(20)  # 20 vs 25: hit
    club.say("olaf !attack")
    club.dice.push(80, 70)  # Parry 80 vs 25 fails; damage 70 on Leather: No Effect
    one(club, "gob !parry", "Gorbag parries [80 vs 25: fails]. Olaf's damage 70: no effect.",
        GORBAG_TURN)
    one(club, "gob !yield", "Gorbag yields. Olaf (olaf), answer the yield: !accept prisoner "
        "| !accept release | !reject (a ransom: !accept prisoner ransom <terms>)")
    one(club, "olaf !accept prisoner ransom 10 silver", "Olaf accepts the yield. Olaf wins by "
        "yield. Gorbag is Olaf's prisoner (ransom: 10 silver). "
        "BP: Olaf +1.5 (mortal fight 0.5, prisoner 1.0), Gorbag +0.5. ledger #7 <mac>")
    fight_id = club.referee.tables.table("#arena").last_fight_id
    assert fight_id is not None
    assert club.referee.store.fight_events(fight_id)[-1] == PrisonerTaken(1, 0, "10 silver")
    gorbag = club.warrior("Gorbag")
    assert (gorbag["status"], gorbag["captor"], gorbag["bp"]) == ("prisoner", "Olaf", 5)
    assert club.warrior("Olaf")["bp"] == 15  # 0.5 + 1.0 for the foe taken prisoner (R7.2)
    assert ledger_rows(club, "Gorbag")[1:] == [
        ("award", 0.5, None, "mortal fight: mortal"),
        ("prisoner-taken", 0.0, "prisoner", "taken prisoner by Olaf")]
    assert ledger_rows(club, "Olaf")[-1] == ("award", 1.0, None, "mortal fight: prisoner-taken")

    # A prisoner cannot fight until the captor frees them (R4.6, R3.3).
    assert club.say("olaf !challenge Gorbag") == [
        "#arena olaf: Gorbag is a prisoner and cannot fight"]
    assert club.say("gob !challenge Olaf as Gorbag") == [
        "#arena gob: Gorbag is a prisoner and cannot fight"]
    assert club.say("gob !free Gorbag") == [
        "#arena gob: Gorbag is held by Olaf: its captor's player frees it (!free Gorbag), or a "
        "moderator (!mod free Gorbag <reason>)"]
    assert club.say("olaf !free gorbag") == ["#arena Gorbag is free."]
    assert club.warrior("Gorbag")["status"] == "free"
    assert club.warrior("Gorbag")["captor"] is None
    assert ledger_rows(club, "Gorbag")[-1] == (
        "prisoner-freed", 0.0, "free", "released by the captor")
    assert club.say("olaf !free Gorbag") == ["#arena olaf: Gorbag is not a prisoner"]

    # Free again: Gorbag can be challenged and fight. Olaf has more BP (1.5 to 0.5), so
    # he chooses the order without initiative rolls (R3.6).
    assert club.say("olaf !challenge Gorbag") == [
        "#arena Gorbag, Olaf challenges you to a practice fight: gob may !accept or !decline."]
    one(club, "gob !accept", f"Practice fight: Olaf (olaf) vs Gorbag (gob). {LOADOUTS} "
        "Olaf (olaf) chooses: !first | !second")
    assert club.warrior("Gorbag")["in_fight"]
    finished(club)


def test_practice_yield_rejected_loses_the_turn_then_accepted(tmp_path: Path) -> None:
    club = Club(tmp_path)
    start(club)
    club.say("olaf !first")
    one(club, "olaf !yield", "Olaf yields. Gorbag (gob), answer the yield: !accept | !reject")
    # Rejected: Olaf's turn is lost and Gorbag acts (R4.6).
    one(club, "gob !reject", "Gorbag rejects the yield.", GORBAG_TURN)
    club.dice.push(50)  # 50 vs 35: miss
    one(club, "gob !attack", "Gorbag attacks [50 vs 35: miss].", OLAF_TURN)
    club.say("olaf !yield")
    refused(club, "gob !accept prisoner", "prisoners are taken only in mortal fights")
    one(club, "gob !accept",
        "Gorbag accepts the yield. Gorbag wins by yield. BP: Gorbag +0.2, Olaf +0.1.",
        "ledger #5 <mac>")
    assert (club.warrior("Olaf")["bp"], club.warrior("Gorbag")["bp"]) == (1, 2)
    assert club.warrior("Olaf")["status"] == "free"
    assert not club.warrior("Olaf")["in_fight"]
    finished(club)


# -- flight -----------------------------------------------------------------------------


def test_flight_escapes_after_a_failed_stop_and_a_last_turn(tmp_path: Path) -> None:
    club = Club(tmp_path)
    start(club)
    club.say("olaf !first")
    one(club, "olaf !flee", "Olaf flees. Gorbag (gob), stop the flight or strike a last "
        "time: !stop 30 | !attack 35 | !press 60")
    club.dice.push(90)  # stop: Gorbag's Dodge 90 vs 30 fails; he still gets a last turn
    one(club, "gob !stop", "Gorbag's stop roll [90 vs 30: fails]. Gorbag takes a last turn "
        "at the fleeing foe. Gorbag (gob), last turn: !attack 35 | !press 60")
    # Attack 31 vs 35 hits; the fleeing Olaf has only Luck, chosen for him (R4.8):
    # 50 vs 5 fails; damage 80 on Highlander is No Effect, so Olaf gets away.
    club.dice.push(31, 50, 80)
    one(club, "gob !attack", "Gorbag attacks [31 vs 35: hit]. Olaf trusts luck [50 vs 5: "
        "fails]. Gorbag's damage 80: no effect. Gorbag wins (the foe escaped). "
        "BP: Gorbag +0.2, Olaf +0.1. ledger #5 <mac>")
    # The side that escapes is the loser (R7.2): Olaf gets only the loser's 0.1.
    assert (club.warrior("Olaf")["bp"], club.warrior("Gorbag")["bp"]) == (1, 2)
    assert ledger_rows(club, "Olaf")[1:] == [("award", 0.1, None, "practice fight: loss")]
    assert not club.warrior("Olaf")["in_fight"]
    finished(club)


def test_flight_cut_off_by_a_successful_stop(tmp_path: Path) -> None:
    club = Club(tmp_path)
    start(club)
    club.say("olaf !first")
    club.say("olaf !flee")
    club.dice.push(10)  # stop: Gorbag's Dodge 10 vs 30 succeeds; Olaf's turn is over
    one(club, "gob !stop", "Gorbag's stop roll [10 vs 30: stopped]. Gorbag cuts off the "
        "flight.", GORBAG_TURN)
    one(club, "gob !status", "Turn 2, standard range. Olaf (broadsword): unhurt / Gorbag "
        "(spear): unhurt.", GORBAG_TURN)
    assert club.warrior("Olaf")["in_fight"]
    assert ledger_rows(club, "Olaf") == [("created", 0.0, None, "warrior created")]
    finished(club)


# -- manual rolls -----------------------------------------------------------------------


def test_manual_rolls_wait_for_the_awaited_players_own_roll(tmp_path: Path) -> None:
    club = Club(tmp_path, rolls="manual")
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("olaf !challenge Gorbag duel")
    one(club, "gob !accept", f"Duel: Olaf (olaf) vs Gorbag (gob). {LOADOUTS} "
        f"Olaf (olaf), roll for initiative: {ROLL_HOW}")
    assert club.dice.left == 0  # nothing rolled by the bot
    # Gorbag fights but is not the one awaited: refused, and nothing is rolled.
    refused(club, "gob /rol d100", "not your roll: Olaf's initiative roll is awaited")
    club.dice.push(42)  # an onlooker's roll is a plain roll
    assert club.say("ann /rol d100") == ["#arena ann rolls d100 = [42] = 42"]
    club.dice.push(50)  # Olaf's own roll is his initiative
    one(club, "olaf /rol d100",
        f"Olaf rolls 50 for initiative. Gorbag (gob), roll for initiative: {ROLL_HOW}")
    refused(club, "olaf !rol d100", "not your roll: Gorbag's initiative roll is awaited")
    club.dice.push(40)  # Gorbag's 40 is lower: Olaf chooses
    one(club, "gob !rol d100",
        "Gorbag rolls 40 for initiative. Olaf (olaf) chooses: !first | !second")
    refused(club, "olaf !rol d100", "not a roll now: Olaf (olaf) chooses: !first | !second")
    club.say("olaf !first")
    one(club, "olaf !attack", f"Olaf attacks. Olaf (olaf), roll for attack (25): {ROLL_HOW}")
    refused(club, "olaf !attack", "Olaf, first roll d100 for attack")
    refused(club, "olaf !rol d20", "roll d100 for this, not d20")
    one(club, "gob !status", "Turn 1, standard range. Olaf (broadsword): unhurt / Gorbag "
        "(spear): unhurt. Waiting for Olaf's attack roll.")
    club.dice.push(20)  # 20 vs 25: hit
    one(club, "olaf /rol d100", "Olaf's attack roll [20 vs 25: hit].", GORBAG_DEFENDS)
    one(club, "gob !dodge", f"Gorbag dodges. Gorbag (gob), roll for defence (30): {ROLL_HOW}")
    club.dice.push(80)  # the defender rolls the defence: 80 vs 30 fails
    one(club, "gob /rol d100", "Gorbag's defence roll [80 vs 30: fails]. "
        f"Olaf (olaf), roll for damage: {ROLL_HOW}")
    # The attacker rolls damage: 25 on Leather is the weapon arm; the attack roll's last
    # digit 0 disables. First blood.
    club.dice.push(25)
    one(club, "olaf /rol d100", "Olaf's damage 25: Gorbag's weapon arm disabled. "
        "Olaf wins at first blood. BP: Olaf +0.2, Gorbag +0.1. ledger #5 <mac>")
    assert (club.warrior("Olaf")["bp"], club.warrior("Gorbag")["bp"]) == (2, 1)
    finished(club)


# -- time limits ------------------------------------------------------------------------


def test_time_limit_warns_at_half_and_a_claim_wins_by_forfeit(tmp_path: Path) -> None:
    club = Club(tmp_path)  # the limit is 10 minutes
    start(club)
    assert club.wait(4) == []
    refused(club, "gob !claim", "your foe still has 6 min to act")
    assert club.wait(1) == [
        "#arena Olaf (olaf) has 5 min left to act; then Gorbag (gob) may !claim the fight."]
    one(club, "olaf !first", "Olaf acts first.", OLAF_TURN)  # a new limit
    assert club.wait(4) == []
    assert club.wait(1) == [
        "#arena Olaf (olaf) has 5 min left to act; then Gorbag (gob) may !claim the fight."]
    assert club.wait(4) == []
    refused(club, "gob !claim", "your foe still has 1 min to act")
    refused(club, "olaf !claim", "the fight is waiting for you, not your foe")
    refused(club, "ann !claim", "only Olaf and Gorbag's players act in this fight")
    assert club.wait(1) == [
        "#arena Time is up for Olaf (olaf): Gorbag (gob) may !claim the fight."]
    assert club.wait(5) == []  # said once
    refused(club, "olaf !claim", "the fight is waiting for you, not your foe")
    # The claimant wins by forfeit; the side that forfeits is the loser (R7.2, R7.4).
    assert club.say("gob !claim") == [
        "#arena Gorbag wins by forfeit. BP: Gorbag +0.2, Olaf +0.1. ledger #5 <mac>"]
    assert (club.warrior("Olaf")["bp"], club.warrior("Gorbag")["bp"]) == (1, 2)
    assert ledger_rows(club, "Gorbag")[1:] == [("award", 0.2, None, "practice fight: win")]
    assert club.wait(10) == []
    finished(club)


def test_time_limit_half_follows_the_configured_limit(tmp_path: Path) -> None:
    club = Club(tmp_path, timeout_minutes=4)
    start(club)
    club.say("olaf !first")
    club.dice.push(70)  # 70 vs 25: miss; now Gorbag has 4 minutes
    club.say("olaf !attack")
    assert club.wait(1) == []
    assert club.wait(1) == [
        "#arena Gorbag (gob) has 2 min left to act; then Olaf (olaf) may !claim the fight."]
    assert club.wait(2) == [
        "#arena Time is up for Gorbag (gob): Olaf (olaf) may !claim the fight."]
    assert club.say("olaf !claim") == [
        "#arena Olaf wins by forfeit. BP: Olaf +0.2, Gorbag +0.1. ledger #5 <mac>"]
    finished(club)


# -- two channels -----------------------------------------------------------------------


def test_two_channels_fight_at_once_independently(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("bran !create Bran free-clans axe shield")
    club.say("ulf !create Ulf free-clans broadsword greatsword")
    club.say("finn !create Finn invaders spear")
    assert club.say("olaf !challenge Gorbag duel") == [
        "#arena Gorbag, Olaf challenges you to a duel: gob may !accept or !decline."]
    assert club.say("#pit bran !challenge Ulf") == [
        "#pit Ulf, Bran challenges you to a practice fight: ulf may !accept or !decline."]
    # Initiative: 60 and 60 tie, so both roll again (R3.6); Bran 30, Ulf 70: Ulf chooses.
    club.dice.push(60, 60, 30, 70)
    assert club.say("#pit ulf !accept") == [
        "#pit Practice fight: Bran (bran) vs Ulf (ulf). Bran: axe and shield (dodge 30, "
        "block 30, parry 25). Ulf: greatsword (dodge 30, parry 25). Bran rolls 60 for "
        "initiative. Ulf rolls 60 for initiative. Bran rolls 30 for initiative. "
        "Ulf rolls 70 for initiative. Ulf (ulf) chooses: !first | !second"]
    club.dice.push(50, 40)  # #arena initiative: Olaf 50, Gorbag 40
    assert club.say("gob !accept")[-1].endswith(" Olaf (olaf) chooses: !first | !second")

    # A warrior already fighting cannot be challenged, or challenge, elsewhere (R3.3).
    assert club.say("#yard finn !challenge Olaf") == ["#yard finn: Olaf is already in a fight"]
    assert club.say("#yard finn !challenge Ulf") == ["#yard finn: Ulf is already in a fight"]
    assert club.say("#yard bran !challenge Finn as Bran") == [
        "#yard bran: Bran is already in a fight"]
    # Each channel's fight is its own players' business.
    refused(club, "#pit olaf !first", "only Bran and Ulf's players act in this fight")
    refused(club, "#arena ulf !first", "only Olaf and Gorbag's players act in this fight")

    assert club.say("#pit ulf !first") == [
        "#pit Ulf acts first. Ulf (ulf) to act: !attack 35 | !press 60 | !test 40 | "
        "!close 30 | !flee | !yield"]
    one(club, "olaf !first", "Olaf acts first.", OLAF_TURN)
    # Ulf's 88 vs 35 misses; a slow weapon's wild miss, but Bran's axe is slow too, so
    # no free attack (R4.10).
    club.dice.push(88)
    assert club.say("#pit ulf !attack") == [
        "#pit Ulf attacks [88 vs 35: miss]. Bran (bran) to act: !attack 25 | !press 50 | "
        "!test 40 | !close 30 | !flee | !yield"]
    assert sorted(club.wait(5)) == [
        "#arena Olaf (olaf) has 5 min left to act; then Gorbag (gob) may !claim the fight.",
        "#pit Bran (bran) has 5 min left to act; then Ulf (ulf) may !claim the fight."]

    club.dice.push(20)  # #arena: Olaf's 20 vs 25 hits
    one(club, "olaf !attack", "Olaf attacks [20 vs 25: hit].", GORBAG_DEFENDS)
    # Dodge 70 fails; damage 50 on Leather is the right leg, last digit 0 disables:
    # first blood ends the duel in #arena only.
    club.dice.push(70, 50)
    one(club, "gob !dodge", "Gorbag dodges [70 vs 30: fails]. Olaf's damage 50: Gorbag's "
        "right leg disabled. Olaf wins at first blood. BP: Olaf +0.2, Gorbag +0.1. ledger #8 <mac>")
    assert not club.warrior("Olaf")["in_fight"]
    assert club.warrior("Ulf")["in_fight"]

    club.dice.push(15)  # #pit: Bran's 15 vs 25 hits
    assert club.say("#pit bran !attack") == [
        "#pit Bran attacks [15 vs 25: hit]. Ulf (ulf), defend: !dodge 30 | !parry 25 | !luck 5"]
    club.dice.push(10)  # Parry 10 vs 25: saved
    assert club.say("#pit ulf !parry") == [
        "#pit Ulf parries [10 vs 25: saved]. Ulf (ulf) to act: !attack 35 | !press 60 | "
        "!test 40 | !close 30 | !flee | !yield"]
    club.say("#pit ulf !yield")
    assert club.say("#pit bran !accept") == [
        "#pit Bran accepts the yield. Bran wins by yield. BP: Bran +0.2, Ulf +0.1. "
        "ledger #11 <mac>"]
    assert [club.warrior(n)["bp"] for n in ("Olaf", "Gorbag", "Bran", "Ulf")] == [2, 1, 2, 1]
    # Olaf is free to be challenged again.
    assert club.say("#yard finn !challenge Olaf") == [
        "#yard Olaf, Finn challenges you to a practice fight: olaf may !accept or !decline."]
    finished(club)


# -- restart ----------------------------------------------------------------------------


def test_restart_mid_fight_resumes_where_it_was(tmp_path: Path) -> None:
    club = Club(tmp_path)
    start(club)
    club.say("olaf !first")
    club.dice.push(20)  # 20 vs 25: hit
    assert club.say("olaf !attack")[-1].endswith(GORBAG_DEFENDS)
    assert club.wait(7) == [
        "#arena Gorbag (gob) has 3 min left to act; then Olaf (olaf) may !claim the fight."]

    assert club.restart() == []
    assert club.warrior("Gorbag")["in_fight"]
    # After a restart nobody has spoken yet: players are named by their accounts.
    resumed = resuming.resume_line(club.referee.services, "#arena")
    assert resumed is not None and resumed.text == f"Fight resumed: turn 1, {GORBAG_DEFENDS}"
    one(club, "gob !status", "Turn 1, standard range. Olaf (broadsword): unhurt / Gorbag "
        "(spear): unhurt.", GORBAG_DEFENDS)
    # The resumed fight gets a fresh time limit.
    assert club.wait(5) == [
        "#arena Gorbag (gob) has 5 min left to act; then Olaf (olaf) may !claim the fight."]
    # Parry 80 vs 25 fails; damage 35 on Leather is the off arm; the attack roll's last
    # digit 0 disables it.
    club.dice.push(80, 35)
    one(club, "gob !parry", "Gorbag parries [80 vs 25: fails]. Olaf's damage 35: Gorbag's "
        "off arm disabled.", GORBAG_TURN)

    assert club.restart() == []
    club.dice.push(40)  # 40 vs 35: miss
    one(club, "gob !attack", "Gorbag attacks [40 vs 35: miss].", OLAF_TURN)
    club.say("olaf !yield")

    assert club.restart() == []
    one(club, "gob !accept",
        "Gorbag accepts the yield. Gorbag wins by yield. BP: Gorbag +0.2, Olaf +0.1.",
        "ledger #5 <mac>")
    assert club.restart() == []
    assert club.referee.store.open_fights() == ([], [])
    assert club.say("gob !status") == [
        "#arena gob: there is no fight in this channel; start one with !challenge"]
    finished(club)


# -- loadouts ---------------------------------------------------------------------------


def test_wield_before_the_first_action_changes_chances_then_is_fixed(tmp_path: Path) -> None:
    club = Club(tmp_path)
    start(club)
    one(club, "olaf !first", "Olaf acts first.", OLAF_TURN)
    # Gorbag takes the club (length 1): Olaf's broadsword (length 2) is now the longer
    # weapon, +5 instead of -5 (R4.9): attack 35, press 60.
    one(club, "gob !wield club", "Gorbag: club (dodge 30, parry 25). Olaf (olaf) to act: "
        "!attack 35 | !press 60 | !test 40 | !close 30 | !flee | !yield")
    refused(club, "gob !wield axe", "Gorbag needs axe skill to wield axe")
    refused(club, "gob !wield club shield", "Gorbag has no shield skill")
    # Olaf puts his shield down: no Block any more (R3.5).
    one(club, "olaf !wield broadsword", "Olaf: broadsword (dodge 30, parry 25). Olaf (olaf) "
        "to act: !attack 35 | !press 60 | !test 40 | !close 30 | !flee | !yield")
    club.dice.push(33)  # 33 vs 35: hit (it would have missed the spear's 25)
    one(club, "olaf !attack", "Olaf attacks [33 vs 35: hit].", GORBAG_DEFENDS)
    # The first action fixed the loadouts (R3.4).
    refused(club, "gob !wield spear", "loadouts are fixed once the first action is taken")
    refused(club, "olaf !wield broadsword shield",
            "loadouts are fixed once the first action is taken")
    club.dice.push(10)  # Parry 10 vs 25 (10 + club 30/2): saved
    # With the club Gorbag attacks at 30 - 5 = 25 and may Double at 30 - 10 - 5 = 15
    # each (R4.2).
    one(club, "gob !parry", "Gorbag parries [10 vs 25: saved]. Gorbag (gob) to act: "
        "!attack 25 | !double 15/15 | !press 50 | !test 40 | !close 30 | !flee | !yield")
    club.dice.push(25)  # 25 vs 25: hit
    one(club, "gob !attack",
        "Gorbag attacks [25 vs 25: hit]. Olaf (olaf), defend: !dodge 30 | !parry 25 | !luck 5")
    refused(club, "olaf !block", "Olaf cannot block: nothing to block with; "
            "choose dodge or parry or luck")
    club.dice.push(5)  # Dodge 5 vs 30: saved
    one(club, "olaf !dodge", "Olaf dodges [5 vs 30: saved]. Olaf (olaf) to act: !attack 35 | "
        "!press 60 | !test 40 | !close 30 | !flee | !yield")
    finished(club)


# -- refusals ---------------------------------------------------------------------------


def test_refusals_are_one_line_to_the_sender_and_change_nothing(tmp_path: Path) -> None:
    club = Club(tmp_path)
    start(club)
    refused(club, "gob !first", "waiting for Olaf to choose to go first or second")
    club.say("olaf !first")
    club.dice.push(20)  # 20 vs 25: hit
    club.say("olaf !attack")
    # An outsider, the wrong fighter, and a defence Gorbag does not have.
    refused(club, "ann !dodge", "only Olaf and Gorbag's players act in this fight")
    refused(club, "ann !attack", "only Olaf and Gorbag's players act in this fight")
    refused(club, "olaf !dodge", "waiting for Gorbag to choose a defence")
    refused(club, "olaf !attack", "waiting for Gorbag to choose a defence")
    refused(club, "gob !block",
            "Gorbag cannot block: nothing to block with; choose dodge or parry or luck")
    refused(club, "gob !attack", "Gorbag, first choose a defence")
    refused(club, "gob !stop", "Gorbag, first choose a defence")
    # The fight goes on from where it was.
    club.dice.push(20)  # Dodge 20 vs 30: saved
    one(club, "gob !dodge", "Gorbag dodges [20 vs 30: saved].", GORBAG_TURN)
    refused(club, "olaf !flee", "waiting for Gorbag to choose an action")
    refused(club, "gob !open", "Gorbag cannot open: already at standard range")
    refused(club, "gob !double", "Gorbag cannot double: no double with a spear")
    assert club.say("gob !status")[-1].endswith(GORBAG_TURN)
    assert ledger_rows(club, "Gorbag") == [("created", 0.0, None, "warrior created")]
    finished(club)


# -- bugs found (the tests say what should happen) ---------------------------------------


def test_wield_does_not_restart_the_awaited_sides_time_limit(tmp_path: Path) -> None:
    club = Club(tmp_path)
    start(club)
    assert club.wait(9) == [
        "#arena Olaf (olaf) has 1 min left to act; then Gorbag (gob) may !claim the fight."]
    # Olaf re-wields what he holds instead of choosing the order he is asked for.
    club.say("olaf !wield broadsword shield")
    assert club.wait(1) == [
        "#arena Time is up for Olaf (olaf): Gorbag (gob) may !claim the fight."]
    assert club.say("gob !claim") == [
        "#arena Gorbag wins by forfeit. BP: Gorbag +0.2, Olaf +0.1. ledger #5 <mac>"]


def test_accept_with_misworded_ransom_is_refused(tmp_path: Path) -> None:
    club = Club(tmp_path)
    start(club, "mortal")
    club.say("olaf !second")
    club.say("gob !yield")
    before = snapshot(club, "#arena")
    reply = club.say("olaf !accept prisoner 10 silver")
    assert len(reply) == 1 and reply[0].startswith("#arena olaf: ")
    assert snapshot(club, "#arena") == before
    assert club.say("olaf !accept prisoner ransom 10 silver")[0].endswith(
        "(ransom: 10 silver). BP: Olaf +1.5 (mortal fight 0.5, prisoner 1.0), Gorbag +0.5. "
        "ledger #7 <mac>")


def test_time_left_is_never_shown_as_zero_minutes(tmp_path: Path) -> None:
    club = Club(tmp_path, timeout_minutes=1)
    start(club)
    warning = club.wait(0.5)  # half of the 1-minute limit
    assert len(warning) == 1 and not re.search(r"\b0 min", warning[0])
    reply = club.say("gob !claim")  # 30 seconds left: refused, but not "0 min"
    assert reply[0].startswith("#arena gob: your foe still has")
    assert not re.search(r"\b0 min", reply[0])
