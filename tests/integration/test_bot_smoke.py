"""A first bout through the referee: challenge to BP awards, in one channel."""

from pathlib import Path

from club import Club


def test_practice_bout_from_challenge_to_awards(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("olaf !challenge Gorbag")
    club.dice.push(50, 40)  # initiative: Olaf 50, Gorbag 40
    assert club.say("gob !accept")[-1].endswith(" Olaf (olaf) chooses: !first | !second")
    club.say("olaf !first")
    club.dice.push(20)  # attack 20 vs 25 (broadsword 30, -5 against the longer spear): hit
    club.say("olaf !attack")
    club.dice.push(80, 5)  # dodge 80 vs 30 fails; damage 5 on leather: kill
    line = club.say("gob !dodge")[-1]
    assert "Olaf wins by a kill" in line and "BP: Olaf +0.2, Gorbag +0.1" in line
    assert club.warrior("Olaf")["bp"] == 2 and club.warrior("Gorbag")["bp"] == 1
    assert club.referee.store.verify() == []
    assert club.dice.left == 0
