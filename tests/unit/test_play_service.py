"""The play service (:mod:`bot.fights.playing`) without any chat: a fight, a command, the
channel's rules, the dice and the store in; the fight as recorded and its events out,
typed by the fight's system. The README's duel, played by engine commands:

    Olaf rolls 50, Gorbag 40 for initiative; Olaf chooses to act first; Olaf attacks
    [13 vs 25: hit]; Gorbag parries [90 vs 25: fails]; Olaf's damage 5: a kill.
"""

from __future__ import annotations

from pathlib import Path

from bot.club_settings import ChannelRules
from bot.dice import ScriptedDice
from bot.fights.playing import Played, auto_rolls, due_rolls, play
from bot.systems.registry import SYSTEMS
from rules.ancath.commands import Act, ChooseOrder, Command, Defend, Roll
from rules.ancath.events import Event, FightEnded, OrderChosen, Rolled
from rules.ancath.sheet import Sheet, create_warrior
from rules.ancath.state import Action, Defence, FightState
from rules.ancath.system import AN_CATH
from rules.ancath.tables import Culture, Skill
from storage.db import open_database
from storage.keys import Keyring
from storage.records import OpenFight
from storage.store import Store

AUTO = ChannelRules(rolls_auto=True, turn_seconds=600.0)
MANUAL = ChannelRules(rolls_auto=False, turn_seconds=600.0)

AnCathFight = OpenFight[FightState, Command, Event, Sheet]


def _club(tmp_path: Path) -> Store:
    """A store with Olaf (olaf) and Gorbag (gob), as the README makes them."""
    store = Store(open_database(f"sqlite:///{tmp_path / 'club.sqlite3'}"),
                  keyring=Keyring.of("k" * 40), systems=SYSTEMS.rules)
    olaf, _ = create_warrior("Olaf", Culture.FREE_CLANS, [Skill.BROADSWORD, Skill.SHIELD])
    gorbag, _ = create_warrior("Gorbag", Culture.GOBLIN, [Skill.CLUB, Skill.SPEAR])
    store.create_warrior(olaf, "olaf")
    store.create_warrior(gorbag, "gob")
    return store


def _opened(store: Store, rules: ChannelRules, dice: ScriptedDice) -> AnCathFight:
    """Olaf's practice fight against Gorbag, its initiative rolled as ``rules`` say."""
    fight: AnCathFight
    fight, _ = store.open_fight("#arena", AN_CATH, "practice", [("Olaf", "olaf"),
                                                                 ("Gorbag", "gob")], "gob",
                                rolls=lambda opened: auto_rolls(opened, opened.state, rules,
                                                                dice))
    return fight


def test_the_service_plays_a_scripted_fight_to_its_end_with_no_chat(tmp_path: Path) -> None:
    store, dice = _club(tmp_path), ScriptedDice([50, 40])
    fight = _opened(store, AUTO, dice)
    assert fight.state.awaiting is not None and fight.state.awaiting.side == 0   # Olaf's choice

    chose: Played[FightState, Command, Event, Sheet] = play(
        fight, ChooseOrder(0, first=True), AUTO, dice, store, actor="olaf")
    assert [type(e) for e in chose.events][:1] == [OrderChosen] and not chose.ended
    dice.push(13)   # the attack roll follows the attack at once: 13 vs 25, a hit
    attacked = play(chose.fight, Act(0, Action.ATTACK), AUTO, dice, store, actor="olaf")
    assert [(e.roll, e.chance, e.success) for e in attacked.events
            if isinstance(e, Rolled)] == [(13, 25, True)]
    assert attacked.fight.commands[-2:] == (Act(0, Action.ATTACK), Roll(0, 13))
    dice.push(90, 5)   # Gorbag's parry 90 vs 25 fails; Olaf's damage 5 on leather: a kill
    ended = play(attacked.fight, Defend(1, Defence.PARRY), AUTO, dice, store, actor="gob")

    assert ended.ended and any(isinstance(e, FightEnded) for e in ended.events)
    assert ended.fight.state.outcome is not None and ended.fight.state.outcome.winner == 0
    assert ended.fight.anchor is not None   # its closing row's ledger head, to be said
    assert ended.fight.seq == store.fight(fight.id).seq == 8   # 2 initiative rolls, 6 steps
    assert dice.left == 0 and store.verify() == []


def test_in_a_manual_channel_the_service_leaves_the_roll_to_the_fighter(
        tmp_path: Path) -> None:
    store, dice = _club(tmp_path), ScriptedDice([])
    fight = _opened(store, MANUAL, dice)
    assert fight.state.awaiting is not None and fight.state.awaiting.is_roll   # initiative
    assert due_rolls(fight, MANUAL, dice, store) == Played(fight, ())   # nothing written
    rolled = play(fight, Roll(0, 50), MANUAL, dice, store, actor="olaf")
    assert [type(e) for e in rolled.events] == [Rolled] and rolled.fight.seq == 1
    dice.push(40)   # the channel turned automatic: the roll it already waits for
    caught = due_rolls(rolled.fight, AUTO, dice, store)
    assert caught.fight.seq == 2 and caught.fight.state.awaiting is not None
    assert not caught.fight.state.awaiting.is_roll and dice.left == 0
