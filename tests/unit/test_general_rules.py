"""General rules (R10 of ``docs/rulings.md``): the skirmish engine and
the travel tool.

Each test is named after the ruling it checks (``docs/rulings.md``); each worked
example of the rule text is a test with the text's own numbers.

The cast (skills tested on d20, success at or under):

- Olaf: Broadsword 14 (1d10), Base Damage 1d8, Chainmail: Defense 2, Protection 4.
  Parry 14 // 2 + 2 = 9.
- the Lizardman: Shortsword 12 (1d6), Base Damage 1d8, no armour.
- Farthan the Fearsome: Total Health 25, Strength 13, Broadsword 15 (1d10), Base Damage
  1d8, Heavy Leathers: Defense 1, Protection 2. Parry 15 // 2 + 1 = 8.
- the Troll: Total Health 40, Strength 18, Club 10 (1d12), Base Damage 1d10, no armour.
  Parry 10 // 2 = 5.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from replaying import general_replay as replay  # the one replay, rules.replay

from rules.errors import (
    FightOver,
    IllegalCommand,
    InvalidRoll,
    InvalidSheet,
    NotYourTurn,
    RulesError,
)
from rules.general.engine import STUN_PENALTY, apply, start, undo_point
from rules.general.model import (
    Attack,
    Attacked,
    Awaiting,
    DamageDie,
    Dice,
    FightEnded,
    Forfeit,
    GeneralFighter,
    GeneralState,
    GotUp,
    Hit,
    KnockbackTest,
    ModeratorEnd,
    Need,
    Outcome,
    Parried,
    Roll,
    RollFor,
    TurnStarted,
    Yield,
    parse_dice,
)
from rules.general.travel import METRES_PER_MILE, Pace, travel

# -- the cast -------------------------------------------------------------------------


def olaf(**changes: Any) -> GeneralFighter:
    fighter = GeneralFighter("Olaf", health=20, strength=12, skill=14,
                             weapon=parse_dice("1d10"), base=parse_dice("1d8"),
                             defense=2, protection=4)
    return replace(fighter, **changes)


def lizardman(**changes: Any) -> GeneralFighter:
    fighter = GeneralFighter("Lizardman", health=20, strength=12, skill=12,
                             weapon=parse_dice("1d6"), base=parse_dice("1d8"),
                             defense=0, protection=0)
    return replace(fighter, **changes)


def farthan(**changes: Any) -> GeneralFighter:
    fighter = GeneralFighter("Farthan", health=25, strength=13, skill=15,
                             weapon=parse_dice("1d10"), base=parse_dice("1d8"),
                             defense=1, protection=2)
    return replace(fighter, **changes)


def troll(**changes: Any) -> GeneralFighter:
    fighter = GeneralFighter("Troll", health=40, strength=18, skill=10,
                             weapon=parse_dice("1d12"), base=parse_dice("1d10"),
                             defense=0, protection=0)
    return replace(fighter, **changes)


# -- helpers --------------------------------------------------------------------------


def fight(a: GeneralFighter, b: GeneralFighter) -> GeneralState:
    state, events = start("general", [a, b])
    assert events == (TurnStarted(0, 1),)
    return state


def play(state: GeneralState, *commands: Any) -> tuple[GeneralState, list[Any]]:
    events: list[Any] = []
    for command in commands:
        state, new = apply(state, command)
        events.extend(new)
    return state, events


def refused(state: GeneralState, command: Any, error: type[RulesError]) -> None:
    """``command`` raises exactly ``error`` and leaves ``state`` as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(RulesError) as info:
        apply(state, command)
    assert type(info.value) is error, info.value
    assert state == before


def rolling(side: int, roll_for: RollFor, die: int = 20,
            chance: int | None = None) -> Awaiting:
    return Awaiting(side, Need.ROLL, roll_for, die, chance)


def acting(side: int) -> Awaiting:
    return Awaiting(side, Need.ACTION)


def hit_through(state: GeneralState, attacker: int, *damage: int) -> tuple[GeneralState,
                                                                           list[Any]]:
    """``attacker`` attacks, hits with a 1 and the defender's Parry fails with a 20; then
    the damage dice."""
    return play(state, Attack(attacker), Roll(attacker, 1), Roll(1 - attacker, 20),
                *(Roll(attacker, d) for d in damage))


# == R10.2 Turns, attack and Parry ====================================================


def test_R10_2_the_challenger_acts_first_and_attacks_at_the_weapon_skill() -> None:
    state = fight(lizardman(), olaf())
    assert state.awaiting == acting(0)
    state, events = apply(state, Attack(0))
    assert events == ()
    assert state.awaiting == rolling(0, RollFor.ATTACK, 20, 12)


@pytest.mark.parametrize(("roll", "hit"), [(1, True), (12, True), (13, False), (20, False)])
def test_R10_2_the_attack_hits_at_or_under_the_weapon_skill(roll: int, hit: bool) -> None:
    state, events = play(fight(lizardman(), olaf()), Attack(0), Roll(0, roll))
    assert events[0] == Attacked(0, roll, 12, hit)
    if hit:  # Olaf's Parry: 14 // 2 + Chainmail's Defense 2
        assert state.awaiting == rolling(1, RollFor.PARRY, 20, 9)
    else:  # a miss: the turn passes
        assert events[1:] == [TurnStarted(1, 2)]
        assert state.awaiting == acting(1)


def test_R10_2_olafs_parry_of_9_holds_against_a_roll_of_8() -> None:
    """'Olaf's effective Parry skill is a (7 + 2 =) 9 ... Olaf Tests against his Parry
    skill of 9 and rolls an 8.' The blow is stopped: no damage dice."""
    assert olaf().parry == 14 // 2 + 2 == 9
    state, events = play(fight(lizardman(), olaf()), Attack(0), Roll(0, 8), Roll(1, 8))
    assert events == [Attacked(0, 8, 12, True), Parried(1, 8, 9, True), TurnStarted(1, 2)]
    assert state.sides[1].current == 20
    assert state.awaiting == acting(1)


@pytest.mark.parametrize(("roll", "held"), [(9, True), (10, False)])
def test_R10_2_the_parry_holds_at_or_under_its_chance(roll: int, held: bool) -> None:
    state, events = play(fight(lizardman(), olaf()), Attack(0), Roll(0, 8), Roll(1, roll))
    assert events[1] == Parried(1, roll, 9, held)
    if held:
        assert state.awaiting == acting(1)
    else:
        assert state.awaiting == rolling(0, RollFor.DAMAGE, 8)


def test_R10_2_the_lizardmans_9_damage_less_chainmails_4_is_5_taken() -> None:
    """'The Lizard rolls an 8 to hit Olaf ... a total of 9 points of damage. The
    Chainmail ... has a Protection rating of 4 ... 9 - 4 = 5.'"""
    state = fight(lizardman(), olaf())
    state, events = play(state, Attack(0), Roll(0, 8), Roll(1, 15))
    assert events == [Attacked(0, 8, 12, True), Parried(1, 15, 9, False)]
    assert state.awaiting == rolling(0, RollFor.DAMAGE, 8)      # Base Damage first
    state, events = apply(state, Roll(0, 4))
    assert events == (DamageDie(0, 8, 4, False),)
    assert state.awaiting == rolling(0, RollFor.DAMAGE, 6)      # then the Shortsword
    state, events = apply(state, Roll(0, 5))
    assert events == (DamageDie(0, 6, 5, False), Hit(1, 9, 5, 15), TurnStarted(1, 2))
    assert state.sides[1].current == 20 - 5
    assert state.awaiting == acting(1)  # 5 is not more than half of 20: no knockback


@pytest.mark.parametrize(("protection", "dice", "taken"), [
    (4, (1, 1), 0),      # 2 - 4: nothing, not -2
    (4, (3, 1), 0),      # 4 - 4
    (40, (7, 5), 0),     # 12 - 40
    (4, (4, 1), 1),      # 5 - 4
])
def test_R10_2_protection_never_makes_damage_negative(protection: int, dice: tuple[int, int],
                                                      taken: int) -> None:
    rolled = sum(dice)
    state = fight(lizardman(), olaf(protection=protection))
    state, events = hit_through(state, 0, *dice)
    assert Hit(1, rolled, taken, 20 - taken) in events
    assert state.sides[1].current == 20 - taken


# == R10.1 Rolling up, in the order of R10.2 ==========================================


def test_R10_1_R10_2_farthans_rolled_up_damage_is_17() -> None:
    """'He roles ... an 8 on the 1D8 and a 4 on the 1D10 ... the 1D8 rolled its maximum
    value of 8, he roles the 1D8 again. It comes up with a 5 ... 17.' The order (R10.2):
    the Base Damage die, its roll-up, then the weapon die."""
    state = fight(farthan(), troll())
    state, _ = play(state, Attack(0), Roll(0, 10), Roll(1, 12))  # hit (15), parry fails (5)
    assert state.awaiting == rolling(0, RollFor.DAMAGE, 8)
    state, events = apply(state, Roll(0, 8))
    assert events == (DamageDie(0, 8, 8, True),)
    assert state.awaiting == rolling(0, RollFor.DAMAGE, 8)      # the d8 again, not the d10
    refused(state, Roll(0, 9), InvalidRoll)                     # so a 9 is no d8 face
    state, events = apply(state, Roll(0, 5))
    assert events == (DamageDie(0, 8, 5, False),)
    assert state.awaiting == rolling(0, RollFor.DAMAGE, 10)     # now the Broadsword
    state, events = apply(state, Roll(0, 4))
    assert events == (DamageDie(0, 10, 4, False), Hit(1, 17, 17, 23), TurnStarted(1, 2))
    assert state.sides[1].current == 40 - 17


def test_R10_1_a_die_rolls_up_as_often_as_it_shows_its_top_face() -> None:
    state = fight(farthan(), troll(health=100))
    state, events = hit_through(state, 0, 8, 8, 8, 2, 10, 1)
    dice = [e for e in events if isinstance(e, DamageDie)]
    assert dice == [DamageDie(0, 8, 8, True), DamageDie(0, 8, 8, True),
                    DamageDie(0, 8, 8, True), DamageDie(0, 8, 2, False),
                    DamageDie(0, 10, 10, True), DamageDie(0, 10, 1, False)]
    assert Hit(1, 37, 37, 63) in events


def test_R10_1_R10_2_each_of_several_dice_rolls_up_before_the_next() -> None:
    # Base Damage 2d6+1, weapon 1d4: first d6 6 (up) 1, second d6 6 (up) 6 (up) 2, d4 3
    state = fight(farthan(base=parse_dice("2d6+1"), weapon=parse_dice("1d4")), troll())
    state, _ = play(state, Attack(0), Roll(0, 1), Roll(1, 20))
    dice = []
    for value in (6, 1, 6, 6, 2, 3):
        dice.append(state.awaiting.die)
        state, events = apply(state, Roll(0, value))
    assert dice == [6, 6, 6, 6, 6, 4]
    assert Hit(1, 6 + 1 + 6 + 6 + 2 + 3 + 1, 25, 15) in events


# == R10.3 Knockback and stun =========================================================


def test_R10_3_farthan_is_knocked_down_and_spends_his_turn_getting_up() -> None:
    """'Farthan ... has a Total Health of 25 and is hit for 15 points of damage ... Heavy
    Leathers ... subtract two ... 13 is greater than half of his Total Health (12.5) ...
    He rolls a 16, which is 3 above his Strength of 13. He is flung to the ground ...
    The next round, he recovers and gets to his feet.'"""
    state = fight(troll(), farthan())
    state, events = hit_through(state, 0, 7, 8)       # 1d10 7 + 1d12 8 = 15
    assert events[1] == Parried(1, 20, 8, False)      # Parry 15 // 2 + 1
    assert events[-1] == Hit(1, 15, 13, 12)
    assert state.awaiting == rolling(1, RollFor.KNOCKBACK, 20, 13)
    state, events = apply(state, Roll(1, 16))
    assert events == (
        KnockbackTest(1, 16, 13, False),
        TurnStarted(1, 2),
        GotUp(1),                                     # his own turn goes to getting up
        TurnStarted(0, 3),
    )
    assert state.sides[1].stunned                     # up, but still stunned (R10.3)
    assert state.awaiting == acting(0)
    refused(state, Attack(1), NotYourTurn)            # no action of his own this round


def test_R10_3_after_getting_up_the_parry_against_the_next_attack_is_at_minus_5() -> None:
    """R10.3: knocked down, Farthan's next own turn is spent getting up, and the Parry
    against the Troll's next attack after that is at -5; the attack after that one meets
    his full Parry again. Played through from the knockback."""
    assert STUN_PENALTY == 5
    state = fight(troll(), farthan())
    # turn 1: the Troll hits for 15, 13 after Heavy Leathers; Strength 16 vs 13 fails
    state, events = play(state, Attack(0), Roll(0, 1), Roll(1, 20), Roll(0, 7), Roll(0, 8),
                         Roll(1, 16))
    assert events[-4:] == [KnockbackTest(1, 16, 13, False), TurnStarted(1, 2), GotUp(1),
                           TurnStarted(0, 3)]
    # turn 3, the rest of the getting-up round: the Troll's next attack
    state, events = play(state, Attack(0), Roll(0, 1))
    assert events == [Attacked(0, 1, 10, True)]
    assert state.awaiting == rolling(1, RollFor.PARRY, 20, 8 - STUN_PENALTY)
    assert not state.sides[1].stunned                 # this attack takes the stun
    state, events = apply(state, Roll(1, 4))          # 4 would hold at 8, not at 3
    assert events == (Parried(1, 4, 3, False),)
    state, events = play(state, Roll(0, 1), Roll(0, 1))  # 1d10 1, 1d12 1: 2 - 2 = 0
    assert events == [DamageDie(0, 10, 1, False), DamageDie(0, 12, 1, False),
                      Hit(1, 2, 0, 12), TurnStarted(1, 4)]
    # turn 4: Farthan acts again; turn 5: the Troll's attack after that, full Parry
    state, _ = play(state, Attack(1), Roll(1, 20))    # a miss
    state, events = play(state, Attack(0), Roll(0, 1))
    assert state.awaiting == rolling(1, RollFor.PARRY, 20, 8)
    state, events = apply(state, Roll(1, 4))
    assert events == (Parried(1, 4, 8, True), TurnStarted(1, 6))


def test_R10_3_a_miss_uses_the_stun_up() -> None:
    """Engine choice: the -5 is for the opponent's next attack, hit or miss; when that
    attack misses, the attack after it meets a full Parry."""
    state = fight(troll(), farthan())
    state, _ = hit_through(state, 0, 7, 8)
    state, _ = apply(state, Roll(1, 16))              # down; turn 2 spent getting up
    state, events = play(state, Attack(0), Roll(0, 11))   # 11 vs 10: a miss
    assert events == [Attacked(0, 11, 10, False), TurnStarted(1, 4)]
    assert not state.sides[1].stunned
    state, _ = play(state, Attack(1), Roll(1, 20), Attack(0), Roll(0, 1))
    assert state.awaiting == rolling(1, RollFor.PARRY, 20, 8)


def test_R10_3_a_passed_strength_test_keeps_the_fighter_on_his_feet() -> None:
    state = fight(troll(), farthan())
    state, _ = hit_through(state, 0, 7, 8)
    state, events = apply(state, Roll(1, 13))         # at his Strength
    assert events == (KnockbackTest(1, 13, 13, True), TurnStarted(1, 2))
    assert not state.sides[1].stunned
    assert state.awaiting == acting(1)                # his turn, his to use


@pytest.mark.parametrize(("health", "damage", "knockback"), [
    (25, 13, True),    # 13 > 12.5
    (25, 12, False),   # 12 < 12.5
    (26, 13, False),   # exactly half is not more than half
    (26, 14, True),
])
def test_R10_3_knockback_needs_more_than_half_total_health_after_protection(
        health: int, damage: int, knockback: bool) -> None:
    state = fight(troll(), farthan(health=health))
    rolled = damage + 2                               # Heavy Leathers take 2
    state, events = hit_through(state, 0, rolled - 8, 8)
    assert events[-1 if knockback else -2] == Hit(1, rolled, damage, health - damage)
    if knockback:
        assert state.awaiting == rolling(1, RollFor.KNOCKBACK, 20, 13)
    else:
        assert state.awaiting == acting(1)


# == R10.4 Unconscious ================================================================


@pytest.mark.parametrize(("dice", "left"), [
    ((8, 8, 3, 1), 0),       # 1d8 8 (up) 8 (up) 3, 1d6 1: 20 of 20
    ((8, 8, 3, 4), -3),      # 23 of 20
])
def test_R10_4_unconscious_at_0_current_health_ends_the_fight(dice: tuple[int, ...],
                                                               left: int) -> None:
    state = fight(lizardman(), olaf(protection=0))
    state, events = hit_through(state, 0, *dice)
    taken = sum(dice)
    # no Strength Test for the knockback and no next turn: the fight is over
    assert events[-2:] == [Hit(1, taken, taken, left),
                           FightEnded(Outcome("unconscious", 0))]
    assert state.outcome == Outcome("unconscious", 0)
    assert state.awaiting is None
    for command in (Attack(1), Roll(1, 5), Yield(1), Forfeit(1), ModeratorEnd(0, "late")):
        refused(state, command, FightOver)


def test_R10_4_a_fighter_at_1_fights_on() -> None:
    state = fight(lizardman(), olaf(health=10, protection=0))
    state, events = hit_through(state, 0, 4, 5)        # 9 of 10: 1 left
    assert events[-1] == Hit(1, 9, 9, 1)
    assert state.outcome is None
    assert state.awaiting == rolling(1, RollFor.KNOCKBACK, 20, 12)  # 9 > 10 / 2


# == Refusals =========================================================================


def test_R10_2_refusals_leave_the_state_unchanged() -> None:
    state = fight(lizardman(), olaf())
    refused(state, Attack(1), NotYourTurn)            # the challenger's turn
    refused(state, Roll(0, 5), IllegalCommand)        # no roll awaited yet
    refused(state, Yield(1), NotYourTurn)
    refused(state, Forfeit(1), NotYourTurn)
    state, _ = apply(state, Attack(0))
    refused(state, Attack(0), IllegalCommand)         # a roll is awaited
    refused(state, Yield(0), IllegalCommand)
    refused(state, Roll(1, 5), NotYourTurn)           # the attacker rolls
    for value in (0, 21, -3, True):
        refused(state, Roll(0, value), InvalidRoll)
    state, _ = apply(state, Roll(0, 8))
    refused(state, Roll(0, 8), NotYourTurn)           # Olaf parries, not the Lizardman
    refused(state, Roll(1, 21), InvalidRoll)
    state, _ = apply(state, Roll(1, 15))
    for value in (0, 9):                              # a d8 now
        refused(state, Roll(0, value), InvalidRoll)
    state, _ = apply(state, Roll(0, 4))
    refused(state, Roll(0, 7), InvalidRoll)           # a d6 now


def test_R10_a_fighter_cannot_fight_themself() -> None:
    with pytest.raises(IllegalCommand):
        start("general", [olaf(), olaf(name="OLAF")])


def test_R10_yield_forfeit_and_moderator_end() -> None:
    state, events = apply(fight(lizardman(), olaf()), Yield(0))
    assert state.outcome == Outcome("yield", 1)
    assert events == (FightEnded(Outcome("yield", 1)),)
    state, _ = apply(fight(lizardman(), olaf()), Forfeit(0))
    assert state.outcome == Outcome("forfeit", 1)
    state, _ = play(fight(lizardman(), olaf()), Attack(0), ModeratorEnd(None, "draw"))
    assert state.outcome == Outcome("draw", None) and state.awaiting is None


@pytest.mark.parametrize("changes", [
    {"health": 0}, {"health": 201}, {"strength": 0}, {"skill": 0}, {"skill": 41},
    {"defense": -1}, {"defense": 21}, {"protection": -1}, {"protection": 41},
])
def test_R10_sheet_values_out_of_range_are_refused(changes: dict[str, int]) -> None:
    with pytest.raises(InvalidSheet):
        olaf(**changes)


@pytest.mark.parametrize(("text", "dice"), [
    ("1d8", Dice(1, 8)), ("d10", Dice(1, 10)), ("2D6+1", Dice(2, 6, 1)),
    ("1d12-2", Dice(1, 12, -2)),
])
def test_R10_1_parse_dice(text: str, dice: Dice) -> None:
    assert parse_dice(text) == dice


@pytest.mark.parametrize("text", ["", "8", "1d1", "0d6", "11d6", "1d101", "1x6", "1d6+"])
def test_R10_1_parse_dice_refusals(text: str) -> None:
    with pytest.raises(InvalidSheet):
        parse_dice(text)


def test_R10_a_whole_fight_replays() -> None:
    fighters = [troll(), farthan()]
    commands = [
        Attack(0), Roll(0, 1), Roll(1, 20), Roll(0, 7), Roll(0, 8), Roll(1, 16),  # down
        Attack(0), Roll(0, 11),                                                 # miss
        Attack(1), Roll(1, 2), Roll(0, 6), Roll(1, 8), Roll(1, 3), Roll(1, 10), Roll(1, 9),
    ]
    state = replay("general", fighters, commands)
    # Farthan: 1d8 8 (up) 3, 1d10 10 (up) 9 = 30 against the Troll's 40: 10 left,
    # 30 > 20: the Troll Tests Strength
    assert state.sides[1].current == 12
    assert state.sides[0].current == 40 - 30
    assert state.awaiting == rolling(0, RollFor.KNOCKBACK, 20, 18)


def test_R8_1_general_undo_takes_back_the_last_decision_and_the_rolls_after_it() -> None:
    fighters = [troll(), farthan()]
    log: list[Any] = [Attack(0), Roll(0, 1), Roll(1, 20), Roll(0, 7), Roll(0, 8),
                      Roll(1, 16)]                    # the knockdown and getting up
    assert undo_point(log) == 0
    assert replay("general", fighters, log[:0]) == fight(troll(), farthan())
    log += [Attack(0), Roll(0, 1)]
    assert undo_point(log) == 6                       # back to the Troll's turn 3
    rebuilt = replay("general", fighters, log[:6])
    assert rebuilt.sides[1].stunned and rebuilt.awaiting == acting(0)
    with pytest.raises(IllegalCommand, match="nothing to undo"):
        undo_point([Roll(0, 5)])


# == R10.5 Travel =====================================================================


def test_R10_5_sams_fifty_minute_run() -> None:
    """'His Str is 10 and his Vitality is 10, so his Strain is also 10 ... his Move is
    12. He runs for (Vit in Min.) 10 minutes ... (50 minutes so far) he loses a Strain
    (down to 1) ... (50 min x (30 x 12 Move)) = 18000 meters. 18000 divided by 1609 =
    11.2 miles.'"""
    sam = travel(12, 10, 10, Pace.RUN, minutes=50)
    assert sam.pace is Pace.RUN
    assert sam.duration_minutes == 10
    assert sam.metres_per_minute == 30 * 12 == 360
    assert sam.metres == 18_000
    assert METRES_PER_MILE == 1609
    assert round(sam.metres / METRES_PER_MILE, 1) == 11.2
    assert sam.strain_left == 1
    assert sam.longest_minutes == 50                  # 5 durations leave 1 Strain


@pytest.mark.parametrize(("minutes", "strain"), [(10, 9), (20, 7), (30, 5), (40, 3),
                                                 (50, 1)])
def test_R10_5_sams_strain_after_each_duration(minutes: int, strain: int) -> None:
    # lose one at the end of each 10 minutes; pressing on costs another
    assert travel(12, 10, 10, Pace.RUN, minutes=minutes).strain_left == strain


@pytest.mark.parametrize(("pace", "move", "vit", "row"), [
    # walking: 1/4 Move a round, 7 1/2 Move a minute, 1/3 Move mph, 1/2 Vit hours
    (Pace.WALK, 12, 10, (3, 90, Fraction(4), 300)),
    (Pace.WALK, 11, 8, (2, 82, Fraction(11, 3), 240)),     # 2.75 and 82.5 round down
    (Pace.WALK, 9, 4, (2, 67, Fraction(3), 120)),          # Move 10 or less: ~3 mph
    # jogging: 1/2 Move a round, 15 Move a minute, 1/2 Move mph, 5 Vit minutes
    (Pace.JOG, 12, 10, (6, 180, Fraction(6), 50)),
    (Pace.JOG, 11, 8, (5, 165, Fraction(11, 2), 40)),
    # running: Move a round, 30 Move a minute, Move mph, Vit minutes
    (Pace.RUN, 12, 10, (12, 360, Fraction(12), 10)),
])
def test_R10_5_movement_table_rows(pace: Pace, move: int, vit: int,
                                   row: tuple[int, int, Fraction, int]) -> None:
    found = travel(move, vit, 10, pace)
    assert (found.metres_per_round, found.metres_per_minute, found.miles_per_hour,
            found.duration_minutes) == row
    assert found.minutes is None and found.metres is None and found.strain_left is None
    assert found.longest_minutes == row[3] * 5        # Strain 10: five durations


def test_R10_5_a_walk_and_a_jog_journey() -> None:
    walk = travel(12, 10, 10, Pace.WALK, minutes=300)  # one full duration
    assert (walk.metres, walk.strain_left) == (27_000, 9)
    jog = travel(12, 10, 10, Pace.JOG, minutes=100)    # two durations
    assert (jog.metres, jog.strain_left) == (18_000, 7)


@pytest.mark.parametrize(("move", "vit", "strain", "minutes"), [
    (0, 10, 10, None), (101, 10, 10, None), (12, 0, 10, None), (12, 10, -1, None),
    (12, 10, 101, None), (12, 10, 10, 0), (12, 10, 10, 100_001),
])
def test_R10_5_travel_refusals(move: int, vit: int, strain: int, minutes: int | None) -> None:
    with pytest.raises(InvalidSheet):
        travel(move, vit, strain, Pace.RUN, minutes=minutes)
