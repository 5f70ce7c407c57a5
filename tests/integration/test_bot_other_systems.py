"""Simple Contest (R9) and General-rules (R10) fights through the referee, as chat
transcripts with scripted dice, and the travel tool."""

from pathlib import Path

from club import Club


def contest_club(tmp_path: Path) -> Club:
    club = Club(tmp_path)
    club.say("al !create Alain contest 15W sword^3 armour 2")
    club.say("bo !create Bors contest 12 axe^2")
    return club


def test_R9_a_simple_contest_from_challenge_to_the_end(tmp_path: Path) -> None:
    club = contest_club(tmp_path)
    assert club.say("al !challenge Bors") == [
        "#arena Bors, Alain challenges you to a Simple Contest: bo may !accept or !decline."]
    assert club.say("bo !accept") == [
        "#arena Simple Contest: Alain (al) vs Bors (bo). Alain: close combat 15W, sword^3, "
        "armour 2. Bors: close combat 12, axe^2, armour 0. Round 1: Alain (al), !strike | "
        "!yield"]
    assert club.say("al !strike") == ["#arena Alain strikes. Round 1: Bors (bo), !strike | !yield"]
    club.dice.push(5, 19)  # Alain 5 vs 15 success (+1 mastery: critical); Bors 19 fails
    assert club.say("bo !strike") == [
        "#arena Bors strikes. Alain [5 vs 15: success, +1 mastery: critical] Bors [19 vs 12: "
        "failure] Alain wins a major victory: Bors injury (ratings 15/6). Round 2: Alain (al), "
        "!strike | !yield"]
    club.say("al !strike")
    club.dice.push(3, 9)  # Alain 3: at or under the sword's edge 3, major + 1 = dying
    (line,) = club.say("bo !strike")
    assert line.endswith("Alain wins: the foe is dying. ledger #3 <mac>")
    store = club.referee.store
    assert not store.warrior("Alain").in_fight and not store.warrior("Bors").in_fight
    assert [r["entry"] for r in store.ledger("Alain")] == ["created"]  # no BP here (R9.6)
    assert club.referee.store.verify() == [] and club.dice.left == 0


def test_R9_2_R9_4_a_round_says_why_its_result_differs_from_the_table(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.say("al !create Alain contest 15W sword^3 armour 2")
    club.say("ka !create Karamo contest 14 axe^2")
    club.say("al !challenge Karamo")
    club.say("ka !accept")
    club.say("al !strike")
    club.dice.push(17, 19)   # both fail; Alain's mastery lifts his failure to a success
    assert club.say("ka !strike") == [
        "#arena Karamo strikes. Alain [17 vs 15: failure, +1 mastery: success] Karamo [19 vs "
        "14: failure] Alain wins a minor victory: Karamo wound (ratings 15/13). Round 2: "
        "Alain (al), !strike | !yield"]
    club.say("al !strike")
    club.dice.push(1, 5)   # a critical cannot rise: the mastery lowers Karamo's success
    assert club.say("ka !strike")[0].startswith(
        "#arena Karamo strikes. Alain [1 vs 15: critical] Karamo [5 vs 13: success, -1 foe's "
        "mastery: failure] Alain wins a major victory, +1 edge: Karamo dying (ratings 15/13).")
    club.say("dn !create Dain contest 10 axe^2 armour 3")
    club.say("bo !create Bors contest 12 club^0")
    club.say("#pit bo !challenge Dain")
    club.say("#pit dn !accept")
    club.say("#pit bo !strike")
    club.dice.push(1, 3)   # Dain's 3 is within his armour 3: the wound is only a daze
    assert club.say("#pit dn !strike")[0].startswith(
        "#pit Dain strikes. Bors [1 vs 12: critical] Dain [3 vs 10: success] Bors wins a minor "
        "victory, -1 armour: Dain dazed (ratings 12/10).")
    assert club.dice.left == 0


def test_R9_6_yield_instead_of_rolling(tmp_path: Path) -> None:
    club = contest_club(tmp_path)
    club.say("al !challenge Bors")
    club.say("bo !accept")
    club.say("al !strike")
    assert club.say("bo !yield") == ["#arena Alain wins: by yield. ledger #3 <mac>"]


def test_moves_of_another_system_are_refused(tmp_path: Path) -> None:
    club = contest_club(tmp_path)
    club.say("al !challenge Bors")
    club.say("bo !accept")
    assert club.say("al !attack") == [
        "#arena al: !attack is not a move in a Simple Contest fight; !status shows yours"]
    assert club.say("al !wield sword") == [
        "#arena al: usage: !wield <axe|broadsword|club|countersword|greatsword|lajatang|"
        "shortsword|spear> [shield|two-handed]"]
    club.say("gob !create Gorbag goblin club spear")
    assert club.say("#pit gob !challenge Alain as Gorbag") == [
        "#pit gob: Alain is already in a fight"]


def test_fighters_of_different_systems_cannot_meet(tmp_path: Path) -> None:
    club = contest_club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    assert club.say("gob !challenge Bors") == [
        "#arena gob: Gorbag fights by An Cath rules, Bors by Simple Contest: "
        "pick a foe of the same rules"]


def test_R10_a_general_rules_fight_with_rolled_up_damage_and_knockback(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.say("fa !create Farthan general health=25 str=13 skill=14 weapon=1d10 base=1d8 "
             "defense=0 protection=2")
    club.say("tr !create Troll general health=20 str=16 skill=10 weapon=2d6 base=1d8 "
             "defense=1 protection=3")
    club.say("fa !challenge Troll")
    assert club.say("tr !accept") == [
        "#arena General rules: Farthan (fa) vs Troll (tr). Farthan: weapon 1d10, base 1d8, "
        "skill 14, health 25, protection 2. Troll: weapon 2d6, base 1d8, skill 10, health "
        "20, protection 3. Farthan (fa) to act: !attack 14 | !yield"]
    # attack 5 vs 14 hits; parry 19 vs 10//2+1 = 6 fails; base d8 8 rolls up, 5; d10 4;
    # 17 - 3 = 14 > 20/2: a Strength Test, 18 vs 16 fails: knocked down and stunned
    club.dice.push(5, 19, 8, 5, 4, 18)
    assert club.say("fa !attack") == [
        "#arena Farthan attacks [5 vs 14: hit]. Troll parries [19 vs 6: fails]. Farthan's "
        "damage d8:8! d8:5 d10:4 = 17, 14 after armour; Troll at 6 health. Troll tests "
        "Strength [18 vs 16]: knocked down, stunned. Troll spends the turn getting up. "
        "Farthan (fa) to act: !attack 14 | !yield"]
    # R10.3: after the turn spent getting up, the Parry against Farthan's next attack is
    # at -5: 6 - 5 = 1, so a 6 fails; d8 1 + d10 1 = 2, nothing after armour
    club.dice.push(2, 6, 1, 1)
    assert club.say("fa !attack") == [
        "#arena Farthan attacks [2 vs 14: hit]. Troll parries [6 vs 1: fails]. Farthan's "
        "damage d8:1 d10:1 = 2, 0 after armour; Troll at 6 health. "
        "Troll (tr) to act: !attack 10 | !yield"]
    club.dice.push(20)  # the Troll misses; then his Parry is whole again: 6 vs 6 holds
    club.say("tr !attack")
    club.dice.push(2, 6)
    assert "Troll parries [6 vs 6: held]." in club.say("fa !attack")[0]
    assert club.dice.left == 0


def test_travel_sam_runs_fifty_minutes(tmp_path: Path) -> None:
    club = Club(tmp_path)
    assert club.say("sam !travel move=12 vit=10 strain=10 run minutes=50") == [
        "#arena sam: Run at Move 12: 12 m a round, 360 m a minute, 12 miles an hour; holds "
        "10 min a Strain, 50 min in all down to 1 Strain. 50 min: 18000 m (11.2 miles), "
        "Strain 10 -> 1."]
    assert "usage: !travel" in club.say("sam !travel move=12 run")[0]


def test_R9_1_manual_rolls_are_d20_challenger_first(tmp_path: Path) -> None:
    club = Club(tmp_path, rolls="manual")
    club.say("al !create Alain contest 15W sword^3 armour 2")
    club.say("bo !create Bors contest 12 axe^2")
    club.say("al !challenge Bors")
    club.say("bo !accept")
    club.say("al !strike")
    assert club.say("bo !strike") == [
        "#arena Bors strikes. Alain (al), roll d20 against 15: !rol d20 (WeeChat, irssi: "
        "//rol d20)"]
    # Bors fights, but it is not his roll yet: refused, nothing rolled
    assert club.say("bo /rol d20") == ["#arena bo: not your roll: Alain's d20 roll is awaited"]
    club.dice.push(5)
    assert club.say("al /rol d20") == [
        "#arena Alain [5 vs 15: success] Bors (bo), roll d20 against 12: !rol d20 (WeeChat, "
        "irssi: //rol d20)"]
    club.dice.push(19)
    (line,) = club.say("bo !rol d20")
    assert line.startswith(   # Alain's roll was said alone: its level after masteries here
        "#arena Bors [19 vs 12: failure] Alain wins a major victory (Alain critical after "
        "masteries): Bors injury (ratings 15/6). Round 2: Alain (al), !strike")
    assert club.dice.left == 0


def test_a_contest_resumes_after_a_restart(tmp_path: Path) -> None:
    club = contest_club(tmp_path)
    club.say("al !challenge Bors")
    club.say("bo !accept")
    club.say("al !strike")
    club.dice.push(5, 19)
    club.say("bo !strike")
    assert club.restart() == []
    club.say("al !strike")
    club.dice.push(3, 9)
    assert club.say("bo !strike")[0].endswith("Alain wins: the foe is dying. ledger #3 <mac>")
