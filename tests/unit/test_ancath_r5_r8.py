"""Rulings R5 (defence), R6 (damage), R7 (endings and rewards) and the engine side of
R8.1 (moderator end and undo), as fight transcripts with their rolls.

The two regulars, unless a test says otherwise, are goblins in no armour (damage
column None: Kill 1-15, Head 16-20, Torso 21-30, Weapon Arm 31-45, Off Arm 46-60,
Right Leg 61-80, Left Leg 81-100) with Club 60 and a shield, Move 30:
attack 60 (same weapon length, no range modifier), Double 50/50, Press 85,
Dodge 30 + 20 = 50, Block 40, Parry 10 + 60 // 2 = 40, Test 40.
A club's damage rating is 2: an attack roll ending in 0, 1 or 2 disables, 3-9 wounds.
Gorbag has 0.5 BP more than Snaga, so Gorbag chooses who goes first.
"""

from __future__ import annotations

import pytest
from replaying import ancath_replay as replay  # the one replay, rules.replay
from transcript import command, fight, play, warrior

from rules.ancath import apply, legal_actions, undo_point
from rules.ancath.chances import defence_options
from rules.ancath.commands import Act, Command
from rules.ancath.events import (
    ActionTaken,
    AwardReason,
    BonusEarned,
    BPAwarded,
    DamageRolled,
    DefenceChosen,
    Event,
    FightEnded,
    Injured,
    InjuryRule,
    PrisonerTaken,
    TurnStarted,
    WarriorSlain,
    WeaponDrawn,
)
from rules.ancath.sheet import Sheet
from rules.ancath.state import (
    Action,
    Awaiting,
    Defence,
    Ending,
    FightState,
    Kind,
    Need,
    Outcome,
    RollFor,
    Severity,
)
from rules.ancath.tables import Hit, Location, Weapon
from rules.errors import FightOver, IllegalCommand, NotYourTurn, RulesError, Unavailable

D, W = Severity.DISABLED, Severity.WOUND
DODGE, BLOCK, PARRY, LUCK = Defence.DODGE, Defence.BLOCK, Defence.PARRY, Defence.LUCK
HEAD, TORSO = Location.HEAD, Location.TORSO
WEAPON_ARM, OFF_ARM = Location.WEAPON_ARM, Location.OFF_ARM
RIGHT_LEG, LEFT_LEG = Location.RIGHT_LEG, Location.LEFT_LEG


# -- sheets -----------------------------------------------------------------------------


def gorbag(**levels: int) -> Sheet:
    skills = {"club": 60, "shield": 40, "move": 30, **levels}
    return warrior("Gorbag", "goblin", "club", "shield", armour="none", bp=5, **skills)


def snaga(armour: str = "none", **levels: int) -> Sheet:
    skills = {"club": 60, "shield": 40, "move": 30, **levels}
    return warrior("Snaga", "goblin", "club", "shield", armour=armour, **skills)


def fiall(bp: int = 5) -> Sheet:
    """Fairy with a pair of shortswords (after ``wield countersword``): Shortsword 60,
    Countersword 50, no armour: attack 60, Double 60 then 50 // 2 = 25, Block 50,
    Parry 40, Dodge 50."""
    return warrior("Fiall", "fairy", "countersword", armour="none", bp=bp,
                   shortsword=60, countersword=50, move=30)


# One warrior per main weapon, all at 60 with Move 30 and no armour. Mirror matches
# (same weapon both sides) have no range modifier.
ARMED: dict[str, tuple[str, tuple[str, ...], dict[str, int]]] = {
    "axe": ("goblin", ("axe", "club"), {"axe": 60}),
    "broadsword": ("free-clans", ("broadsword", "shield"), {"broadsword": 60, "shield": 40}),
    "club": ("goblin", ("club", "shield"), {"club": 60, "shield": 40}),
    "shortsword": ("invaders", ("shortsword",), {"shortsword": 60, "shield": 40}),
    "spear": ("goblin", ("spear", "club"), {"spear": 60}),
    "greatsword": ("free-clans", ("axe", "greatsword"), {"greatsword": 60, "axe": 50}),
    "lajatang": ("fairy", ("lajatang",), {"lajatang": 60, "shortsword": 50}),
}


def armed(name: str, weapon: str, bp: int = 0) -> Sheet:
    culture, skills, levels = ARMED[weapon]
    return warrior(name, culture, *skills, armour="none", bp=bp, move=30, **levels)


# -- helpers ----------------------------------------------------------------------------


def options(state: FightState) -> dict[Defence, int]:
    """The defences (with chances) open to the defender against the pending hit."""
    assert state.context is not None
    return defence_options(state, state.context)


def turn_actions(state: FightState) -> set[Action]:
    return {o.command.action for o in legal_actions(state) if isinstance(o.command, Act)}


def only(events: list[Event], kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


def awards(events: list[Event]) -> list[BPAwarded]:
    return only(events, BPAwarded)


def ended(state: FightState, ending: Ending, winner: int | None) -> bool:
    return state.outcome is not None and (state.outcome.ending, state.outcome.winner) == (
        ending, winner
    ) and state.awaiting is None


def wants_action(side: int) -> Awaiting:
    return Awaiting(side, Need.ACTION)


def defence_roll(side: int, chance: int) -> Awaiting:
    return Awaiting(side, Need.ROLL, RollFor.DEFENCE, chance)


# ======================================================================================
# R5 Defence
# ======================================================================================


def test_R5_1_each_defence_at_most_once_per_opponent_turn() -> None:
    state = fight("practice", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: double
        Gorbag rolls 23      # club 60 - 10 = 50: first blow hits
        Gorbag rolls 34      # 50: second blow hits
        Snaga: dodge
        Snaga rolls 99       # dodge 50 fails
    """)
    assert state.awaiting == Awaiting(1, Need.DEFENCE)  # one defence roll per hit
    assert set(options(state)) == {BLOCK, PARRY, LUCK}  # dodge is spent this turn
    with pytest.raises(Unavailable):
        play(state, "Snaga: dodge")
    state, more = play(state, """
        Snaga: parry
        Snaga rolls 99       # parry 40 fails
        Gorbag rolls 65      # first blow: right leg, 23 ends in 3 > 2: wound
        Gorbag rolls 50      # second blow: off arm, 34 ends in 4: wound
    """)
    events += more
    assert only(events, DefenceChosen) == [DefenceChosen(1, DODGE), DefenceChosen(1, PARRY)]
    assert state.fighters[1].injuries == {RIGHT_LEG: W, OFF_ARM: W}
    state, _ = play(state, """
        Snaga: attack
        Snaga rolls 99       # misses
        Gorbag: attack
        Gorbag rolls 23      # 60: hits
    """)
    assert set(options(state)) == {DODGE, BLOCK, PARRY, LUCK}  # a new turn, all back


def test_R5_1_luck_for_the_hit_when_no_defence_is_left() -> None:
    # Olaf: Greatsword 60 (no Block), a disabled leg (no Dodge): Parry is all he has.
    olaf = warrior("Olaf", "free-clans", "axe", "greatsword", armour="none",
                   greatsword=60, axe=50, move=30)
    state = fight("practice", gorbag(), olaf)
    state, _ = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 22      # club 60 - 10 (length 1 vs 3) = 50: hits; ends in 2: disabling
        Olaf: dodge
        Olaf rolls 99        # dodge 50 fails
        Gorbag rolls 70      # right leg, disabled: Olaf is down
        Olaf: yield
        Gorbag: reject       # Olaf's turn is lost
        Gorbag: double
        Gorbag rolls 23      # 60 - 10 - 10 = 40: hits
        Gorbag rolls 34      # 40: hits
    """)
    assert set(options(state)) == {PARRY, LUCK}
    state, events = play(state, """
        Olaf: parry
        Olaf rolls 99        # parry 10 + 30 = 40 fails
    """)
    # Nothing left for the second blow: Luck is rolled without asking.
    assert DefenceChosen(1, LUCK) in events
    assert state.awaiting == defence_roll(1, 5)
    state, events = play(state, """
        Olaf rolls 5         # luck 5 succeeds: the second blow is stopped
        Gorbag rolls 50      # first blow only: off arm, 23 ends in 3: wound
    """)
    assert only(events, DamageRolled) == [DamageRolled(0, 50, Hit.OFF_ARM, W)]
    assert state.fighters[1].injuries == {RIGHT_LEG: D, OFF_ARM: W}
    assert state.awaiting == wants_action(1)


@pytest.mark.parametrize(
    ("damage", "arm"), [(35, WEAPON_ARM), (50, OFF_ARM)], ids=["weapon-arm", "off-arm"]
)
def test_R5_2_shield_blocks_need_both_arms_free_of_disable(damage: int, arm: Location) -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, """
        Gorbag: second
        Snaga: attack
        Snaga rolls 30       # 60: hits; last digit 0: disabling
    """)
    assert BLOCK in options(state)  # both arms whole: the shield blocks
    state, _ = play(state, f"""
        Gorbag: block
        Gorbag rolls 99      # block 40 fails
        Snaga rolls {damage}      # {arm.value}, disabled
        Gorbag: yield
        Snaga: reject
        Snaga: attack
        Snaga rolls 23       # hits
    """)
    assert state.fighters[0].injuries == {arm: D}
    assert set(options(state)) == {DODGE, PARRY, LUCK}
    with pytest.raises(Unavailable):
        play(state, "Gorbag: block")


def test_R5_2_shield_blocks_with_a_wounded_arm() -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, """
        Gorbag: second
        Snaga: attack
        Snaga rolls 23       # hits; ends in 3: a wound
        Gorbag: block
        Gorbag rolls 99      # fails
        Snaga rolls 35       # weapon arm, wounded
        Gorbag: yield
        Snaga: reject
        Snaga: attack
        Snaga rolls 24       # hits
    """)
    assert state.fighters[0].injuries == {WEAPON_ARM: W}
    assert options(state)[BLOCK] == 40


@pytest.mark.parametrize(
    ("damage", "arm", "can_block"),
    [(35, WEAPON_ARM, True), (50, OFF_ARM, False)],
    ids=["weapon-arm-still-blocks", "off-arm-no-block"],
)
def test_R5_2_pair_blocks_unless_the_off_arm_is_disabled(
    damage: int, arm: Location, can_block: bool
) -> None:
    state = fight("practice", fiall(), snaga())
    state, _ = play(state, f"""
        Fiall: wield countersword
        Fiall: second
        Snaga: attack
        Snaga rolls 30       # 60: hits; last digit 0: disabling
        Fiall: dodge
        Fiall rolls 99       # dodge 50 fails
        Snaga rolls {damage}      # {arm.value}, disabled
        Fiall: yield
        Snaga: reject
        Snaga: attack
        Snaga rolls 23       # hits
    """)
    assert state.fighters[0].injuries == {arm: D}
    assert (BLOCK in options(state)) is can_block
    if can_block:
        assert options(state)[BLOCK] == 50


def test_R5_2_pair_cannot_block_on_the_turn_after_its_double() -> None:
    state = fight("practice", fiall(), snaga())
    state, _ = play(state, """
        Fiall: wield countersword
        Fiall: first
        Fiall: double
        Fiall rolls 99       # shortsword 60: misses
        Fiall rolls 99       # countersword 50 // 2 = 25: misses
        Snaga: attack
        Snaga rolls 23       # hits
    """)
    # No Block, but no Press penalty either: Dodge and Parry are there.
    assert set(options(state)) == {DODGE, PARRY, LUCK}
    with pytest.raises(Unavailable):
        play(state, "Fiall: block")
    state, _ = play(state, """
        Fiall: parry
        Fiall rolls 12       # parry 40 succeeds
        Fiall: attack
        Fiall rolls 99       # misses
        Snaga: attack
        Snaga rolls 23       # hits
    """)
    assert options(state)[BLOCK] == 50  # the swords are back in position


def test_R5_2_no_dodge_with_a_disabled_leg_but_parry_stays() -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, """
        Gorbag: second
        Snaga: attack
        Snaga rolls 22       # hits; ends in 2: disabling
        Gorbag: dodge
        Gorbag rolls 99      # fails
        Snaga rolls 85       # left leg, disabled
        Gorbag: yield
        Snaga: reject
        Snaga: attack
        Snaga rolls 23       # hits
    """)
    assert set(options(state)) == {BLOCK, PARRY, LUCK}
    with pytest.raises(Unavailable):
        play(state, "Gorbag: dodge")


def test_R5_3_a_successful_defence_stops_the_attack_entirely() -> None:
    state = fight("practice", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 23      # hits
        Snaga: block
        Snaga rolls 40       # block 40 succeeds (roll <= chance)
    """)
    assert only(events, DamageRolled) == []
    assert state.fighters[1].injuries == {}
    assert state.awaiting == wants_action(1)  # no damage roll: Snaga's turn


def test_R5_4_press_penalty_leaves_only_luck_for_one_opponent_turn() -> None:
    state = fight("practice", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: press
        Gorbag rolls 99      # 60 + 25 = 85: misses
        Snaga: attack
        Snaga rolls 23       # hits
    """)
    assert DefenceChosen(0, LUCK) in events  # nothing to choose
    assert state.awaiting == defence_roll(0, 5)
    with pytest.raises(RulesError):
        play(state, "Gorbag: dodge")
    state, _ = play(state, """
        Gorbag rolls 6       # luck 5 fails
        Snaga rolls 65       # right leg, wound
        Gorbag: attack
        Gorbag rolls 99      # misses
        Snaga: attack
        Snaga rolls 23       # hits
    """)
    assert options(state) == {DODGE: 50, BLOCK: 40, PARRY: 40, LUCK: 5}  # penalty over


@pytest.mark.parametrize("weapon", ["club", "shortsword"])
def test_R5_4_club_or_single_shortsword_double_brings_the_press_penalty(weapon: str) -> None:
    state = fight("practice", armed("Ardan", weapon, bp=5), armed("Brecc", "club"))
    assert state.fighters[0].weapon is Weapon(weapon)
    state, events = play(state, """
        Ardan: first
        Ardan: double
        Ardan rolls 99       # 60 - 10 = 50: misses
        Ardan rolls 99       # 50: misses
        Brecc: attack
        Brecc rolls 23       # 60: hits
    """)
    assert DefenceChosen(0, LUCK) in events
    assert state.awaiting == defence_roll(0, 5)


def test_R5_4_press_penalty_takes_no_test_bonus_into_account() -> None:
    state = fight("practice", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: second
        Snaga: test
        Snaga rolls 20       # test 40: succeeds
        Gorbag: dodge
        Gorbag rolls 99      # the defence fails: Snaga earns 30 (undeclared: reduce)
        Gorbag: press
        Gorbag rolls 99      # 85: misses; Gorbag is under the Press penalty
        Snaga: attack
        Snaga rolls 23       # 60: hits
    """)
    assert BonusEarned(1, 30) in events
    # Luck 5, not 5 - 30: the reduce bonus does not touch the penalty roll.
    assert state.awaiting == defence_roll(0, 5)


def test_R5_4_press_penalty_covers_the_dodge_against_a_close() -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, """
        Gorbag: second
        Snaga: test
        Snaga rolls 20       # test 40: succeeds
        Gorbag: dodge
        Gorbag rolls 99      # fails: Snaga earns 30, undeclared: reduce
        Gorbag: press
        Gorbag rolls 99      # misses; Gorbag is under the Press penalty
        Snaga: close
        Snaga rolls 10       # Snaga's own dodge 50 succeeds
    """)
    # Gorbag's resisting Dodge is a defensive roll: Luck 5, and the reduce bonus
    # does not touch it.
    assert state.awaiting == Awaiting(0, Need.ROLL, RollFor.RESIST, 5)


def test_R5_4_press_penalty_applies_to_the_defence_against_a_test() -> None:
    state = fight("practice", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: press
        Gorbag rolls 99      # misses
        Snaga: test
        Snaga rolls 20       # test 40: succeeds
    """)
    assert DefenceChosen(0, LUCK) in events
    assert state.awaiting == defence_roll(0, 5)
    state, events = play(state, """
        Gorbag rolls 3       # luck succeeds with 3 <= the test roll 20: no bonus
    """)
    assert only(events, BonusEarned) == []
    assert state.awaiting == wants_action(0)


def test_R5_5_luck_is_5_even_with_a_defence_bonus() -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, """
        Gorbag: second
        Snaga: test
        Snaga rolls 20       # test 40: succeeds
        Gorbag: parry
        Gorbag rolls 99      # fails: Snaga earns 30
        Snaga: bonus defence # for Gorbag's coming turn
        Gorbag: attack
        Gorbag rolls 23      # hits
    """)
    assert options(state) == {DODGE: 80, BLOCK: 70, PARRY: 70, LUCK: 5}
    state, _ = play(state, "Snaga: luck")
    assert state.awaiting == defence_roll(1, 5)


def test_R5_5_luck_is_5_even_against_a_reduce_bonus() -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, """
        Gorbag: second
        Snaga: test
        Snaga rolls 20       # test 40: succeeds
        Gorbag: parry
        Gorbag rolls 99      # fails: Snaga earns 30, undeclared: reduce
        Gorbag: attack
        Gorbag rolls 99      # misses
        Snaga: attack
        Snaga rolls 23       # hits
    """)
    assert options(state) == {DODGE: 20, BLOCK: 10, PARRY: 10, LUCK: 5}
    state, _ = play(state, "Gorbag: luck")
    assert state.awaiting == defence_roll(0, 5)


# ======================================================================================
# R6 Damage
# ======================================================================================


def test_R6_1_damage_is_read_on_the_defenders_armour_column() -> None:
    olaf = warrior("Olaf", "free-clans", "broadsword", "shield", armour="highlander",
                   broadsword=60, shield=40, move=30)
    state = fight("practice", gorbag(), olaf)
    state, events = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 23      # club 60 - 5 (length 1 vs 2) = 55: hits; wound
        Olaf: dodge
        Olaf rolls 99        # fails
        Gorbag rolls 9       # Highlander: 9 is Torso (on None it would kill)
    """)
    assert only(events, DamageRolled) == [DamageRolled(0, 9, Hit.TORSO, W)]
    assert only(events, Injured) == [Injured(1, TORSO, W, InjuryRule.RECORDED, False)]
    state, events = play(state, """
        Olaf: attack
        Olaf rolls 25        # broadsword 60 + 5 = 65: hits
        Gorbag: dodge
        Gorbag rolls 99      # fails
        Olaf rolls 9         # None: 9 is a Kill
    """)
    assert only(events, DamageRolled) == [DamageRolled(1, 9, Hit.KILL, None)]
    assert ended(state, Ending.KILL, 1)


@pytest.mark.parametrize(
    ("weapon", "roll", "severity"),
    [
        ("club", 22, D), ("club", 23, W),                # rating 2
        ("shortsword", 23, D), ("shortsword", 24, W),    # rating 3
        ("spear", 23, D), ("spear", 24, W),              # rating 3
        ("broadsword", 24, D), ("broadsword", 25, W),    # rating 4
        ("axe", 25, D), ("axe", 26, W),                  # rating 5
        ("lajatang", 25, D), ("lajatang", 26, W),        # rating 5
        ("greatsword", 27, D), ("greatsword", 28, W),    # rating 7
    ],
)
def test_R6_2_last_digit_against_damage_rating(weapon: str, roll: int, severity: Severity) -> None:
    state = fight("practice", armed("Ardan", weapon, bp=5), armed("Brecc", weapon))
    state, events = play(state, f"""
        Ardan: first
        Ardan: attack
        Ardan rolls {roll}      # 60 (mirror match): hits
        Brecc: dodge
        Brecc rolls 99       # fails
        Ardan rolls 50       # off arm
    """)
    assert only(events, DamageRolled) == [DamageRolled(0, 50, Hit.OFF_ARM, severity)]
    assert state.fighters[1].injuries == {OFF_ARM: severity}


@pytest.mark.parametrize(("action", "roll"), [("attack", 30), ("press", 60)])
def test_R6_2_last_digit_0_always_disables(action: str, roll: int) -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, f"""
        Gorbag: first
        Gorbag: {action}
        Gorbag rolls {roll}     # hits (60, or 85 pressing); 0 <= any damage rating
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls 50      # off arm
    """)
    assert state.fighters[1].injuries == {OFF_ARM: D}


def test_R6_2_roll_100_never_hits_so_never_disables() -> None:
    state = fight("practice", gorbag(club=80), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: press
    """)
    assert state.awaiting == Awaiting(0, Need.ROLL, RollFor.ATTACK, 105)
    state, events = play(state, "Gorbag rolls 100   # always fails, even at 105")
    assert only(events, DamageRolled) == []
    assert state.awaiting == wants_action(1)


def test_R6_2_a_test_never_rolls_damage() -> None:
    state = fight("practice", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: test
        Gorbag rolls 20      # test 41 (0.5 BP): succeeds
        Snaga: dodge
        Snaga rolls 99       # fails: a 30 bonus, and no damage
    """)
    assert BonusEarned(0, 30) in events
    assert only(events, DamageRolled) == []
    assert state.awaiting == wants_action(1)


DOWN_GORBAG = """
    Gorbag: second
    Snaga: attack
    Snaga rolls 22       # hits; ends in 2: disabling
    Gorbag: dodge
    Gorbag rolls 99      # fails
    Snaga rolls 70       # right leg disabled: Gorbag is down
"""
"""Turn 1: Snaga puts Gorbag on the ground; Gorbag's turn next."""


@pytest.mark.parametrize(
    ("damage", "hit"), [(4, Hit.KILL), (18, Hit.HEAD), (24, Hit.TORSO)]
)
@pytest.mark.parametrize(("roll", "severity"), [(23, W), (22, D)], ids=["wound", "disable"])
def test_R6_3_downed_striker_hits_leg(
    damage: int, hit: Hit, roll: int, severity: Severity
) -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, DOWN_GORBAG)
    state, events = play(state, f"""
        Gorbag: attack
        Gorbag rolls {roll}     # hits
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls {damage}      # even, {hit.value}: goes to a leg; both legs whole: right
    """)
    assert only(events, DamageRolled) == [DamageRolled(0, damage, hit, severity, RIGHT_LEG)]
    assert only(events, Injured) == [Injured(1, RIGHT_LEG, severity, InjuryRule.RECORDED, False)]
    assert state.outcome is None
    assert state.fighters[1].injuries == {RIGHT_LEG: severity}


def test_R6_3_downed_striker_picks_the_leg_that_kills() -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 23      # hits, wound
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls 16      # head wound
        Snaga: attack
        Snaga rolls 22       # hits, disabling
        Gorbag: dodge
        Gorbag rolls 99      # fails
        Snaga rolls 70       # Gorbag's right leg disabled: Gorbag is down
        Gorbag: attack
        Gorbag rolls 23      # hits, wound
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls 63      # right leg wound (a leg row: nothing to divert)
        Snaga: yield
        Gorbag: reject
        Gorbag: attack
        Gorbag rolls 24      # hits, wound
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls 35      # weapon arm wound (an arm row: nothing to divert)
        Snaga: yield
        Gorbag: reject
        Gorbag: attack
        Gorbag rolls 25      # hits, wound
        Snaga: dodge
        Snaga rolls 99       # fails
    """)
    assert state.fighters[1].injuries == {HEAD: W, RIGHT_LEG: W, WEAPON_ARM: W}
    state, events = play(state, """
        Gorbag rolls 26      # even Torso: on the wounded right leg a disable, on the
                             # left leg a fourth area, a kill: the left leg
    """)
    assert only(events, DamageRolled) == [DamageRolled(0, 26, Hit.TORSO, W, LEFT_LEG)]
    assert only(events, Injured) == [Injured(1, LEFT_LEG, W, InjuryRule.FOUR_AREAS, True)]
    assert ended(state, Ending.KILL, 0)


def test_R6_3_downed_striker_prefers_a_new_disable_to_a_new_wound() -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, DOWN_GORBAG + """
        Gorbag: attack
        Gorbag rolls 23      # hits, wound
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls 85      # left leg wound (leg row: not diverted)
        Snaga: yield
        Gorbag: reject
        Gorbag: attack
        Gorbag rolls 23      # hits, wound
        Snaga: dodge
        Snaga rolls 99       # fails
    """)
    assert state.fighters[1].injuries == {LEFT_LEG: W}
    state, events = play(state, """
        Gorbag rolls 18      # even Head: right leg would be a new wound, the wounded
                             # left leg becomes disabled: the left leg
    """)
    assert only(events, DamageRolled) == [DamageRolled(0, 18, Hit.HEAD, W, LEFT_LEG)]
    assert only(events, Injured) == [Injured(1, LEFT_LEG, D, InjuryRule.REWOUNDED, False)]
    assert state.fighters[1].injuries == {LEFT_LEG: D}


def test_R6_3_no_diversion_when_the_opponent_is_also_down() -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, DOWN_GORBAG + """
        Gorbag: attack
        Gorbag rolls 22      # hits, disabling
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls 90      # left leg disabled: Snaga is down too
        Snaga: yield
        Gorbag: reject
        Gorbag: attack
        Gorbag rolls 23      # hits
        Snaga: parry
        Snaga rolls 99       # fails
    """)
    assert state.fighters[0].down and state.fighters[1].down
    state, events = play(state, "Gorbag rolls 4   # even Kill, but both are down: a kill")
    assert only(events, DamageRolled) == [DamageRolled(0, 4, Hit.KILL, None)]
    assert ended(state, Ending.KILL, 0)


@pytest.mark.parametrize(
    ("damage", "hit", "location"),
    [(5, Hit.KILL, None), (17, Hit.HEAD, HEAD), (23, Hit.TORSO, TORSO)],
)
def test_R6_3_no_diversion_on_an_odd_damage_roll(
    damage: int, hit: Hit, location: Location | None
) -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, DOWN_GORBAG)
    state, events = play(state, f"""
        Gorbag: attack
        Gorbag rolls 23      # hits, wound
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls {damage}       # odd: the {hit.value} stands
    """)
    assert only(events, DamageRolled) == [
        DamageRolled(0, damage, hit, None if location is None else W)
    ]
    if location is None:
        assert ended(state, Ending.KILL, 0)
    else:
        assert state.fighters[1].injuries == {location: W}


# Turn 1 of the R6.4 tests: Gorbag hits Snaga with attack roll A and damage roll B.
def first_hit(attack: int, damage: int) -> str:
    return f"""
        Gorbag: first
        Gorbag: attack
        Gorbag rolls {attack}      # hits
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls {damage}
        Snaga: yield
        Gorbag: reject       # back to Gorbag
    """


def second_hit(attack: int) -> str:
    return f"""
        Gorbag: attack
        Gorbag rolls {attack}      # hits
        Snaga: parry
        Snaga rolls 99       # fails
    """


@pytest.mark.parametrize(("roll", "severity", "killed"), [(23, W, False), (22, D, True)])
def test_R6_4_step1_disabled_arm_hit_becomes_torso(
    roll: int, severity: Severity, killed: bool
) -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, first_hit(22, 35) + second_hit(roll))  # weapon arm disabled
    assert state.fighters[1].injuries == {WEAPON_ARM: D}
    state, events = play(state, "Gorbag rolls 40   # the disabled weapon arm again")
    assert only(events, Injured) == [
        Injured(1, TORSO, severity, InjuryRule.ARM_TO_TORSO, killed)
    ]
    if killed:  # a disabling Torso hit
        assert ended(state, Ending.KILL, 0)
    else:
        assert state.fighters[1].injuries == {WEAPON_ARM: D, TORSO: W}


@pytest.mark.parametrize("roll", [23, 22], ids=["wound", "disable"])
def test_R6_4_step2_disabled_leg_hit_has_no_further_effect(roll: int) -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, first_hit(22, 70) + second_hit(roll))  # right leg disabled
    state, events = play(state, "Gorbag rolls 75   # the disabled right leg again")
    severity = D if roll == 22 else W
    assert only(events, Injured) == [
        Injured(1, RIGHT_LEG, severity, InjuryRule.DISABLED_LEG, False)
    ]
    assert state.fighters[1].injuries == {RIGHT_LEG: D}
    assert state.outcome is None and state.awaiting == wants_action(1)


@pytest.mark.parametrize(
    ("first", "again", "location"), [(16, 20, HEAD), (21, 30, TORSO)], ids=["head", "torso"]
)
def test_R6_4_step3_wounded_head_or_torso_hit_again_kills(
    first: int, again: int, location: Location
) -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, first_hit(23, first) + second_hit(23))
    assert state.fighters[1].injuries == {location: W}
    state, events = play(state, f"Gorbag rolls {again}   # the wounded {location.value}")
    assert only(events, Injured) == [Injured(1, location, W, InjuryRule.REWOUNDED, True)]
    assert ended(state, Ending.KILL, 0)


@pytest.mark.parametrize(
    ("first", "again", "location"),
    [(31, 45, WEAPON_ARM), (46, 60, OFF_ARM), (61, 80, RIGHT_LEG), (81, 100, LEFT_LEG)],
)
def test_R6_4_step3_wounded_limb_hit_again_is_disabled(
    first: int, again: int, location: Location
) -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, first_hit(23, first) + second_hit(23))
    state, events = play(state, f"Gorbag rolls {again}   # the wounded {location.value}, a wound")
    assert only(events, Injured) == [Injured(1, location, D, InjuryRule.REWOUNDED, False)]
    assert state.fighters[1].injuries == {location: D}
    assert state.outcome is None


@pytest.mark.parametrize(("damage", "location"), [(17, HEAD), (25, TORSO)])
def test_R6_4_step4_disabling_head_or_torso_hit_kills(damage: int, location: Location) -> None:
    state = fight("practice", gorbag(), snaga())
    state, events = play(state, f"""
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 21      # hits; ends in 1: disabling
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls {damage}      # {location.value}
    """)
    assert only(events, Injured) == [Injured(1, location, D, InjuryRule.RECORDED, True)]
    assert ended(state, Ending.KILL, 0)


def test_R6_4_step5_injuries_on_four_areas_kill() -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, first_hit(23, 35) + second_hit(23) + """
        Gorbag rolls 50      # off arm wound: two areas
        Snaga: yield
        Gorbag: reject
    """ + second_hit(23) + """
        Gorbag rolls 65      # right leg wound: three areas
        Snaga: yield
        Gorbag: reject
    """ + second_hit(23))
    assert state.fighters[1].injuries == {WEAPON_ARM: W, OFF_ARM: W, RIGHT_LEG: W}
    assert state.outcome is None  # three areas are not enough
    state, events = play(state, "Gorbag rolls 90   # left leg wound: a fourth area")
    assert only(events, Injured) == [Injured(1, LEFT_LEG, W, InjuryRule.FOUR_AREAS, True)]
    assert ended(state, Ending.KILL, 0)


# Snaga disables Ardan's weapon arm in turn 1 (roll 30: last digit 0 disables for any
# weapon), then it is Ardan's turn.
def weapon_arm_lost(defence: str = "parry") -> str:
    return f"""
        Ardan: second
        Brecc: attack
        Brecc rolls 30       # hits; last digit 0: disabling
        Ardan: {defence}
        Ardan rolls 99       # fails
        Brecc rolls 35       # weapon arm, disabled
    """


@pytest.mark.parametrize("weapon", ["axe", "broadsword", "club", "shortsword", "spear"])
def test_R6_5_disabled_weapon_arm_halves_attack(weapon: str) -> None:
    state = fight("practice", armed("Ardan", weapon, bp=5), armed("Brecc", weapon))
    state, _ = play(state, weapon_arm_lost())
    assert state.fighters[0].injuries == {WEAPON_ARM: D}
    state, _ = play(state, "Ardan: attack")
    assert state.awaiting == Awaiting(0, Need.ROLL, RollFor.ATTACK, 30)  # 60 // 2
    state, _ = play(state, """
        Ardan rolls 99       # misses
        Brecc: attack
        Brecc rolls 99       # misses
        Ardan: press
    """)
    assert state.awaiting == Awaiting(0, Need.ROLL, RollFor.ATTACK, 55)  # 60 // 2 + 25


def test_R6_5_two_handed_spear_loses_the_bonus_and_half_skill() -> None:
    state = fight("practice", armed("Ardan", "spear", bp=5), armed("Brecc", "spear"))
    state, _ = play(state, """
        Ardan: wield spear two-handed
        Ardan: first
        Ardan: attack
    """)
    assert state.awaiting == Awaiting(0, Need.ROLL, RollFor.ATTACK, 70)  # 60 + 10
    state, _ = play(state, """
        Ardan rolls 99       # misses
        Brecc: attack
        Brecc rolls 30       # 60: hits; disabling
        Ardan: dodge
        Ardan rolls 99       # fails
        Brecc rolls 35       # weapon arm disabled
        Ardan: attack
    """)
    assert state.awaiting == Awaiting(0, Need.ROLL, RollFor.ATTACK, 30)  # 60 // 2, no +10


def test_R6_5_two_handed_spear_with_a_wounded_arm_loses_only_the_bonus() -> None:
    state = fight("practice", armed("Ardan", "spear", bp=5), armed("Brecc", "spear"))
    state, _ = play(state, """
        Ardan: wield spear two-handed
        Ardan: second
        Brecc: attack
        Brecc rolls 24       # 60: hits; ends in 4 > 3: a wound
        Ardan: dodge
        Ardan rolls 99       # fails
        Brecc rolls 50       # off arm wound
        Ardan: attack
    """)
    assert state.awaiting == Awaiting(0, Need.ROLL, RollFor.ATTACK, 60)


@pytest.mark.parametrize(
    ("weapon", "secondary", "expected"),
    [
        # Greatsword 60 draws Axe 50: 50 // 2 = 25, +5 (length 2 vs club 1).
        ("greatsword", Weapon.AXE, 30),
        # Lajatang 60 draws Shortsword 50: 25, same length as the club.
        ("lajatang", Weapon.SHORTSWORD, 25),
    ],
)
def test_R6_5_two_hander_spends_a_turn_drawing_and_defends_with_dodge_only(
    weapon: str, secondary: Weapon, expected: int
) -> None:
    state = fight("practice", armed("Ardan", weapon, bp=5), armed("Brecc", "club"))
    state, events = play(state, """
        Ardan: second
        Brecc: attack
        Brecc rolls 30       # club 60 - 10 (length 1 vs 3) = 50: hits; last digit 0
        Ardan: parry
        Ardan rolls 99       # fails
        Brecc rolls 35       # weapon arm disabled
    """)
    # Ardan's turn 2 went to drawing: no action, and it is Brecc's turn again.
    assert TurnStarted(0, 2) in events
    assert WeaponDrawn(0, secondary) in events
    assert [e for e in only(events, ActionTaken) if e.side == 0] == []
    assert state.awaiting == wants_action(1) and state.turn == 3
    assert state.fighters[0].weapon is secondary
    state, _ = play(state, """
        Brecc: attack
        Brecc rolls 23       # 60 - (length difference with the drawn weapon): hits
    """)
    assert set(options(state)) == {DODGE, LUCK}  # still before Ardan's first turn with it
    with pytest.raises(Unavailable):
        play(state, "Ardan: parry")
    state, _ = play(state, """
        Ardan: dodge
        Ardan rolls 10       # dodge 50 succeeds
        Ardan: attack
    """)
    assert state.awaiting == Awaiting(0, Need.ROLL, RollFor.ATTACK, expected)
    state, _ = play(state, """
        Ardan rolls 70       # misses (under 81: no free attack)
        Brecc: attack
        Brecc rolls 23       # hits
    """)
    assert set(options(state)) == {DODGE, PARRY, LUCK}  # no shield with the drawn weapon


def test_R6_5_pair_with_weapon_arm_disabled_cannot_double_but_is_otherwise_whole() -> None:
    state = fight("practice", fiall(), snaga())
    state, _ = play(state, """
        Fiall: wield countersword
        Fiall: second
        Snaga: attack
        Snaga rolls 30       # hits; disabling
        Fiall: dodge
        Fiall rolls 99       # fails
        Snaga rolls 35       # weapon arm disabled
    """)
    assert Action.DOUBLE not in turn_actions(state)
    with pytest.raises(Unavailable):
        play(state, "Fiall: double")
    state, _ = play(state, "Fiall: attack")
    assert state.awaiting == Awaiting(0, Need.ROLL, RollFor.ATTACK, 60)  # not halved


def test_R6_5_pair_with_off_arm_disabled_doubles_by_the_shortsword_rule() -> None:
    state = fight("practice", fiall(), snaga())
    state, _ = play(state, """
        Fiall: wield countersword
        Fiall: second
        Snaga: attack
        Snaga rolls 30       # hits; disabling
        Fiall: dodge
        Fiall rolls 99       # fails
        Snaga rolls 50       # off arm disabled
        Fiall: double
    """)
    assert state.awaiting == Awaiting(0, Need.ROLL, RollFor.ATTACK, 50)  # 60 - 10
    state, _ = play(state, "Fiall rolls 99   # misses")
    assert state.awaiting == Awaiting(0, Need.ROLL, RollFor.ATTACK, 50)  # 60 - 10 again
    state, _ = play(state, """
        Fiall rolls 99       # misses
        Snaga: attack
        Snaga rolls 23       # hits
    """)
    assert state.awaiting == defence_roll(0, 5)  # the Press penalty follows


def test_R6_5_both_arms_disabled_only_yield_or_flee() -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, """
        Gorbag: second
        Snaga: attack
        Snaga rolls 30       # hits; disabling
        Gorbag: dodge
        Gorbag rolls 99      # fails
        Snaga rolls 35       # weapon arm disabled
        Gorbag: yield
        Snaga: reject
        Snaga: attack
        Snaga rolls 22       # hits; disabling
        Gorbag: dodge
        Gorbag rolls 99      # fails
        Snaga rolls 55       # off arm disabled
    """)
    assert state.fighters[0].injuries == {WEAPON_ARM: D, OFF_ARM: D}
    assert state.awaiting == wants_action(0)
    assert turn_actions(state) == {Action.YIELD, Action.FLEE}
    for action in ("attack", "double", "press", "test", "close"):
        with pytest.raises(Unavailable):
            play(state, f"Gorbag: {action}")


def test_R6_5_disabled_leg_no_close_open_dodge_or_flee() -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, DOWN_GORBAG)
    assert turn_actions(state) == {Action.ATTACK, Action.DOUBLE, Action.PRESS, Action.TEST,
                                   Action.YIELD}
    for action in ("close", "open", "flee"):
        with pytest.raises(Unavailable):
            play(state, f"Gorbag: {action}")
    state, _ = play(state, """
        Gorbag: attack
        Gorbag rolls 99      # misses
        Snaga: attack
        Snaga rolls 23       # hits
    """)
    assert DODGE not in options(state)


def test_R6_6_defences_keep_their_fight_start_values_after_a_disable() -> None:
    olaf = warrior("Olaf", "free-clans", "broadsword", "shield", armour="none", bp=5,
                   broadsword=60, shield=50, move=30)
    brude = warrior("Brude", "free-clans", "broadsword", "shield", armour="none",
                    broadsword=60, shield=50, move=30)
    state = fight("practice", olaf, brude)
    start = state.fighters[0].defences
    assert (start.dodge, start.block, start.parry) == (50, 50, 40)
    state, _ = play(state, """
        Olaf: second
        Brude: attack
        Brude rolls 30       # broadsword 60: hits; disabling
        Olaf: dodge
        Olaf rolls 99        # fails
        Brude rolls 35       # weapon arm disabled: attacks at 30 from now on
        Olaf: attack
        Olaf rolls 99        # misses
        Brude: attack
        Brude rolls 24       # hits
    """)
    assert state.fighters[0].defences == start
    # Parry stays 10 + 60 // 2 (not 10 + 30 // 2); Block goes (R5.2), it is not lowered.
    assert options(state) == {DODGE: 50, PARRY: 40, LUCK: 5}
    state, _ = play(state, """
        Olaf: parry
        Olaf rolls 99        # fails
        Brude rolls 65       # right leg, ends in 4: disabled
        Olaf: attack
        Olaf rolls 99        # misses
        Brude: attack
        Brude rolls 24       # hits
    """)
    assert options(state) == {PARRY: 40, LUCK: 5}


def test_R6_6_pair_keeps_its_block_with_the_weapon_arm_disabled() -> None:
    state = fight("practice", fiall(), snaga())
    state, _ = play(state, """
        Fiall: wield countersword
        Fiall: second
        Snaga: attack
        Snaga rolls 30       # hits; disabling
        Fiall: block
        Fiall rolls 99       # block 50 fails
        Snaga rolls 35       # weapon arm disabled
        Fiall: attack
        Fiall rolls 99       # misses
        Snaga: attack
        Snaga rolls 23       # hits
    """)
    assert options(state) == {DODGE: 50, BLOCK: 50, PARRY: 40, LUCK: 5}


# ======================================================================================
# R7 Ending and rewards
# ======================================================================================


def test_R7_1_nothing_is_accepted_after_the_fight_ends() -> None:
    state = fight("practice", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 23      # hits
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls 15      # kill
    """)
    assert ended(state, Ending.KILL, 0)
    assert only(events, FightEnded) == [FightEnded(Outcome(Ending.KILL, 0))]
    for line in ("Snaga: attack", "Snaga rolls 5", "mod: end draw", "Snaga: forfeit"):
        with pytest.raises(FightOver):
            play(state, line)


def test_R7_2_practice_winner_two_tenths_loser_one_tenth() -> None:
    state = fight("practice", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 23      # hits
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls 1       # kill
    """)
    assert awards(events) == [BPAwarded(0, 2, AwardReason.WIN), BPAwarded(1, 1, AwardReason.LOSS)]
    assert only(events, WarriorSlain) == []  # practice: "dead" is not really dead


def test_R7_2_duel_goes_on_after_no_effect_and_ends_at_first_blood() -> None:
    # Leather (No Effect 65-100) on both sides.
    state = fight("duel", gorbag(), snaga(armour="leather"))
    state, events = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 23      # hits
        Snaga: dodge
        Snaga rolls 99       # fails (dodge 30 in leather)
        Gorbag rolls 80      # Leather: No Effect, the duel goes on
    """)
    assert state.outcome is None and state.awaiting == wants_action(1)
    state, events = play(state, """
        Snaga: attack
        Snaga rolls 23       # hits
        Gorbag: dodge
        Gorbag rolls 99      # fails
        Snaga rolls 65       # None: right leg wound, first blood
    """)
    assert ended(state, Ending.FIRST_BLOOD, 1)
    assert awards(events) == [BPAwarded(1, 2, AwardReason.WIN), BPAwarded(0, 1, AwardReason.LOSS)]


def test_R7_2_duel_first_blood_stops_a_double_before_its_second_damage_roll() -> None:
    state = fight("duel", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: double
        Gorbag rolls 23      # 50: hits
        Gorbag rolls 24      # 50: hits
        Snaga: dodge
        Snaga rolls 99       # fails
        Snaga: parry
        Snaga rolls 99       # fails
        Gorbag rolls 50      # off arm wound: first blood, nothing more is rolled
    """)
    assert ended(state, Ending.FIRST_BLOOD, 0)
    assert len(only(events, DamageRolled)) == 1
    with pytest.raises(FightOver):
        play(state, "Gorbag rolls 60")


def test_R7_2_duel_kill_is_rewarded_like_practice() -> None:
    state = fight("duel", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 23      # hits
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls 10      # kill
    """)
    # The engine calls this ending a kill, not first blood; the winner and BP agree.
    assert state.outcome is not None and state.outcome.winner == 0
    assert awards(events) == [BPAwarded(0, 2, AwardReason.WIN), BPAwarded(1, 1, AwardReason.LOSS)]
    assert only(events, WarriorSlain) == []


def test_R7_2_mortal_kill_half_each_plus_one_for_the_slayer() -> None:
    state = fight("mortal", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 23      # hits
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls 7       # kill
    """)
    assert ended(state, Ending.KILL, 0)
    assert awards(events) == [
        BPAwarded(0, 5, AwardReason.MORTAL),
        BPAwarded(1, 5, AwardReason.MORTAL),
        BPAwarded(0, 10, AwardReason.SLAIN),
    ]
    assert only(events, WarriorSlain) == [WarriorSlain(1)]


def test_R7_2_mortal_prisoner_half_each_plus_one_for_the_captor() -> None:
    state = fight("mortal", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 99      # misses
        Snaga: yield
        Gorbag: accept prisoner ransom ten goats
    """)
    assert state.outcome == Outcome(Ending.YIELD, 0, True, "ten goats")
    assert awards(events) == [
        BPAwarded(0, 5, AwardReason.MORTAL),
        BPAwarded(1, 5, AwardReason.MORTAL),
        BPAwarded(0, 10, AwardReason.CAPTURED),
    ]
    assert only(events, PrisonerTaken) == [PrisonerTaken(1, 0, "ten goats")]
    assert only(events, WarriorSlain) == []


def test_R7_2_mortal_yield_released_is_half_each_only() -> None:
    state = fight("mortal", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: yield
        Snaga: accept release
    """)
    assert ended(state, Ending.YIELD, 1)
    assert awards(events) == [BPAwarded(1, 5, AwardReason.MORTAL),
                              BPAwarded(0, 5, AwardReason.MORTAL)]
    assert only(events, PrisonerTaken) == []


@pytest.mark.parametrize(("kind", "each"), [("practice", 1), ("duel", 1), ("mortal", 5)])
def test_R7_2_moderators_draw_gives_each_the_losers_award(kind: str, each: int) -> None:
    state = fight(kind, gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        mod: end draw        # a moderator calls it
    """)
    assert ended(state, Ending.DRAW, None)
    assert awards(events) == [BPAwarded(0, each, AwardReason.DRAW),
                              BPAwarded(1, each, AwardReason.DRAW)]
    assert only(events, WarriorSlain) == [] and only(events, PrisonerTaken) == []


def test_R7_2_an_escape_is_a_loss_for_the_one_who_fled() -> None:
    state = fight("practice", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: flee         # standard range, legs whole
        Snaga: stop
        Snaga rolls 99       # the stop (dodge 50) fails: Snaga's last turn
        Snaga: attack
        Snaga rolls 99       # misses: Gorbag is away
    """)
    assert ended(state, Ending.ESCAPE, 1)
    assert awards(events) == [BPAwarded(1, 2, AwardReason.WIN), BPAwarded(0, 1, AwardReason.LOSS)]


def test_R7_2_mortal_escape_half_each_and_no_deed() -> None:
    state = fight("mortal", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: flee
        Snaga: attack        # no stop: straight to the last turn
        Snaga rolls 23       # hits; Gorbag has only Luck
        Gorbag rolls 50      # luck 5 fails
        Snaga rolls 50       # off arm wound: not a leg, so Gorbag is away
    """)
    assert ended(state, Ending.ESCAPE, 1)
    assert awards(events) == [BPAwarded(1, 5, AwardReason.MORTAL),
                              BPAwarded(0, 5, AwardReason.MORTAL)]


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("practice", [BPAwarded(0, 2, AwardReason.WIN), BPAwarded(1, 1, AwardReason.LOSS)]),
        ("mortal", [BPAwarded(0, 5, AwardReason.MORTAL), BPAwarded(1, 5, AwardReason.MORTAL)]),
    ],
)
def test_R7_2_a_forfeit_is_a_loss_for_the_forfeiter(kind: str, expected: list[BPAwarded]) -> None:
    state = fight(kind, gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 23      # hits
        Snaga: forfeit       # Snaga let the time run out choosing a defence
    """)
    assert ended(state, Ending.FORFEIT, 0)
    assert awards(events) == expected


def test_R7_3_each_award_is_its_own_event_row() -> None:
    state = fight("mortal", gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 23      # hits
        Snaga: dodge
        Snaga rolls 99       # fails
        Gorbag rolls 2       # kill
    """)
    rows = awards(events)
    assert len(rows) == 3
    assert sum(r.tenths for r in rows if r.side == 0) == 15  # 0.5 + 1.0
    assert sum(r.tenths for r in rows if r.side == 1) == 5


def test_R7_4_only_the_awaited_side_forfeits() -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 23      # hits: the fight waits for Snaga's defence
    """)
    assert state.awaiting == Awaiting(1, Need.DEFENCE)
    with pytest.raises(NotYourTurn):
        play(state, "Gorbag: forfeit")
    state, events = play(state, "Snaga: forfeit")
    assert ended(state, Ending.FORFEIT, 0)
    assert awards(events) == [BPAwarded(0, 2, AwardReason.WIN), BPAwarded(1, 1, AwardReason.LOSS)]


def test_R7_4_forfeit_while_the_fight_waits_for_a_roll() -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, """
        Gorbag: first
        Gorbag: attack       # the fight waits for Gorbag's attack roll
    """)
    with pytest.raises(NotYourTurn):
        play(state, "Snaga: forfeit")
    state, _ = play(state, "Gorbag: forfeit")
    assert ended(state, Ending.FORFEIT, 1)


# ======================================================================================
# R8.1 Moderators (engine side)
# ======================================================================================


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("practice", [BPAwarded(1, 2, AwardReason.WIN), BPAwarded(0, 1, AwardReason.LOSS)]),
        ("mortal", [BPAwarded(1, 5, AwardReason.MORTAL), BPAwarded(0, 5, AwardReason.MORTAL)]),
    ],
)
def test_R8_1_moderator_ends_with_a_winner(kind: str, expected: list[BPAwarded]) -> None:
    state = fight(kind, gorbag(), snaga())
    state, events = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 23      # hits: waiting on Snaga's defence
        mod: end Snaga misconduct by Gorbag
    """)
    assert ended(state, Ending.MODERATOR, 1)
    assert awards(events) == expected
    assert only(events, WarriorSlain) == []


def test_R8_1_moderator_ends_as_a_draw_at_any_point() -> None:
    state = fight("practice", gorbag(), snaga())
    state, _ = play(state, "mod: end draw   # before anyone has even chosen the order")
    assert ended(state, Ending.DRAW, None)


def record(state: FightState, script: str) -> tuple[FightState, list[Command], list[Event]]:
    """Play a transcript, keeping the parsed commands as a replay log."""
    commands: list[Command] = []
    events: list[Event] = []
    for raw in script.strip().splitlines():
        if not raw.split("#", 1)[0].strip():
            continue
        cmd = command(state, raw)
        state, new = apply(state, cmd)
        commands.append(cmd)
        events.extend(new)
    return state, commands, events


# An undo takes back ONE decision (any command but a Roll: an action, a defence, an
# answer, an order or loadout choice, a bonus declaration, a forfeit or a moderator's
# end) and the rolls after it, and no more (R8.1 as the club applies it).

BEFORE_LAST_ACTION = """
    Gorbag: first
    Gorbag: attack
    Gorbag rolls 23      # hits
    Snaga: dodge
    Snaga rolls 99       # fails
    Gorbag rolls 35      # weapon arm wound
"""
LAST_ATTACK = """
    Snaga: attack
    Snaga rolls 22       # hits; disabling
"""
LAST_DEFENCE = """
    Gorbag: parry
    Gorbag rolls 99      # fails
    Snaga rolls 70       # right leg disabled
"""


def test_R8_1_undo_rebuilds_the_state_before_the_last_action_and_its_rolls() -> None:
    """The last decision is an action whose rolls are not all in: the undo cuts the Act
    and its attack roll, back to the turn's start."""
    sheets = (gorbag(), snaga())
    before, log, before_events = record(fight("practice", *sheets), BEFORE_LAST_ACTION)
    _, more, _ = record(before, LAST_ATTACK)
    log += more
    cut = undo_point(log)
    assert cut == len(log) - len(more)  # the last Act and the roll after it
    rebuilt, rebuilt_events = replay(Kind.PRACTICE, sheets, log[:cut])
    assert rebuilt == before
    assert rebuilt.awaiting == wants_action(1)
    assert list(rebuilt_events[-len(before_events):]) == before_events
    # The fight goes on from there with other rolls.
    state, _ = play(rebuilt, """
        Snaga: attack
        Snaga rolls 99       # misses this time
    """)
    assert state.awaiting == wants_action(0)


def test_R8_1_undo_after_a_whole_exchange_takes_back_only_the_last_decision() -> None:
    """Snaga's attack, Gorbag's parry and the damage are all in: the undo cuts the parry
    and the damage roll after it, and keeps Snaga's attack and its roll; a second undo
    takes back the attack."""
    sheets = (gorbag(), snaga())
    before, log, _ = record(fight("practice", *sheets), BEFORE_LAST_ACTION)
    attacked, attack, _ = record(before, LAST_ATTACK)
    state, defence, _ = record(attacked, LAST_DEFENCE)
    assert state.fighters[0].injuries == {RIGHT_LEG: D}
    log += attack + defence
    cut = undo_point(log)
    assert cut == len(log) - len(defence)
    rebuilt, _ = replay(Kind.PRACTICE, sheets, log[:cut])
    assert rebuilt == attacked
    assert rebuilt.fighters[0].injuries == {}
    assert rebuilt.awaiting == Awaiting(0, Need.DEFENCE)
    log = log[:cut]
    rebuilt, _ = replay(Kind.PRACTICE, sheets, log[:undo_point(log)])
    assert rebuilt == before


@pytest.mark.parametrize("after", ["", "Snaga rolls 99", "Snaga rolls 99\nGorbag rolls 35"],
                         ids=["no-roll", "defence-roll", "damage-roll"])
def test_R8_1_undo_of_a_defend_asks_the_same_defender_again_with_the_attack_roll_kept(
    after: str,
) -> None:
    sheets = (gorbag(), snaga())
    attacked, log, _ = record(fight("practice", *sheets), """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 23      # hits
    """)
    assert attacked.awaiting == Awaiting(1, Need.DEFENCE)
    _, more, _ = record(attacked, "Snaga: dodge     # the misclick\n" + after)
    log += more
    assert undo_point(log) == len(log) - len(more)
    rebuilt, _ = replay(Kind.PRACTICE, sheets, log[:undo_point(log)])
    assert rebuilt == attacked          # the state right after the attack roll
    state, events = play(rebuilt, """
        Snaga: parry         # what Snaga meant
        Snaga rolls 30       # parry 40: parried
    """)
    assert only(events, DefenceChosen) == [DefenceChosen(1, PARRY)]
    assert state.awaiting == wants_action(1)


def holding_30() -> tuple[FightState, list[Command]]:
    """Gorbag Tests in turn 1 (40, roll 20) and Snaga's parry fails: Gorbag holds 30;
    Snaga's attack hits and Gorbag chooses to dodge (50)."""
    state, log, events = record(fight("practice", gorbag(), snaga()), """
        Gorbag: first
        Gorbag: test
        Gorbag rolls 20
        Snaga: parry
        Snaga rolls 95       # fails: bonus 30
        Snaga: attack
        Snaga rolls 23       # hits
        Gorbag: dodge
    """)
    assert only(events, BonusEarned) == [BonusEarned(0, 30)]
    assert state.awaiting == defence_roll(0, 50)
    return state, log


def test_R8_1_undo_of_a_bonus_declaration_alone() -> None:
    sheets = (gorbag(), snaga())
    before, log = holding_30()
    declared, more, _ = record(before, "Gorbag: bonus defence")
    assert declared.awaiting == defence_roll(0, 80)
    log += more
    assert undo_point(log) == len(log) - 1      # the declaration and nothing else
    rebuilt, _ = replay(Kind.PRACTICE, sheets, log[:undo_point(log)])
    assert rebuilt == before
    assert rebuilt.fighters[0].bonus is not None and rebuilt.fighters[0].bonus.use is None
    assert rebuilt.awaiting == defence_roll(0, 50)
    # undeclared again, so it may be declared (once) again
    state, _ = play(rebuilt, "Gorbag: bonus reduce")
    assert state.awaiting == defence_roll(0, 50)


def test_R8_1_undo_of_a_bonus_declaration_takes_the_rolls_after_it() -> None:
    sheets = (gorbag(), snaga())
    before, log = holding_30()
    _, more, _ = record(before, """
        Gorbag: bonus defence
        Gorbag rolls 75      # dodge 50 + 30: dodged
    """)
    log += more
    rebuilt, _ = replay(Kind.PRACTICE, sheets, log[:undo_point(log)])
    assert rebuilt == before                    # the dodge roll went with it


def test_R8_1_undo_takes_back_a_free_attack_only_with_the_action_that_caused_it() -> None:
    """A free attack (R4.10) is no decision of its own: undoing the defence against it
    keeps its rolls, and the next undo takes it back with the attack that caused it."""
    sheets = (armed("Ardan", "axe", bp=5), armed("Brecc", "club"))
    before, log, _ = record(fight("practice", *sheets), "Ardan: first")
    free, more, _ = record(before, """
        Ardan: attack
        Ardan rolls 85       # axe 60 + 5: misses with 81 or more: Brecc's free attack
        Brecc rolls 23       # club 60 - 5 = 55: hits
    """)
    assert free.awaiting == Awaiting(0, Need.DEFENCE)
    state, defence, _ = record(free, """
        Ardan: dodge
        Ardan rolls 99       # fails
        Brecc rolls 50       # off arm wound
    """)
    assert state.fighters[0].injuries == {OFF_ARM: W}
    log += more + defence
    log = log[:undo_point(log)]
    rebuilt, _ = replay(Kind.PRACTICE, sheets, log)
    assert rebuilt == free                      # Ardan defends against the free attack again
    rebuilt, _ = replay(Kind.PRACTICE, sheets, log[:undo_point(log)])
    assert rebuilt == before


def test_R8_1_undo_of_a_moderators_end_reopens_the_fight() -> None:
    sheets = (gorbag(), snaga())
    before, log, _ = record(fight("practice", *sheets), "Gorbag: first")
    _, more, _ = record(before, "mod: end Gorbag")
    log += more
    rebuilt, _ = replay(Kind.PRACTICE, sheets, log[:undo_point(log)])
    assert rebuilt == before and rebuilt.outcome is None


def test_R8_1_undo_with_only_rolls_is_refused() -> None:
    with pytest.raises(IllegalCommand):
        undo_point([])
    # Equal BP: only initiative rolls so far, no decision to take back.
    sheets = (armed("Ardan", "club"), armed("Brecc", "club"))
    rolled, log, _ = record(fight("practice", *sheets), """
        Ardan rolls 60       # initiative
        Brecc rolls 40       # initiative: Ardan chooses
    """)
    with pytest.raises(IllegalCommand, match="nothing to undo"):
        undo_point(log)
    # Once Ardan has chosen, the undo takes back the choice and keeps the rolls.
    _, more, _ = record(rolled, "Ardan: first")
    log += more
    assert undo_point(log) == 2
    rebuilt, _ = replay(Kind.PRACTICE, sheets, log[:2])
    assert rebuilt == rolled and rebuilt.awaiting == Awaiting(0, Need.ORDER)
