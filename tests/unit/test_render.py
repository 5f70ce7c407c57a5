"""An Cath in chat words: a prompt offers only what can work, and says who is asked."""

from __future__ import annotations

from transcript import fight, play, warrior

from bot.systems.ancath.plugin import AN_CATH as ancath
from bot.wording.common import Cast
from rules.ancath import legal_actions
from rules.ancath.commands import Act
from rules.ancath.state import Action

CAST = Cast(("Olaf", "Gob"), ("Olaf (olaf)", "Gob (gob)"))


def test_an_option_only_a_natural_1_could_make_work_is_not_offered() -> None:
    olaf = warrior("Olaf", "free-clans", "broadsword", "shield")
    gob = warrior("Gob", "goblin", "club", "shield")
    state, _ = play(fight("practice", olaf, gob), """
        Olaf rolls 50        # initiative
        Gob rolls 40
        Olaf: first
        Olaf: attack
        Olaf rolls 20        # hit (25); last digit 0 disables
        Gob: dodge
        Gob rolls 99         # fails
        Olaf rolls 25        # leather: weapon arm, disabled
    """)
    # club 30 halved by the disabled arm (R6.5): attack 15 - 5 (shorter weapon, R4.9) = 10;
    # double 15 - 10 - 5 = 0 on each roll: only a roll of 1 would hit (R1.1)
    doubles = [o for o in legal_actions(state) if o.command == Act(1, Action.DOUBLE)]
    assert [o.chances for o in doubles] == [(0, 0)]
    assert ancath.prompt(state, False, CAST) == (
        "Gob (gob) to act: !attack 10 | !press 35 | !test 40 | !close 30 | !flee | !yield")


def test_a_roll_prompt_names_the_player_and_leads_with_what_every_client_can_send() -> None:
    olaf = warrior("Olaf", "free-clans", "broadsword", "shield")
    gob = warrior("Gob", "goblin", "club", "shield")
    state = fight("practice", olaf, gob)
    assert ancath.prompt(state, True, CAST) == (
        "Olaf (olaf), roll for initiative: !rol d100 (WeeChat, irssi: //rol d100)")
    assert ancath.waiting(state) == "Olaf's initiative roll"
