"""An Cath rulings R1 (dice), R3 (starting a fight) and R4 (a turn), as fight transcripts.

Each test is named after the ruling it checks (``docs/rulings.md``). Every chance
asserted here is worked out by hand from the rulings, in the comment beside it.

The cast, all at 30% in every skill unless a test says otherwise:

- Olaf: Free Clans, broadsword (length 2, DR 4) and shield, Highlander armour:
  Dodge 30, Block 30, Parry 10 + 30/2 = 25.
- Marcus: Invaders, broadsword and shield, Cohort (-10): Dodge 20, Block 30, Parry 25
  (Parry 30 with broadsword 40).
- Gorbag: Goblin, club (length 1, DR 2) and shield, Leather: Dodge 30, Block 30, Parry 25.
- Lucius: Invaders, shortsword (length 1, DR 3) and shield, Cohort: Dodge 20, Block 30,
  Parry 25.
- Gaius: Invaders, spear (length 3, DR 3) and shield, Cohort: Dodge 20, Block 30, Parry 25.
- Bran: Free Clans, axe (length 2, DR 5, slow) and shield, Highlander: Dodge 30, Block 30.
- Ulf: Free Clans, greatsword (length 3, DR 7, slow), Highlander: Dodge 30, no Block.
- Fenella: Fairy Folk, pair of shortswords (length 1, DR 3), Leather: Dodge 30,
  Block = Countersword, Parry 10 + Shortsword/2.

Damage columns used (R6.1): Cohort kill 1-3, weapon arm 7-21, off arm 22-36, right leg
37-56, no effect 77-100; Highlander kill 1-7, off arm 24-32, right leg 33-52, no effect
73-100; Leather weapon arm 23-31, off arm 32-40.

BP 1 (0.1 BP) is given to whoever should choose the order, so no initiative rolls are
needed; it leaves Test at 40 (R2.7).
"""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
from transcript import fight, play, warrior

from rules.ancath import apply, legal_actions, start
from rules.ancath.commands import Act, Defend, Roll, Stop
from rules.ancath.events import (
    ActionTaken,
    AwardReason,
    BonusEarned,
    BPAwarded,
    DamageRolled,
    DefenceChosen,
    FlightStopped,
    Injured,
    PrisonerTaken,
    RangeChanged,
    Rolled,
    TurnStarted,
    WarriorSlain,
    YieldAnswered,
)
from rules.ancath.sheet import Sheet, Status
from rules.ancath.state import (
    Action,
    Awaiting,
    Bonus,
    Defences,
    Ending,
    FightState,
    Kind,
    Loadout,
    Need,
    Outcome,
    Range,
    RollFor,
    Severity,
)
from rules.ancath.tables import Hit, Location, Weapon
from rules.errors import (
    FightOver,
    IllegalCommand,
    InvalidRoll,
    NotYourTurn,
    RulesError,
    Unavailable,
)

# -- the cast -------------------------------------------------------------------------


def olaf(bp: int = 0, **levels: int) -> Sheet:
    return warrior("Olaf", "free-clans", "broadsword", "shield", bp=bp, **levels)


def marcus(bp: int = 0, **levels: int) -> Sheet:
    return warrior("Marcus", "invaders", "broadsword", bp=bp, **levels)


def gorbag(bp: int = 0, **levels: int) -> Sheet:
    return warrior("Gorbag", "goblin", "club", "shield", bp=bp, **levels)


def lucius(bp: int = 0, **levels: int) -> Sheet:
    return warrior("Lucius", "invaders", "shortsword", bp=bp, **levels)


def gaius(bp: int = 0, **levels: int) -> Sheet:
    return warrior("Gaius", "invaders", "spear", bp=bp, **levels)


def bran(bp: int = 0, **levels: int) -> Sheet:
    return warrior("Bran", "free-clans", "axe", "shield", bp=bp, **levels)


def ulf(bp: int = 0, **levels: int) -> Sheet:
    levels.setdefault("greatsword", 60)  # above broadsword 30: the default weapon
    return warrior("Ulf", "free-clans", "broadsword", "greatsword", bp=bp, **levels)


def fenella(bp: int = 0, **levels: int) -> Sheet:
    return warrior("Fenella", "fairy", "countersword", bp=bp, **levels)


# -- helpers --------------------------------------------------------------------------


def waiting(side: int, need: Need, roll_for: RollFor | None = None,
            chance: int | None = None) -> Awaiting:
    return Awaiting(side, need, roll_for, chance)


def defences(state: FightState) -> dict[str, int]:
    """The defences the awaited defender may choose now, with their chances."""
    return {
        o.command.defence.value: o.chances[0]
        for o in legal_actions(state)
        if isinstance(o.command, Defend)
    }


def actions(state: FightState) -> dict[str, tuple[int, ...]]:
    """The actions (and Stop) the awaited side may take now, with their roll chances."""
    found: dict[str, tuple[int, ...]] = {}
    for o in legal_actions(state):
        if isinstance(o.command, Act):
            found[o.command.action.value] = o.chances
        elif isinstance(o.command, Stop):
            found["stop"] = o.chances
    return found


def rolls(events: list, roll_for: RollFor | None = None) -> list[Rolled]:
    return [e for e in events if isinstance(e, Rolled) and roll_for in (None, e.roll_for)]


def of(events: list, kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


def refused(state: FightState, line: str, error: type[RulesError]) -> None:
    """``line`` raises exactly ``error`` and leaves ``state`` as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(RulesError) as info:
        play(state, line)
    assert type(info.value) is error, info.value
    assert state == before


def earn_30(state: FightState, tester: str, defender: str, defence: str = "parry") -> FightState:
    """``tester`` Tests (40) with a roll of 20 and ``defender``'s defence fails: bonus 30."""
    state, events = play(state, f"""
        {tester}: test
        {tester} rolls 20        # test 40: success
        {defender}: {defence}
        {defender} rolls 95      # every defence here is below 95: fails, bonus 30
    """)
    assert of(events, BonusEarned)[0].amount == 30
    return state


# == R1 Dice ==========================================================================


def test_R1_1_roll_of_1_always_succeeds_even_below_chance_1() -> None:
    state = fight("practice", gorbag(bp=1, club=10), ulf())
    state, _ = play(state, """
        Gorbag: first
        Gorbag: double
    """)
    # club 10 - 10 (double) - 10 (length 1 against the greatsword's 3, standard range)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, -10)
    state, events = play(state, """
        Gorbag rolls 1       # a 1 always hits, chance -10 or not
        Gorbag rolls 2       # 2 > -10: miss
    """)
    assert rolls(events) == [
        Rolled(0, RollFor.ATTACK, 1, -10, True),
        Rolled(0, RollFor.ATTACK, 2, -10, False),
    ]
    assert state.awaiting == waiting(1, Need.DEFENCE)


def test_R1_1_roll_of_100_always_fails_even_above_chance_100() -> None:
    state = fight("practice", ulf(bp=1, greatsword=80), gorbag())
    state, _ = play(state, """
        Ulf: first
        Ulf: press
    """)
    # greatsword 80 + 25 (press) + 10 (length 3 against the club's 1, standard range)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 115)
    state, events = play(state, "Ulf rolls 100      # a 100 always misses, chance 115 or not")
    assert rolls(events)[0] == Rolled(0, RollFor.ATTACK, 100, 115, False)
    # and 100 is a slow weapon's wild miss: Gorbag's free attack, club 30 - 10 (R4.10)
    assert state.awaiting == waiting(1, Need.ROLL, RollFor.ATTACK, 20)


@pytest.mark.parametrize(("roll", "hit"), [(30, True), (31, False)])
def test_R1_1_success_is_a_roll_at_or_below_the_chance(roll: int, hit: bool) -> None:
    state = fight("practice", olaf(bp=1), marcus())
    state, events = play(state, f"""
        Olaf: first
        Olaf: attack
        Olaf rolls {roll}    # broadsword 30 against broadsword: no range modifier
    """)
    assert rolls(events) == [Rolled(0, RollFor.ATTACK, roll, 30, hit)]
    assert state.awaiting == (waiting(1, Need.DEFENCE) if hit else waiting(1, Need.ACTION))


@pytest.mark.parametrize("roll", [0, 101, -5])
def test_R1_1_a_d100_roll_is_1_to_100(roll: int) -> None:
    state = fight("practice", olaf(bp=1), marcus())
    state, _ = play(state, """
        Olaf: first
        Olaf: attack
    """)
    refused(state, f"Olaf rolls {roll}", InvalidRoll)


def test_R1_1_a_d100_roll_is_a_whole_number() -> None:
    # regression: the engine at b592faa accepted 20.5, and its last digit 0.5 disabled
    state = fight("practice", olaf(bp=1), marcus())
    state, _ = play(state, """
        Olaf: first
        Olaf: attack
    """)
    before = copy.deepcopy(state)
    with pytest.raises(InvalidRoll):
        apply(state, Roll(0, 20.5))     # not a d100 face
    assert state == before


def test_R1_1_a_non_integer_damage_roll_is_refused() -> None:
    # regression: the engine at b592faa crashed here with TypeError, not a RulesError
    state = fight("practice", olaf(bp=1), marcus())
    state, _ = play(state, """
        Olaf: first
        Olaf: attack
        Olaf rolls 20        # hit
        Marcus: dodge
        Marcus rolls 90      # fails
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.DAMAGE)
    before = copy.deepcopy(state)
    with pytest.raises(InvalidRoll):
        apply(state, Roll(0, 20.5))
    assert state == before


@pytest.mark.parametrize(("attack_roll", "severity"), [
    (30, Severity.DISABLED),   # last digit 0: at or below every damage rating
    (22, Severity.DISABLED),   # 2 <= club's 2
    (23, Severity.WOUND),      # 3 > 2
    (41, Severity.DISABLED),   # 1 <= 2
])
def test_R1_2_last_digit_of_the_attack_roll_decides_severity(
    attack_roll: int, severity: Severity
) -> None:
    state = fight("practice", gorbag(bp=1, club=50), olaf())
    state, events = play(state, f"""
        Gorbag: first
        Gorbag: attack
        Gorbag rolls {attack_roll}   # club 50 - 5 (length 1 against 2) = 45: hit
        Olaf: dodge
        Olaf rolls 95                # dodge 30: fails
        Gorbag rolls 20              # Highlander 15-23: weapon arm
    """)
    assert of(events, DamageRolled) == [DamageRolled(0, 20, Hit.WEAPON_ARM, severity)]
    assert state.fighters[1].injuries == {Location.WEAPON_ARM: severity}


def test_R1_2_last_digit_zero_disables_even_a_greatsword_wound_roll() -> None:
    # greatsword DR 7: 47 disables, 48 wounds, 60 (last digit 0) disables
    for attack_roll, severity in ((47, Severity.DISABLED), (48, Severity.WOUND),
                                  (60, Severity.DISABLED)):
        state = fight("practice", ulf(bp=1), marcus())
        state, _ = play(state, f"""
            Ulf: first
            Ulf: attack
            Ulf rolls {attack_roll}  # greatsword 60 + 5 (length 3 against 2) = 65: hit
            Marcus: dodge
            Marcus rolls 95          # dodge 20: fails
            Ulf rolls 10             # Cohort 7-21: weapon arm
        """)
        assert state.fighters[1].injuries == {Location.WEAPON_ARM: severity}, attack_roll


def test_R1_3_halving_rounds_down_before_modifiers() -> None:
    state = fight("practice", fenella(bp=1, shortsword=51, countersword=45), olaf())
    state, _ = play(state, """
        Fenella: wield countersword
        Fenella: first
    """)
    # Parry 10 + floor(51 / 2) = 35; Block = Countersword 45
    assert state.fighters[0].defences == Defences(30, 45, 35)
    # first roll 51 - 5 (length 1 against 2); second floor(45 / 2) - 5 = 17, not
    # floor((45 - 5) / 2) = 20
    assert actions(state)["double"] == (46, 17)
    state, _ = play(state, "Fenella: double")
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 46)
    state, _ = play(state, "Fenella rolls 90    # miss")
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 17)


def test_R1_3_disabled_arm_halves_the_skill_before_the_press_bonus() -> None:
    state = fight("practice", olaf(bp=1), marcus(broadsword=45))
    state, _ = play(state, """
        Olaf: first
        Olaf: attack
        Olaf rolls 10        # broadsword 30: hit; last digit 0: disabling
        Marcus: parry
        Marcus rolls 90      # parry 10 + floor(45 / 2) = 32: fails
        Olaf rolls 10        # Cohort 7-21: weapon arm disabled
    """)
    assert state.fighters[1].disabled(Location.WEAPON_ARM)
    # attack floor(45 / 2) = 22; press 22 + 25 = 47, not floor((45 + 25) / 2) = 35
    assert actions(state)["attack"] == (22,)
    assert actions(state)["press"] == (47,)
    # and Parry keeps its fight-start value (R3.5)
    assert state.fighters[1].defences.parry == 32


# == R3 Starting a fight ==============================================================


@pytest.mark.parametrize("kind", ["practice", "duel", "mortal"])
def test_R3_1_fight_kinds(kind: str) -> None:
    state = fight(kind, olaf(bp=1), marcus())
    assert state.kind is Kind(kind)
    state, events = play(state, """
        Olaf: first
        Olaf: attack
        Olaf rolls 20        # broadsword 30: hit
        Marcus: dodge
        Marcus rolls 90      # dodge 20: fails
        Olaf rolls 2         # Cohort 1-3: kill
    """)
    assert state.outcome == Outcome(Ending.KILL, 0)
    awards = of(events, BPAwarded)
    if kind == "mortal":  # death is real (R7.2)
        assert of(events, WarriorSlain) == [WarriorSlain(1)]
        assert awards == [BPAwarded(0, 5, AwardReason.MORTAL), BPAwarded(1, 5, AwardReason.MORTAL),
                          BPAwarded(0, 10, AwardReason.SLAIN)]
    else:
        assert of(events, WarriorSlain) == []
        assert awards == [BPAwarded(0, 2, AwardReason.WIN), BPAwarded(1, 1, AwardReason.LOSS)]


def test_R3_2_duel_goes_on_after_no_effect_and_ends_at_first_blood() -> None:
    state = fight("duel", olaf(bp=1), marcus(broadsword=40))
    state, _ = play(state, """
        Olaf: first
        Olaf: attack
        Olaf rolls 20        # broadsword 30: hit
        Marcus: dodge
        Marcus rolls 90      # dodge 20: fails
        Olaf rolls 90        # Cohort 77-100: No Effect, no blood
    """)
    assert state.outcome is None
    assert state.awaiting == waiting(1, Need.ACTION)
    state, events = play(state, """
        Marcus: attack
        Marcus rolls 15      # broadsword 40: hit; last digit 5 > 4: a wound
        Olaf: parry
        Olaf rolls 80        # parry 25: fails
        Marcus rolls 50      # Highlander 33-52: right leg, wounded
    """)
    assert [(e.side, e.location, e.severity, e.killed) for e in of(events, Injured)] == [
        (0, Location.RIGHT_LEG, Severity.WOUND, False)
    ]
    assert state.outcome == Outcome(Ending.FIRST_BLOOD, 1)
    assert state.awaiting is None


@pytest.mark.parametrize("status", [Status.PRISONER, Status.DEAD])
@pytest.mark.parametrize("side", [0, 1])
def test_R3_3_prisoner_or_dead_warrior_cannot_fight(status: Status, side: int) -> None:
    sheets = [olaf(), marcus()]
    sheets[side] = replace(sheets[side], status=status)
    with pytest.raises(IllegalCommand) as info:
        start(Kind.PRACTICE, sheets[0], sheets[1])
    assert type(info.value) is IllegalCommand


def test_R3_4_default_loadout_is_highest_weapon_skill_with_shield() -> None:
    state = fight("practice", olaf(broadsword=40), gaius(spear=45))
    assert state.fighters[0].loadout == Loadout(Weapon.BROADSWORD, shield=True)
    assert state.fighters[1].loadout == Loadout(Weapon.SPEAR, shield=True)  # not two-handed
    state = fight("practice", ulf(), warrior("Grub", "goblin", "club", "spear", spear=50))
    assert state.fighters[0].loadout == Loadout(Weapon.GREATSWORD)  # never with a shield
    assert state.fighters[1].loadout == Loadout(Weapon.SPEAR)  # no Shield skill


def test_R3_4_loadout_chosen_before_the_first_action_then_fixed() -> None:
    state = fight("practice", gaius(bp=1), bran())
    state, _ = play(state, """
        Gaius: wield spear two-handed
        Bran: wield axe               # put the shield away
    """)
    assert state.fighters[0].loadout == Loadout(Weapon.SPEAR, two_handed=True)
    assert state.fighters[1].loadout == Loadout(Weapon.AXE)
    refused(state, "Gaius: wield broadsword", Unavailable)            # no Broadsword skill
    refused(state, "Gaius: wield broadsword two-handed", Unavailable)
    refused(state, "Gaius: wield spear shield two-handed", Unavailable)
    state, _ = play(state, """
        Gaius: first
        Gaius: attack
    """)
    refused(state, "Bran: wield axe shield", Unavailable)             # fixed for the fight
    refused(state, "Gaius: wield spear shield", Unavailable)


def test_R3_4_loadout_needs_the_skills() -> None:
    # a pair of shortswords needs Shortsword and Countersword
    shieldfairy = warrior("Aine", "fairy", "shield")
    state = fight("practice", shieldfairy, fenella())
    refused(state, "Aine: wield countersword", Unavailable)
    refused(state, "Fenella: wield shortsword shield", Unavailable)   # no Shield skill
    refused(state, "Fenella: wield countersword shield", Unavailable)  # the pair fills both hands
    state = fight("practice", ulf(), warrior("Mab", "fairy", "lajatang"))
    refused(state, "Ulf: wield greatsword shield", Unavailable)        # always two-handed
    refused(state, "Ulf: wield greatsword two-handed", Unavailable)    # the option is Spear's
    refused(state, "Mab: wield lajatang shield", Unavailable)
    state, _ = play(state, "Ulf: wield broadsword")
    assert state.fighters[0].loadout == Loadout(Weapon.BROADSWORD)


@pytest.mark.parametrize(("sheet", "wield", "scores"), [
    # Dodge = Move + armour; Block = Shield with a shield; Parry = 10 + skill // 2
    (olaf(move=40, shield=45, broadsword=35), None, Defences(40, 45, 27)),
    (marcus(), None, Defences(20, 30, 25)),                               # Cohort -10
    (warrior("Nessa", "free-clans", "axe", "shield", armour="none", move=45),
     None, Defences(65, 30, 25)),                                         # None +20
    (warrior("Cai", "free-clans", "axe", "shield", armour="mail"), None,
     Defences(15, 30, 25)),                                               # Mail -15
    (warrior("Quintus", "invaders", "spear", armour="officer", move=50), None,
     Defences(30, 30, 25)),                                               # Officer -20
    (gaius(spear=41), "spear two-handed", Defences(20, None, 30)),        # no Block
    (ulf(greatsword=61), None, Defences(30, None, 40)),                   # no Block
    (warrior("Mab", "fairy", "lajatang", lajatang=41), None,
     Defences(30, None, 45)),                                             # +15 Lajatang
    (fenella(shortsword=51, countersword=44), "countersword",
     Defences(30, 44, 35)),                     # Block Countersword, Parry by Shortsword
    (fenella(shortsword=51, countersword=44), "shortsword",
     Defences(30, None, 35)),                   # a single shortsword, no shield
])
def test_R3_5_defensive_scores(sheet: Sheet, wield: str | None, scores: Defences) -> None:
    state = fight("practice", sheet, olaf(bp=1) if sheet.name != "Olaf" else marcus(bp=1))
    if wield:
        state, _ = play(state, f"{sheet.name}: wield {wield}")
    assert state.fighters[0].defences == scores


def test_R3_5_scores_are_never_recalculated_in_the_fight() -> None:
    state = fight("practice", marcus(bp=1), olaf())
    state, _ = play(state, """
        Marcus: first
        Marcus: attack
        Marcus rolls 20      # broadsword 30: hit; last digit 0: disabling
        Olaf: dodge
        Olaf rolls 90        # dodge 30: fails
        Marcus rolls 20      # Highlander 15-23: weapon arm disabled
    """)
    assert state.fighters[1].disabled(Location.WEAPON_ARM)
    assert state.fighters[1].defences == Defences(30, 30, 25)  # attack is halved, not Parry
    state, _ = play(state, """
        Olaf: attack
        Olaf rolls 99        # floor(30 / 2) = 15: miss
        Marcus: attack
        Marcus rolls 25      # hit
    """)
    # no shield Blocks with the weapon arm disabled (R5.2), Parry still 25
    assert defences(state) == {"dodge": 30, "parry": 25, "luck": 5}


def test_R3_6_more_bp_chooses_the_order() -> None:
    state = fight("practice", olaf(bp=5), marcus(bp=4))   # 0.5 BP against 0.4
    assert state.awaiting == waiting(0, Need.ORDER)
    refused(state, "Marcus: first", NotYourTurn)
    state, _ = play(state, "Olaf: second       # yield the first action")
    assert state.awaiting == waiting(1, Need.ACTION)
    state = fight("practice", olaf(bp=5), marcus(bp=12))
    assert state.awaiting == waiting(1, Need.ORDER)
    state, _ = play(state, "Marcus: first")
    assert state.awaiting == waiting(1, Need.ACTION)


def test_R3_6_equal_bp_challenger_rolls_first_higher_chooses() -> None:
    state = fight("practice", olaf(bp=3), marcus(bp=3))
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.INITIATIVE)
    refused(state, "Marcus rolls 50", NotYourTurn)
    refused(state, "Olaf: first", IllegalCommand)
    state, events = play(state, """
        Olaf rolls 40        # the challenger rolls first
        Marcus rolls 70      # higher: Marcus chooses
    """)
    assert state.awaiting == waiting(1, Need.ORDER)
    assert [e.roll for e in rolls(events, RollFor.INITIATIVE)] == [40, 70]
    state, _ = play(state, "Marcus: second")
    assert state.awaiting == waiting(0, Need.ACTION)


def test_R3_6_equal_initiative_rolls_roll_again() -> None:
    state = fight("practice", olaf(), marcus())
    state, _ = play(state, """
        Olaf rolls 50        # the challenger rolls first
        Marcus rolls 50      # a tie: both roll again, challenger first
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.INITIATIVE)
    state, _ = play(state, """
        Olaf rolls 20        # the challenger again first
        Marcus rolls 10      # Olaf higher
    """)
    assert state.awaiting == waiting(0, Need.ORDER)


def test_R3_7_fight_starts_at_standard_range() -> None:
    state = fight("practice", gaius(), gorbag())
    assert state.range is Range.STANDARD


# == R4 A turn ========================================================================


def test_R4_1_attack_is_one_roll_at_weapon_skill() -> None:
    state = fight("practice", olaf(bp=1, broadsword=45), marcus())
    state, _ = play(state, "Olaf: first")
    assert actions(state)["attack"] == (45,)
    state, events = play(state, """
        Olaf: attack
        Olaf rolls 45        # broadsword 45: hit
    """)
    assert rolls(events) == [Rolled(0, RollFor.ATTACK, 45, 45, True)]
    assert state.awaiting == waiting(1, Need.DEFENCE)


def test_R4_1_two_handed_spear_adds_10_while_both_arms_uninjured() -> None:
    state = fight("practice", gaius(bp=1, spear=40), olaf())
    state, _ = play(state, """
        Gaius: wield spear two-handed
        Gaius: first
        Gaius: attack
    """)
    # spear 40 + 5 (length 3 against 2) + 10 (two hands)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 55)
    state, _ = play(state, """
        Gaius rolls 90       # miss
        Olaf: attack
        Olaf rolls 15        # broadsword 30 - 5 = 25: hit; last digit 5 > 4: a wound
        Gaius: dodge
        Gaius rolls 50       # dodge 20: fails
        Olaf rolls 10        # Cohort 7-21: weapon arm wounded
    """)
    assert state.fighters[0].injuries == {Location.WEAPON_ARM: Severity.WOUND}
    assert actions(state)["attack"] == (45,)   # 40 + 5, the two-handed bonus is gone
    assert actions(state)["press"] == (70,)


def test_R4_2_pair_double_second_roll_at_half_countersword_and_no_block_next_turn() -> None:
    state = fight("practice", fenella(bp=1, shortsword=50, countersword=45), lucius())
    state, _ = play(state, """
        Fenella: wield countersword
        Fenella: first
        Fenella: double
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 50)   # Shortsword
    state, _ = play(state, "Fenella rolls 44     # hit")
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 22)   # floor(45 / 2)
    state, events = play(state, """
        Fenella rolls 22     # hit (22 <= 22); last digit 2 <= 3: disabling
        Lucius: block
        Lucius rolls 10      # block 30: the first hit is stopped
        Lucius: parry
        Lucius rolls 80      # parry 25: fails
    """)
    assert state.context is not None
    assert [s.weapon for s in state.context.strikes] == [Weapon.COUNTERSWORD] * 2
    state, events = play(state, "Fenella rolls 30     # Cohort 22-36: off arm")
    # the second attack is a Countersword attack, damage rating 3
    assert of(events, DamageRolled) == [DamageRolled(0, 30, Hit.OFF_ARM, Severity.DISABLED)]
    assert not state.fighters[0].press_penalty   # no Press penalty for the pair
    state, _ = play(state, """
        Lucius: attack
        Lucius rolls 20      # shortsword 30: hit
    """)
    # the blocking sword is out of position: Dodge 30, Parry 10 + 25 = 35, no Block 45
    assert defences(state) == {"dodge": 30, "parry": 35, "luck": 5}
    refused(state, "Fenella: block", Unavailable)
    state, _ = play(state, """
        Fenella: parry
        Fenella rolls 10     # parried
        Fenella: attack
        Fenella rolls 99     # miss
        Lucius: attack
        Lucius rolls 20      # hit
    """)
    assert defences(state) == {"dodge": 30, "block": 45, "parry": 35, "luck": 5}


def test_R4_2_club_double_both_rolls_at_minus_10_and_press_penalty() -> None:
    state = fight("practice", gorbag(bp=1, club=50), lucius())
    state, _ = play(state, "Gorbag: first")
    assert actions(state)["double"] == (40, 40)   # club 50 - 10, equal lengths
    state, events = play(state, """
        Gorbag: double
        Gorbag rolls 41      # 41 > 40: miss
        Gorbag rolls 40      # hit
        Lucius: dodge
        Lucius rolls 5       # dodged
        Lucius: attack
        Lucius rolls 10      # shortsword 30: hit
    """)
    assert [(e.roll, e.chance) for e in rolls(events, RollFor.ATTACK)][:2] == [(41, 40), (40, 40)]
    # the Press penalty: Luck only, chosen without asking
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.DEFENCE, 5)
    assert of(events, DefenceChosen)[-1].defence.value == "luck"
    assert defences(state) == {}


def test_R4_2_single_shortsword_double_like_a_club() -> None:
    state = fight("practice", lucius(bp=1, shortsword=40), gorbag())
    state, _ = play(state, "Lucius: first")
    assert actions(state)["double"] == (30, 30)
    state, _ = play(state, """
        Lucius: double
        Lucius rolls 90      # miss
        Lucius rolls 90      # miss
        Gorbag: attack
        Gorbag rolls 10      # club 30: hit
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.DEFENCE, 5)


def test_R4_2_pair_with_off_arm_disabled_doubles_like_a_single_shortsword() -> None:
    state = fight("practice", lucius(bp=1), fenella(shortsword=50, countersword=45))
    state, _ = play(state, """
        Fenella: wield countersword
        Lucius: first
        Lucius: attack
        Lucius rolls 10      # shortsword 30: hit; last digit 0: disabling
        Fenella: parry
        Fenella rolls 90     # parry 35: fails
        Lucius rolls 35      # Leather 32-40: off arm disabled
    """)
    assert actions(state)["double"] == (40, 40)   # Shortsword 50 - 10 twice
    state, _ = play(state, """
        Fenella: double
        Fenella rolls 90     # miss
        Fenella rolls 90     # miss
        Lucius: attack
        Lucius rolls 10      # hit
    """)
    assert state.fighters[1].press_penalty
    assert state.awaiting == waiting(1, Need.ROLL, RollFor.DEFENCE, 5)


def test_R4_2_pair_with_weapon_arm_disabled_cannot_double() -> None:
    state = fight("practice", lucius(bp=1), fenella(shortsword=50, countersword=45))
    state, _ = play(state, """
        Fenella: wield countersword
        Lucius: first
        Lucius: attack
        Lucius rolls 10      # hit; disabling
        Fenella: dodge
        Fenella rolls 90     # dodge 30: fails
        Lucius rolls 25      # Leather 23-31: weapon arm disabled
    """)
    assert "double" not in actions(state)
    assert actions(state)["attack"] == (50,)   # the pair is otherwise unaffected (R6.5)
    refused(state, "Fenella: double", Unavailable)


def test_R4_3_press_adds_25_and_leaves_only_luck_next_turn() -> None:
    state = fight("practice", marcus(bp=1, broadsword=45), olaf())
    state, _ = play(state, """
        Marcus: first
        Marcus: press
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 70)   # 45 + 25
    state, _ = play(state, """
        Marcus rolls 71      # miss
        Olaf: attack
        Olaf rolls 5         # broadsword 30: hit
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.DEFENCE, 5)    # Luck only
    state, _ = play(state, """
        Marcus rolls 6       # Luck 5: fails
        Olaf rolls 90        # Cohort: No Effect
        Marcus: attack       # the penalty ends when Marcus's own turn starts
        Marcus rolls 99      # miss
        Olaf: attack
        Olaf rolls 5         # hit
    """)
    assert defences(state) == {"dodge": 20, "block": 30, "parry": 32, "luck": 5}


def test_R4_3_press_penalty_covers_the_defence_against_a_test() -> None:
    state = fight("practice", marcus(bp=1), olaf(bp=0))
    state, _ = play(state, """
        Marcus: first
        Marcus: press
        Marcus rolls 99      # 30 + 25 = 55: miss
        Olaf: test
        Olaf rolls 20        # test 40: success
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.DEFENCE, 5)
    state, events = play(state, "Marcus rolls 40      # Luck 5: fails")
    assert of(events, BonusEarned) == [BonusEarned(1, 30)]


@pytest.mark.parametrize(("defence_roll", "bonus"), [
    (15, 0),     # parry 30 succeeds with a roll at or below the Test roll 20: nothing
    (20, 0),     # equal to the Test roll: still nothing
    (21, 10),    # succeeds with a roll above 20: bonus 10
    (30, 10),
    (31, 30),    # parry fails: bonus 30
])
def test_R4_4_test_bonus_10_30_or_nothing(defence_roll: int, bonus: int) -> None:
    state = fight("practice", olaf(bp=1), marcus(broadsword=40))
    state, _ = play(state, """
        Olaf: first
        Olaf: test
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.TEST, 40)   # Test 40 at 0.1 BP
    state, events = play(state, f"""
        Olaf rolls 20        # success
        Marcus: parry
        Marcus rolls {defence_roll}
    """)
    assert of(events, BonusEarned) == ([BonusEarned(0, bonus)] if bonus else [])
    assert state.fighters[0].bonus == (Bonus(bonus, 1) if bonus else None)
    assert rolls(events, RollFor.DAMAGE) == []      # a Test never rolls damage
    assert state.awaiting == waiting(1, Need.ACTION)
    assert state.fighters[1].injuries == {}


def test_R4_4_failed_test_has_no_defence_roll() -> None:
    state = fight("practice", olaf(bp=15), marcus())     # 1.5 BP: Test 40 + 3 = 43
    state, _ = play(state, """
        Olaf: first
        Olaf: test
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.TEST, 43)
    state, events = play(state, "Olaf rolls 44        # miss")
    assert state.awaiting == waiting(1, Need.ACTION)
    assert of(events, BonusEarned) == []
    assert state.fighters[0].bonus is None


def test_R4_4_test_is_not_changed_by_range() -> None:
    state = fight("practice", gorbag(bp=1), gaius())
    state, _ = play(state, "Gorbag: first")
    assert actions(state)["test"] == (40,)   # the club's -10 at standard range does not apply
    assert actions(state)["attack"] == (20,)


# -- R4.5 the Test bonus -----------------------------------------------------------------
# Olaf Tests in turn 1 and earns 30; Marcus (broadsword 40: Dodge 20, Block 30, Parry 30)
# has turn 2; Olaf's next turn is turn 3.


def olaf_holds_30() -> FightState:
    state = fight("practice", olaf(bp=1), marcus(broadsword=40))
    state, _ = play(state, "Olaf: first")
    return earn_30(state, "Olaf", "Marcus")


def test_R4_5_undeclared_bonus_reduces_opponent_defence_in_holders_next_turn() -> None:
    state = olaf_holds_30()
    assert state.fighters[0].bonus == Bonus(30, 1)
    state, _ = play(state, """
        Marcus: attack
        Marcus rolls 10      # broadsword 40: hit
    """)
    # Marcus's turn: Olaf's own defences are not raised by an undeclared bonus
    assert defences(state) == {"dodge": 30, "block": 30, "parry": 25, "luck": 5}
    state, _ = play(state, """
        Olaf: dodge
        Olaf rolls 10        # dodged
        Olaf: attack
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 30)   # no attack bonus
    state, _ = play(state, "Olaf rolls 25        # hit")
    # reduce: 30 off every defence but Luck
    assert defences(state) == {"dodge": -10, "block": 0, "parry": 0, "luck": 5}


def test_R4_5_attack_bonus_added_in_holders_next_turn() -> None:
    state = olaf_holds_30()
    state, _ = play(state, """
        Marcus: attack
        Marcus rolls 10      # hit
    """)
    assert defences(state) == {"dodge": 30, "block": 30, "parry": 25, "luck": 5}
    state, _ = play(state, """
        Olaf: block
        Olaf rolls 10        # blocked
        Olaf: attack
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 30)
    state, _ = play(state, "Olaf: bonus attack     # declared just before the roll")
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 60)
    state, _ = play(state, "Olaf rolls 55        # 30 + 30: hit")
    assert defences(state) == {"dodge": 20, "block": 30, "parry": 30, "luck": 5}


def test_R4_5_attack_bonus_counts_for_both_rolls_of_a_double() -> None:
    state = fight("practice", lucius(bp=1, shortsword=40), gorbag())
    state, _ = play(state, "Lucius: first")
    state = earn_30(state, "Lucius", "Gorbag")
    state, _ = play(state, """
        Lucius: bonus attack
        Gorbag: attack
        Gorbag rolls 99      # miss
    """)
    assert actions(state)["double"] == (60, 60)   # 40 - 10 + 30, twice (equal lengths)


def test_R4_5_attack_bonus_does_not_raise_a_test_roll() -> None:
    # engine's reading: a Test is rolled "like an attack" but is no attack roll (R4.4)
    state = olaf_holds_30()
    state, _ = play(state, """
        Olaf: bonus attack
        Marcus: attack
        Marcus rolls 99      # miss
    """)
    assert actions(state)["test"] == (40,)
    assert actions(state)["attack"] == (60,)


def test_R4_5_defence_bonus_added_in_opponents_next_turn() -> None:
    state = olaf_holds_30()
    state, _ = play(state, """
        Marcus: attack
        Marcus rolls 10      # hit
        Olaf: bonus defence
    """)
    assert defences(state) == {"dodge": 60, "block": 60, "parry": 55, "luck": 5}
    state, events = play(state, """
        Olaf: parry
        Olaf rolls 55        # 25 + 30: parried
        Olaf: attack
    """)
    assert rolls(events, RollFor.DEFENCE) == [Rolled(0, RollFor.DEFENCE, 55, 55, True)]
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 30)
    state, _ = play(state, "Olaf rolls 25        # hit")
    assert defences(state) == {"dodge": 20, "block": 30, "parry": 30, "luck": 5}


def test_R4_5_defence_bonus_declared_before_a_chosen_defence_roll_counts() -> None:
    state = olaf_holds_30()
    state, _ = play(state, """
        Marcus: attack
        Marcus rolls 10      # hit
        Olaf: dodge
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.DEFENCE, 30)
    state, _ = play(state, "Olaf: bonus defence")
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.DEFENCE, 60)


def test_R4_5_a_second_declaration_is_refused_and_the_first_stands() -> None:
    state = olaf_holds_30()
    state, _ = play(state, "Olaf: bonus attack     # in Marcus's turn, for Olaf's next")
    for line in ("Olaf: bonus reduce", "Olaf: bonus defence", "Olaf: bonus attack"):
        refused(state, line, Unavailable)                 # declared once, state unchanged
    state, _ = play(state, """
        Marcus: attack
        Marcus rolls 10      # hit
    """)
    # not for defence: Olaf's own defences stay as they are
    assert defences(state) == {"dodge": 30, "block": 30, "parry": 25, "luck": 5}
    refused(state, "Olaf: bonus defence", Unavailable)    # still refused in Marcus's turn
    state, _ = play(state, """
        Olaf: block
        Olaf rolls 10        # blocked
        Olaf: attack
    """)
    refused(state, "Olaf: bonus reduce", Unavailable)     # and in Olaf's own
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 60)   # 30 + 30
    state, _ = play(state, "Olaf rolls 55        # hit")
    # the attack use, not reduce: Marcus defends at full
    assert defences(state) == {"dodge": 20, "block": 30, "parry": 30, "luck": 5}


def test_R4_5_a_late_defence_declaration_is_refused_and_the_bonus_still_reduces() -> None:
    state = olaf_holds_30()
    state, _ = play(state, """
        Marcus: attack
        Marcus rolls 99      # miss: Marcus's turn, the one a defence use was for, is over
    """)
    assert state.turn == 3 and state.awaiting == waiting(0, Need.ACTION)
    refused(state, "Olaf: bonus defence", Unavailable)    # could no longer take effect
    assert state.fighters[0].bonus == Bonus(30, 1)        # undeclared: reduce
    state, _ = play(state, """
        Olaf: attack
        Olaf rolls 25        # broadsword 30: hit
    """)
    refused(state, "Olaf: bonus defence", Unavailable)
    # the default: 30 off Marcus's defences but Luck
    assert defences(state) == {"dodge": -10, "block": 0, "parry": 0, "luck": 5}


def test_R4_5_a_refused_late_defence_is_no_declaration() -> None:
    """Engine choice: a refused command changes nothing, so after a late ``defence`` the
    holder may still declare ``attack`` (or ``reduce``) in time."""
    state = olaf_holds_30()
    state, _ = play(state, """
        Marcus: attack
        Marcus rolls 99      # miss
    """)
    refused(state, "Olaf: bonus defence", Unavailable)
    state, _ = play(state, """
        Olaf: bonus attack
        Olaf: attack
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 60)


def test_R4_5_bonus_lapses_after_holders_next_turn() -> None:
    state = olaf_holds_30()
    state, _ = play(state, """
        Olaf: bonus attack
        Marcus: attack
        Marcus rolls 99      # miss
        Olaf: close          # turn 3 passes without an attack
        Olaf rolls 99        # dodge 30: fails
    """)
    assert state.turn == 4
    assert state.fighters[0].bonus is None
    refused(state, "Olaf: bonus reduce", Unavailable)
    state, _ = play(state, """
        Marcus: attack
        Marcus rolls 99      # miss
    """)
    assert actions(state)["attack"] == (30,)


def test_R4_5_bonuses_do_not_stack_new_one_replaces_old_after_its_turn() -> None:
    state = fight("practice", olaf(bp=1), marcus(broadsword=40))
    state, _ = play(state, """
        Olaf: first
        Olaf: test
        Olaf rolls 20        # test 40: success
        Marcus: parry
        Marcus rolls 25      # parry 30 succeeds, 25 > 20: bonus 10
        Marcus: attack
        Marcus rolls 99      # miss
        Olaf: test
        Olaf rolls 30        # success
    """)
    assert state.fighters[0].bonus == Bonus(10, 1)
    # the old bonus still reduces in the turn that earns the new one
    assert defences(state) == {"dodge": 10, "block": 20, "parry": 20, "luck": 5}
    state, events = play(state, """
        Marcus: parry
        Marcus rolls 50      # parry 20: fails, bonus 30
    """)
    assert of(events, BonusEarned) == [BonusEarned(0, 30)]
    assert state.fighters[0].bonus == Bonus(30, 3)     # replaced, not 40
    state, _ = play(state, """
        Marcus: attack
        Marcus rolls 99      # miss
        Olaf: attack
        Olaf rolls 10        # hit
    """)
    assert defences(state) == {"dodge": -10, "block": 0, "parry": 0, "luck": 5}


def test_R4_5_each_side_bonus_applies_in_its_own_window() -> None:
    # Olaf holds 30 (undeclared: reduce); Marcus earns 30 in turn 2 and keeps it for defence
    state = olaf_holds_30()
    state = earn_30(state, "Marcus", "Olaf", defence="dodge")
    state, _ = play(state, """
        Marcus: bonus defence
        Olaf: attack
        Olaf rolls 10        # hit
    """)
    # Marcus's Parry 30 + 30 (his defence) - 30 (Olaf's reduce)
    assert defences(state) == {"dodge": 20, "block": 30, "parry": 30, "luck": 5}


# -- R4.6 Yield -------------------------------------------------------------------------


def test_R4_6_rejected_yield_loses_the_turn() -> None:
    state = fight("practice", olaf(bp=1), marcus())
    state, events = play(state, """
        Olaf: first
        Olaf: yield
    """)
    assert state.awaiting == waiting(1, Need.YIELD_ANSWER)
    state, events = play(state, "Marcus: reject")
    assert of(events, YieldAnswered) == [YieldAnswered(1, False)]
    assert state.outcome is None
    assert state.awaiting == waiting(1, Need.ACTION)
    assert of(events, TurnStarted) == [TurnStarted(1, 2)]


def test_R4_6_accepted_yield_ends_a_practice_bout() -> None:
    state = fight("practice", olaf(bp=1), marcus())
    state, _ = play(state, """
        Olaf: first
        Olaf: yield
    """)
    refused(state, "Marcus: accept prisoner", Unavailable)   # prisoners only in mortal fights
    state, events = play(state, "Marcus: accept")
    assert state.outcome == Outcome(Ending.YIELD, 1)
    assert of(events, PrisonerTaken) == []
    assert of(events, BPAwarded) == [BPAwarded(1, 2, AwardReason.WIN),
                                     BPAwarded(0, 1, AwardReason.LOSS)]


def test_R4_6_mortal_accept_takes_prisoner_by_default() -> None:
    state = fight("mortal", olaf(bp=1), marcus())
    state, events = play(state, """
        Olaf: first
        Olaf: yield
        Marcus: accept
    """)
    assert state.outcome == Outcome(Ending.YIELD, 1, prisoner=True)
    assert of(events, PrisonerTaken) == [PrisonerTaken(0, 1, None)]
    assert BPAwarded(1, 10, AwardReason.CAPTURED) in events


def test_R4_6_mortal_accept_and_release() -> None:
    state = fight("mortal", olaf(bp=1), marcus())
    state, events = play(state, """
        Olaf: first
        Olaf: yield
        Marcus: accept release
    """)
    assert state.outcome == Outcome(Ending.YIELD, 1, prisoner=False)
    assert of(events, PrisonerTaken) == []
    assert of(events, BPAwarded) == [BPAwarded(1, 5, AwardReason.MORTAL),
                                     BPAwarded(0, 5, AwardReason.MORTAL)]


def test_R4_6_mortal_accept_with_ransom() -> None:
    state = fight("mortal", olaf(bp=1), marcus())
    state, _ = play(state, """
        Olaf: first
        Olaf: yield
    """)
    refused(state, "Marcus: accept release ransom 50 silver", Unavailable)
    state, events = play(state, "Marcus: accept prisoner ransom 50 silver")
    assert state.outcome == Outcome(Ending.YIELD, 1, True, "50 silver")
    assert of(events, PrisonerTaken) == [PrisonerTaken(0, 1, "50 silver")]


# -- R4.7 Close and Open ---------------------------------------------------------------
# Gorbag (club, Dodge 30) against Gaius (spear, Dodge 20).


def test_R4_7_close_changes_range_when_opponent_fails_dodge() -> None:
    state = fight("practice", gorbag(bp=1), gaius())
    state, _ = play(state, """
        Gorbag: first
        Gorbag: close
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.MANOEUVRE, 30)
    state, _ = play(state, "Gorbag rolls 30      # dodge 30: success")
    assert state.awaiting == waiting(1, Need.ROLL, RollFor.RESIST, 20)
    state, events = play(state, "Gaius rolls 21       # dodge 20: fails")
    assert of(events, RangeChanged) == [RangeChanged(Range.CLOSE)]
    assert state.range is Range.CLOSE
    assert state.awaiting == waiting(1, Need.ACTION)
    assert "close" not in actions(state) and "flee" not in actions(state)
    state, _ = play(state, "Gaius: open")
    assert state.awaiting == waiting(1, Need.ROLL, RollFor.MANOEUVRE, 20)
    state, _ = play(state, """
        Gaius rolls 5        # success
        Gorbag rolls 31      # dodge 30: fails
    """)
    assert state.range is Range.STANDARD


def test_R4_7_close_resisted_or_failed_leaves_range() -> None:
    state = fight("practice", gorbag(bp=1), gaius())
    state, events = play(state, """
        Gorbag: first
        Gorbag: close
        Gorbag rolls 10      # success
        Gaius rolls 20       # dodge 20: resisted
    """)
    assert state.range is Range.STANDARD and of(events, RangeChanged) == []
    assert state.awaiting == waiting(1, Need.ACTION)
    state, events = play(state, """
        Gaius: close
        Gaius rolls 21       # dodge 20: fails, Gorbag need not resist
    """)
    assert rolls(events, RollFor.RESIST) == []
    assert state.range is Range.STANDARD
    assert state.awaiting == waiting(0, Need.ACTION)
    refused(state, "Gorbag: open", Unavailable)       # already at standard range


def test_R4_7_resist_under_press_penalty_is_5() -> None:
    state = fight("practice", gaius(bp=1), gorbag())
    state, _ = play(state, """
        Gaius: first
        Gaius: press
        Gaius rolls 99       # 30 + 10 + 25 = 65: miss
        Gorbag: close
        Gorbag rolls 10      # success
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.RESIST, 5)
    state, _ = play(state, "Gaius rolls 6        # fails")
    assert state.range is Range.CLOSE


def test_R4_7_downed_opponent_cannot_resist_and_downed_actor_cannot_move() -> None:
    state = fight("practice", gorbag(bp=1), gaius())
    state, _ = play(state, """
        Gorbag: first
        Gorbag: attack
        Gorbag rolls 10      # club 30 - 10 = 20: hit; last digit 0: disabling
        Gaius: dodge
        Gaius rolls 90       # fails
        Gorbag rolls 40      # Cohort 37-56: right leg disabled
    """)
    assert state.fighters[1].down
    for move in ("close", "flee"):
        refused(state, f"Gaius: {move}", Unavailable)
    state, events = play(state, """
        Gaius: attack
        Gaius rolls 99       # miss
        Gorbag: close
        Gorbag rolls 10      # success: the downed Gaius cannot resist
    """)
    assert rolls(events, RollFor.RESIST) == []
    assert state.range is Range.CLOSE
    assert state.awaiting == waiting(1, Need.ACTION)
    refused(state, "Gaius: open", Unavailable)


# -- R4.8 Flee --------------------------------------------------------------------------
# Olaf (Dodge 30) lets Marcus act first; Marcus flees in turn 1.


def marcus_flees(**olaf_levels: int) -> FightState:
    state = fight("practice", olaf(bp=1, **olaf_levels), marcus(broadsword=40))
    state, _ = play(state, """
        Olaf: second
        Marcus: flee
    """)
    assert state.awaiting == waiting(0, Need.FLEE_ANSWER)
    return state


def test_R4_8_stopped_flight_ends_the_fleeing_sides_turn() -> None:
    state = marcus_flees()
    assert actions(state) == {"stop": (30,), "attack": (30,), "press": (55,)}
    state, _ = play(state, "Olaf: stop")
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.STOP, 30)
    state, events = play(state, "Olaf rolls 30        # dodge 30: the flight is stopped")
    assert of(events, FlightStopped) == [FlightStopped(0)]
    assert state.outcome is None and state.fleeing is None
    assert of(events, TurnStarted) == [TurnStarted(0, 2)]     # an ordinary turn
    assert state.awaiting == waiting(0, Need.ACTION)


def test_R4_8_failed_stop_then_last_turn_then_escape() -> None:
    state = marcus_flees()
    state, events = play(state, """
        Olaf: stop
        Olaf rolls 31        # dodge 30: fails
    """)
    assert of(events, TurnStarted) == [TurnStarted(0, 2, last_turn=True)]
    assert state.awaiting == waiting(0, Need.LAST_TURN)
    assert actions(state) == {"attack": (30,), "press": (55,)}
    refused(state, "Olaf: test", Unavailable)
    refused(state, "Olaf: stop", IllegalCommand)
    state, events = play(state, """
        Olaf: attack
        Olaf rolls 20        # broadsword 30: hit
    """)
    assert state.awaiting == waiting(1, Need.ROLL, RollFor.DEFENCE, 5)   # Luck only
    state, events = play(state, """
        Marcus rolls 50      # Luck 5: fails
        Olaf rolls 90        # Cohort: No Effect
    """)
    assert state.outcome == Outcome(Ending.ESCAPE, 0)
    assert of(events, BPAwarded) == [BPAwarded(0, 2, AwardReason.WIN),
                                     BPAwarded(1, 1, AwardReason.LOSS)]


def test_R4_8_last_turn_taken_at_once_without_stop() -> None:
    state = marcus_flees()
    state, events = play(state, "Olaf: press")
    assert rolls(events) == []
    assert of(events, TurnStarted) == [TurnStarted(0, 2, last_turn=True)]
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 55)
    state, _ = play(state, "Olaf rolls 56        # miss")
    assert state.outcome == Outcome(Ending.ESCAPE, 0)


def test_R4_8_fleeing_side_defends_only_with_luck() -> None:
    state = fight("practice", gorbag(bp=1, club=50), lucius())
    state, events = play(state, """
        Gorbag: second
        Lucius: flee
        Gorbag: double
        Gorbag rolls 40      # club 50 - 10: hit
        Gorbag rolls 40      # hit
    """)
    assert [e.defence.value for e in of(events, DefenceChosen)] == ["luck"]   # not asked
    assert state.awaiting == waiting(1, Need.ROLL, RollFor.DEFENCE, 5)
    state, _ = play(state, """
        Lucius rolls 5       # Luck: the first hit is stopped
    """)
    assert state.awaiting == waiting(1, Need.ROLL, RollFor.DEFENCE, 5)   # Luck again
    state, _ = play(state, """
        Lucius rolls 3       # Luck: stopped too
    """)
    assert state.outcome == Outcome(Ending.ESCAPE, 0)


def test_R4_8_last_turn_disabling_a_leg_keeps_the_fight_going() -> None:
    state = marcus_flees()
    state, events = play(state, """
        Olaf: attack
        Olaf rolls 10        # hit; last digit 0: disabling
        Marcus rolls 50      # Luck 5: fails
        Olaf rolls 40        # Cohort 37-56: right leg disabled
    """)
    assert state.fighters[1].down
    assert state.outcome is None and state.fleeing is None
    assert of(events, TurnStarted)[-1] == TurnStarted(1, 3)
    assert state.awaiting == waiting(1, Need.ACTION)
    assert "flee" not in actions(state)


def test_R4_8_last_turn_wound_to_a_leg_still_lets_the_flight_escape() -> None:
    state = marcus_flees()
    state, _ = play(state, """
        Olaf: attack
        Olaf rolls 15        # hit; last digit 5 > 4: a wound
        Marcus rolls 50      # Luck 5: fails
        Olaf rolls 40        # Cohort 37-56: right leg wounded
    """)
    assert state.outcome == Outcome(Ending.ESCAPE, 0)


def test_R4_8_last_turn_kill_ends_the_fight() -> None:
    state = marcus_flees()
    state, _ = play(state, """
        Olaf: attack
        Olaf rolls 20        # hit
        Marcus rolls 50      # Luck 5: fails
        Olaf rolls 2         # Cohort 1-3: kill
    """)
    assert state.outcome == Outcome(Ending.KILL, 0)


def test_R4_8_last_turn_press_penalty_carries_into_fleeing_sides_turn() -> None:
    state = marcus_flees()
    state, _ = play(state, """
        Olaf: press
        Olaf rolls 50        # 30 + 25 = 55: hit; last digit 0: disabling
        Marcus rolls 50      # Luck 5: fails
        Olaf rolls 40        # right leg disabled
        Marcus: attack
        Marcus rolls 10      # broadsword 40: hit
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.DEFENCE, 5)   # Olaf pressed


def test_R4_8_last_turn_ends_the_stoppers_press_penalty() -> None:
    state = fight("practice", olaf(bp=1), marcus(broadsword=40))
    state, _ = play(state, """
        Olaf: first
        Olaf: press
        Olaf rolls 99        # miss
        Marcus: flee
        Olaf: stop
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.STOP, 5)   # Press penalty (R4.12)
    state, _ = play(state, """
        Olaf rolls 6         # fails
        Olaf: attack
        Olaf rolls 10        # hit; disabling
        Marcus rolls 50      # Luck: fails
        Olaf rolls 40        # right leg disabled
        Marcus: attack
        Marcus rolls 10      # hit
    """)
    # Olaf's last action was an Attack: his defences are back
    assert defences(state) == {"dodge": 30, "block": 30, "parry": 25, "luck": 5}


def test_R4_8_no_free_attack_from_the_last_turn() -> None:
    state = fight("practice", bran(bp=1, axe=40), marcus())
    state, events = play(state, """
        Bran: second
        Marcus: flee
        Bran: attack
        Bran rolls 95        # axe 40: a miss of 81 or more, but in the last turn
    """)
    assert ActionTaken(1, Action.FREE_ATTACK) not in events
    assert state.outcome == Outcome(Ending.ESCAPE, 0)


def test_R4_8_flee_only_at_standard_range() -> None:
    state = fight("practice", gorbag(bp=1), gaius())
    state, _ = play(state, """
        Gorbag: first
        Gorbag: close
        Gorbag rolls 10      # success
        Gaius rolls 90       # fails: close quarters
    """)
    refused(state, "Gaius: flee", Unavailable)


def test_R4_8_downed_opponent_cannot_stop_but_takes_the_last_turn() -> None:
    state = fight("practice", olaf(bp=1), marcus(broadsword=40))
    state, _ = play(state, """
        Olaf: second
        Marcus: attack
        Marcus rolls 10      # hit; disabling
        Olaf: dodge
        Olaf rolls 90        # fails
        Marcus rolls 40      # Highlander 33-52: right leg disabled
        Olaf: attack
        Olaf rolls 99        # miss
        Marcus: flee
    """)
    assert actions(state) == {"attack": (30,), "press": (55,)}
    refused(state, "Olaf: stop", Unavailable)
    state, _ = play(state, """
        Olaf: attack
        Olaf rolls 99        # miss
    """)
    assert state.outcome == Outcome(Ending.ESCAPE, 0)


def test_R4_8_last_turn_counts_as_holders_next_turn_for_the_bonus() -> None:
    state = fight("practice", olaf(bp=1), marcus(broadsword=40))
    state, _ = play(state, "Olaf: first")
    state = earn_30(state, "Olaf", "Marcus")
    state, _ = play(state, """
        Olaf: bonus attack
        Marcus: flee
        Olaf: attack
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 60)   # 30 + 30


def test_R4_8_flee_answer_options_show_the_last_turn_chances() -> None:
    # regression: legal_actions at b592faa priced the last turn at the fleeing side's
    # turn number and left the attack bonus out (attack 30, press 55)
    state = fight("practice", olaf(bp=1), marcus(broadsword=40))
    state, _ = play(state, "Olaf: first")
    state = earn_30(state, "Olaf", "Marcus")
    state, _ = play(state, """
        Olaf: bonus attack
        Marcus: flee
    """)
    # the stop is Olaf's Dodge in Marcus's turn; the last turn is Olaf's next turn
    assert actions(state) == {"stop": (30,), "attack": (60,), "press": (85,)}


# -- R4.9 Range -------------------------------------------------------------------------


def test_R4_9_range_modifiers_at_standard_and_close() -> None:
    state = fight("practice", gaius(bp=1), gorbag())
    state, _ = play(state, "Gaius: first")
    # standard: spear (3) +10, club (1) -10
    assert actions(state) == {"attack": (40,), "press": (65,), "test": (40,),
                              "close": (20,), "flee": (), "yield": ()}
    state, _ = play(state, """
        Gaius: attack
        Gaius rolls 99       # miss
    """)
    assert actions(state)["attack"] == (20,)
    assert actions(state)["double"] == (10, 10)
    assert actions(state)["press"] == (45,)
    state, _ = play(state, """
        Gorbag: close
        Gorbag rolls 10      # dodge 30: success
        Gaius rolls 90       # dodge 20: fails, close quarters
    """)
    # close quarters: the signs swap
    assert actions(state)["attack"] == (20,)
    assert actions(state)["press"] == (45,)
    assert actions(state)["test"] == (40,)
    assert actions(state)["open"] == (20,)
    state, _ = play(state, """
        Gaius: attack
        Gaius rolls 20       # 30 - 10: hit
    """)
    assert defences(state) == {"dodge": 30, "block": 30, "parry": 25, "luck": 5}
    state, _ = play(state, """
        Gorbag: dodge
        Gorbag rolls 10      # dodged
    """)
    assert actions(state)["attack"] == (40,)
    assert actions(state)["double"] == (30, 30)
    assert actions(state)["press"] == (65,)


def test_R4_9_no_range_modifier_for_equal_lengths() -> None:
    state = fight("practice", gorbag(bp=1), lucius())
    state, _ = play(state, "Gorbag: first")
    assert actions(state)["attack"] == (30,)


# -- R4.10 Slow weapons ----------------------------------------------------------------
# Bran (axe 40: Parry 30) against Marcus (broadsword 40). Equal lengths.


def test_R4_10_slow_weapon_free_attack() -> None:
    state = fight("practice", bran(bp=1, axe=40), marcus(broadsword=40))
    state, events = play(state, """
        Bran: first
        Bran: attack
        Bran rolls 81        # axe 40: miss with 81 or more
    """)
    assert ActionTaken(1, Action.FREE_ATTACK) in events
    assert state.awaiting == waiting(1, Need.ROLL, RollFor.ATTACK, 40)
    assert state.turn == 1                  # not a turn of its own
    state, _ = play(state, "Marcus rolls 30      # broadsword 40: hit; disabling")
    assert defences(state) == {"dodge": 30, "block": 30, "parry": 30, "luck": 5}
    state, events = play(state, """
        Bran: dodge
        Bran rolls 90        # fails
        Marcus rolls 25      # Highlander 24-32: off arm disabled
    """)
    assert state.fighters[0].disabled(Location.OFF_ARM)
    assert of(events, TurnStarted) == [TurnStarted(1, 2)]   # then Marcus's own turn
    assert state.awaiting == waiting(1, Need.ACTION)


@pytest.mark.parametrize("roll", [80, 41])
def test_R4_10_miss_below_81_gives_no_free_attack(roll: int) -> None:
    state = fight("practice", bran(bp=1, axe=40), marcus())
    state, events = play(state, f"""
        Bran: first
        Bran: attack
        Bran rolls {roll}    # a miss, but below 81
    """)
    assert ActionTaken(1, Action.FREE_ATTACK) not in events
    assert state.awaiting == waiting(1, Need.ACTION)


def test_R4_10_no_free_attack_against_a_slow_weapon() -> None:
    state = fight("practice", bran(bp=1, axe=40), ulf())
    state, events = play(state, """
        Bran: first
        Bran: attack
        Bran rolls 95        # axe 40 - 5: miss, but Ulf's greatsword is slow too
    """)
    assert ActionTaken(1, Action.FREE_ATTACK) not in events
    assert state.awaiting == waiting(1, Need.ACTION)


def test_R4_10_no_free_attack_after_a_test_or_a_hit() -> None:
    state = fight("practice", bran(bp=1, axe=40), marcus())
    state, events = play(state, """
        Bran: first
        Bran: test
        Bran rolls 90        # test 40: miss, but a Test is no Attack
    """)
    assert state.awaiting == waiting(1, Need.ACTION)
    assert ActionTaken(1, Action.FREE_ATTACK) not in events


def test_R4_10_free_attack_after_missed_press_ignores_the_press_penalty() -> None:
    state = fight("practice", bran(bp=1, axe=40), marcus(broadsword=40))
    state, _ = play(state, """
        Bran: first
        Bran: press
        Bran rolls 90        # 40 + 25 = 65: miss with 81 or more
    """)
    assert state.awaiting == waiting(1, Need.ROLL, RollFor.ATTACK, 40)   # no +25, no bonus
    state, _ = play(state, "Marcus rolls 10      # hit")
    # Bran pressed, but no Press effect applies to the free attack
    assert defences(state) == {"dodge": 30, "block": 30, "parry": 30, "luck": 5}
    state, _ = play(state, """
        Bran: block
        Bran rolls 5         # blocked
        Marcus: attack
        Marcus rolls 10      # hit
    """)
    # in Marcus's own turn the Press penalty is back
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.DEFENCE, 5)


def test_R4_10_free_attack_defence_does_not_use_up_defences() -> None:
    state = fight("practice", bran(bp=1, axe=40), marcus(broadsword=40))
    state, _ = play(state, """
        Bran: first
        Bran: attack
        Bran rolls 90        # wild miss
        Marcus rolls 10      # free attack: hit
        Bran: dodge
        Bran rolls 5         # dodged
        Marcus: attack
        Marcus rolls 10      # hit
    """)
    assert defences(state) == {"dodge": 30, "block": 30, "parry": 30, "luck": 5}


@pytest.mark.parametrize("use", [None, "attack", "reduce"])
def test_R4_10_free_attack_takes_no_test_bonus(use: str | None) -> None:
    state = fight("practice", marcus(bp=1, broadsword=40), bran(axe=40))
    state, _ = play(state, "Marcus: first")
    state = earn_30(state, "Marcus", "Bran")            # Marcus holds 30
    if use:
        state, _ = play(state, f"Marcus: bonus {use}")
    state, _ = play(state, """
        Bran: attack
        Bran rolls 85        # wild miss
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, 40)   # not 70
    state, _ = play(state, "Marcus rolls 10      # hit")
    assert defences(state) == {"dodge": 30, "block": 30, "parry": 30, "luck": 5}
    state, _ = play(state, """
        Bran: dodge
        Bran rolls 5         # dodged
        Marcus: attack
    """)
    # the bonus is still there for Marcus's next (real) turn
    chance = 70 if use == "attack" else 40
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.ATTACK, chance)


# -- R4.11 Order of rolls --------------------------------------------------------------
# Gorbag (club 50: Double at 40, 40) against Lucius (Dodge 20, Block 30, Parry 25).


def steps(state: FightState, script: str) -> tuple[FightState, list[Awaiting | None]]:
    """Play a transcript line by line, noting what the fight awaits after each."""
    seen = []
    for line in script.strip().splitlines():
        state, _ = play(state, line)
        seen.append(state.awaiting)
    return state, seen


def test_R4_11_double_rolls_attacks_then_defences_then_damage() -> None:
    state = fight("practice", gorbag(bp=1, club=50), lucius())
    state, _ = play(state, "Gorbag: first")
    state, seen = steps(state, """
        Gorbag: double
        Gorbag rolls 31      # hit; last digit 1 <= 2: disabling
        Gorbag rolls 33      # hit; 3 > 2: a wound
        Lucius: dodge
        Lucius rolls 50      # dodge 20: fails
        Lucius: parry
        Lucius rolls 90      # parry 25: fails
        Gorbag rolls 90      # first damage: Cohort No Effect
        Gorbag rolls 45      # second damage: Cohort 37-56, right leg
    """)
    assert seen == [
        waiting(0, Need.ROLL, RollFor.ATTACK, 40),
        waiting(0, Need.ROLL, RollFor.ATTACK, 40),
        waiting(1, Need.DEFENCE),
        waiting(1, Need.ROLL, RollFor.DEFENCE, 20),
        waiting(1, Need.DEFENCE),
        waiting(1, Need.ROLL, RollFor.DEFENCE, 25),
        waiting(0, Need.ROLL, RollFor.DAMAGE),
        waiting(0, Need.ROLL, RollFor.DAMAGE),
        waiting(1, Need.ACTION),
    ]
    assert state.fighters[1].injuries == {Location.RIGHT_LEG: Severity.WOUND}


def test_R4_11_second_defence_is_chosen_from_what_is_left() -> None:
    state = fight("practice", gorbag(bp=1, club=50), lucius())
    state, _ = play(state, """
        Gorbag: first
        Gorbag: double
        Gorbag rolls 31      # hit
        Gorbag rolls 33      # hit
        Lucius: dodge
        Lucius rolls 50      # fails
    """)
    assert defences(state) == {"block": 30, "parry": 25, "luck": 5}   # Dodge is used


def test_R4_11_only_hits_get_a_defence_roll() -> None:
    state = fight("practice", gorbag(bp=1, club=50), lucius())
    state, _ = play(state, "Gorbag: first")
    state, seen = steps(state, """
        Gorbag: double
        Gorbag rolls 90      # miss
        Gorbag rolls 33      # hit
        Lucius: block
        Lucius rolls 5       # blocked
    """)
    assert seen[2:] == [
        waiting(1, Need.DEFENCE),
        waiting(1, Need.ROLL, RollFor.DEFENCE, 30),
        waiting(1, Need.ACTION),
    ]


def test_R4_11_kill_stops_further_rolls() -> None:
    state = fight("practice", gorbag(bp=1, club=50), lucius())
    state, events = play(state, """
        Gorbag: first
        Gorbag: double
        Gorbag rolls 31      # hit
        Gorbag rolls 33      # hit
        Lucius: dodge
        Lucius rolls 50      # fails
        Lucius: parry
        Lucius rolls 90      # fails
        Gorbag rolls 2       # Cohort 1-3: kill
    """)
    assert state.outcome == Outcome(Ending.KILL, 0)
    assert state.awaiting is None
    assert len(rolls(events, RollFor.DAMAGE)) == 1
    refused(state, "Gorbag rolls 45", FightOver)


def test_R4_11_first_blood_in_a_duel_stops_further_rolls() -> None:
    state = fight("duel", gorbag(bp=1, club=50), lucius())
    state, events = play(state, """
        Gorbag: first
        Gorbag: double
        Gorbag rolls 31      # hit
        Gorbag rolls 33      # hit
        Lucius: dodge
        Lucius rolls 50      # fails
        Lucius: parry
        Lucius rolls 90      # fails
        Gorbag rolls 45      # Cohort 37-56: right leg disabled, first blood
    """)
    assert state.outcome == Outcome(Ending.FIRST_BLOOD, 0)
    assert len(rolls(events, RollFor.DAMAGE)) == 1


def test_R4_11_free_attack_follows_the_missed_roll_at_once() -> None:
    state = fight("practice", bran(bp=1, axe=40), marcus(broadsword=40))
    state, _ = play(state, "Bran: first")
    state, seen = steps(state, """
        Bran: attack
        Bran rolls 99        # wild miss
        Marcus rolls 10      # free attack: hit
        Bran: parry
        Bran rolls 50        # parry 30: fails
        Marcus rolls 90      # Highlander: No Effect
    """)
    assert seen == [
        waiting(0, Need.ROLL, RollFor.ATTACK, 40),
        waiting(1, Need.ROLL, RollFor.ATTACK, 40),
        waiting(0, Need.DEFENCE),
        waiting(0, Need.ROLL, RollFor.DEFENCE, 30),
        waiting(1, Need.ROLL, RollFor.DAMAGE),
        waiting(1, Need.ACTION),
    ]


# -- R4.12 Resisting Dodge -------------------------------------------------------------


def test_R4_12_resisting_dodge_takes_the_resisters_defence_bonus() -> None:
    state = fight("practice", gaius(bp=1), gorbag())
    state, _ = play(state, "Gaius: first")
    state = earn_30(state, "Gaius", "Gorbag")
    state, _ = play(state, """
        Gaius: bonus defence
        Gorbag: close
        Gorbag rolls 10      # dodge 30: success
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.RESIST, 50)   # 20 + 30


def test_R4_12_resisting_dodge_loses_the_actors_reduce_bonus() -> None:
    state = fight("practice", gorbag(bp=1), gaius())
    state, _ = play(state, "Gorbag: first")
    state = earn_30(state, "Gorbag", "Gaius")
    state, _ = play(state, """
        Gaius: attack
        Gaius rolls 99       # miss
        Gorbag: close
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.MANOEUVRE, 30)   # no bonus
    state, _ = play(state, "Gorbag rolls 10      # success")
    assert state.awaiting == waiting(1, Need.ROLL, RollFor.RESIST, -10)    # 20 - 30
    state, _ = play(state, "Gaius rolls 1        # a 1 always succeeds")
    assert state.range is Range.STANDARD


def test_R4_12_actors_own_dodge_takes_no_bonus() -> None:
    state = fight("practice", gorbag(bp=1), gaius())
    state, _ = play(state, "Gorbag: first")
    state = earn_30(state, "Gorbag", "Gaius")
    state, _ = play(state, """
        Gorbag: bonus attack
        Gaius: attack
        Gaius rolls 99       # miss
    """)
    assert actions(state)["close"] == (30,)
    state, _ = play(state, "Gorbag: close")
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.MANOEUVRE, 30)
    state, _ = play(state, "Gorbag rolls 10      # dodge 30: success")
    assert state.awaiting == waiting(1, Need.ROLL, RollFor.RESIST, 20)   # attack use: no reduce


def test_R4_12_stop_dodge_takes_defence_bonus() -> None:
    state = fight("practice", olaf(bp=1), marcus(broadsword=40))
    state, _ = play(state, "Olaf: first")
    state = earn_30(state, "Olaf", "Marcus")
    state, _ = play(state, """
        Olaf: bonus defence
        Marcus: flee
        Olaf: stop
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.STOP, 60)   # 30 + 30


def test_R4_12_stop_dodge_loses_fleeing_sides_reduce_bonus() -> None:
    state = fight("practice", olaf(bp=1), marcus(broadsword=40))
    state, _ = play(state, "Olaf: second")
    state = earn_30(state, "Marcus", "Olaf", defence="dodge")
    state, _ = play(state, """
        Olaf: attack
        Olaf rolls 99        # miss
        Marcus: flee
    """)
    assert actions(state)["stop"] == (0,)    # 30 - 30
    state, _ = play(state, "Olaf: stop")
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.STOP, 0)


def test_R4_12_declaring_during_a_pending_resist_roll_reprices_it() -> None:
    state = fight("practice", gaius(bp=1), gorbag())
    state, _ = play(state, "Gaius: first")
    state = earn_30(state, "Gaius", "Gorbag")
    state, _ = play(state, """
        Gorbag: close
        Gorbag rolls 10      # success
    """)
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.RESIST, 20)
    state, _ = play(state, "Gaius: bonus defence")
    assert state.awaiting == waiting(0, Need.ROLL, RollFor.RESIST, 50)


# == Refused commands =================================================================


def olaf_to_act() -> FightState:
    state = fight("practice", olaf(bp=1), marcus())
    state, _ = play(state, "Olaf: first")
    return state


@pytest.mark.parametrize(("setup", "line", "error"), [
    ("", "Marcus: attack", NotYourTurn),
    ("Olaf: attack", "Marcus rolls 50", NotYourTurn),
    ("Olaf: attack\nOlaf rolls 10", "Olaf: dodge", NotYourTurn),
    ("", "Olaf: double", Unavailable),              # no Double with a broadsword
    ("", "Olaf: open", Unavailable),                # already at standard range
    ("", "Olaf: bonus attack", Unavailable),        # no Test bonus held
    ("", "Olaf: wield greatsword", Unavailable),    # no Greatsword skill
    ("Olaf: attack\nOlaf rolls 10\nMarcus: dodge\nMarcus rolls 5", "Marcus: luck", IllegalCommand),
    # an action is awaited, not a roll; the engine says IllegalCommand, though the
    # InvalidRoll docstring also names "a roll nobody asked for"
    ("", "Olaf rolls 50", IllegalCommand),
    ("", "Olaf: dodge", IllegalCommand),
    ("", "Olaf: stop", IllegalCommand),
    ("", "Olaf: accept", IllegalCommand),
    ("Olaf: attack", "Olaf: attack", IllegalCommand),
    ("Olaf: attack", "Olaf rolls 0", InvalidRoll),
    ("Olaf: attack", "Olaf rolls 101", InvalidRoll),
    ("Olaf: yield\nMarcus: accept", "Marcus: attack", FightOver),
    ("Olaf: yield\nMarcus: accept", "Olaf: wield broadsword", FightOver),
    ("Olaf: yield\nMarcus: accept", "mod: end Olaf", FightOver),
])
def test_refused_command_raises_typed_error_and_changes_nothing(
    setup: str, line: str, error: type[RulesError]
) -> None:
    state = olaf_to_act()
    if setup:
        state, _ = play(state, setup)
    refused(state, line, error)


def test_accepted_command_returns_a_new_state_and_leaves_the_old_one() -> None:
    state = olaf_to_act()
    before = copy.deepcopy(state)
    after, _ = play(state, """
        Olaf: attack
        Olaf rolls 10        # hit
        Marcus: parry
        Marcus rolls 90      # fails
        Olaf rolls 10        # Cohort: weapon arm
    """)
    assert state == before
    assert after != state
    assert after.fighters[1].injuries and not state.fighters[1].injuries


def test_fighting_oneself_is_refused() -> None:
    with pytest.raises(IllegalCommand):
        start(Kind.PRACTICE, olaf(), warrior("OLAF", "goblin", "club", "spear"))
