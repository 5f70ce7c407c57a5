"""An Cath ruling R2 (warriors): cultures, skills, BP, the Test skill and buying.

Each test is named after the ruling it checks (``docs/rulings.md``).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from transcript import fight, play, warrior

from rules.ancath import start
from rules.ancath.events import LoadoutSet
from rules.ancath.sheet import (
    ArmourSet,
    BPChanged,
    Sheet,
    SkillBought,
    add_bp,
    bp_available,
    buy_skill,
    create_warrior,
    derived_test,
    set_armour,
)
from rules.ancath.state import Kind, Need, RollFor
from rules.ancath.tables import CULTURES, Armour, Culture, Skill, skill_maximum
from rules.errors import IllegalCommand, InvalidSheet

S = Skill
C = Culture
A = Armour


def sheet(culture: Culture, *skills: Skill, armour: Armour | None = None, bp: int = 0,
          spent: int = 0, **levels: int) -> Sheet:
    made, _ = create_warrior("Test", culture, skills, armour, fairy_open=True)
    values = {**made.skills, **{Skill(k): v for k, v in levels.items()}}
    return replace(made, skills=values, bp=bp, bp_spent=spent)


# -- R2.1 cultures ----------------------------------------------------------------------


@pytest.mark.parametrize(("culture", "picks", "skills", "armour"), [
    (C.INVADERS, [S.SPEAR], {S.MOVE, S.SHIELD, S.SPEAR}, A.COHORT),
    (C.INVADERS, [S.BROADSWORD], {S.MOVE, S.SHIELD, S.BROADSWORD}, A.COHORT),
    (C.INVADERS, [S.SHORTSWORD], {S.MOVE, S.SHIELD, S.SHORTSWORD}, A.COHORT),
    (C.FREE_CLANS, [S.AXE, S.GREATSWORD], {S.MOVE, S.AXE, S.GREATSWORD}, A.HIGHLANDER),
    (C.FREE_CLANS, [S.BROADSWORD, S.SHIELD], {S.MOVE, S.BROADSWORD, S.SHIELD}, A.HIGHLANDER),
    (C.FAIRY, [S.COUNTERSWORD], {S.MOVE, S.SHORTSWORD, S.COUNTERSWORD}, A.LEATHER),
    (C.FAIRY, [S.LAJATANG], {S.MOVE, S.SHORTSWORD, S.LAJATANG}, A.LEATHER),
    (C.FAIRY, [S.SHIELD], {S.MOVE, S.SHORTSWORD, S.SHIELD}, A.LEATHER),
    (C.GOBLIN, [S.AXE, S.CLUB], {S.MOVE, S.AXE, S.CLUB}, A.LEATHER),
    (C.GOBLIN, [S.SHIELD, S.SPEAR], {S.MOVE, S.SHIELD, S.SPEAR}, A.LEATHER),
])
def test_R2_1_starting_skills_and_usual_armour(
    culture: Culture, picks: list[Skill], skills: set[Skill], armour: Armour
) -> None:
    made, _ = create_warrior("Test", culture, picks, fairy_open=True)
    assert set(made.skills) == skills
    assert made.armour is armour


@pytest.mark.parametrize(("culture", "picks"), [
    (C.INVADERS, [S.AXE]),                          # not open to Invaders
    (C.INVADERS, [S.BROADSWORD, S.SPEAR]),          # one of the three only
    (C.INVADERS, []),                               # one weapon needed
    (C.FREE_CLANS, [S.AXE, S.BROADSWORD, S.SHIELD]),  # one of Axe/Broadsword
    (C.FREE_CLANS, [S.AXE, S.GREATSWORD, S.SHIELD]),  # one of Greatsword/Shield
    (C.FREE_CLANS, [S.AXE]),
    (C.FAIRY, [S.COUNTERSWORD, S.LAJATANG]),
    (C.FAIRY, [S.SPEAR]),
    (C.GOBLIN, [S.CLUB]),                           # two of Axe/Club/Shield/Spear
    (C.GOBLIN, [S.AXE, S.CLUB, S.SPEAR]),
    (C.GOBLIN, [S.CLUB, S.BROADSWORD]),
])
def test_R2_1_starting_picks_must_fit_the_culture(culture: Culture, picks: list[Skill]) -> None:
    with pytest.raises(InvalidSheet):
        create_warrior("Test", culture, picks, fairy_open=True)


@pytest.mark.parametrize(("culture", "picks", "allowed", "refused"), [
    (C.INVADERS, [S.SPEAR], [A.COHORT, A.OFFICER, A.HIGHLANDER, A.LEATHER, A.NONE], [A.MAIL]),
    (C.FREE_CLANS, [S.AXE, S.SHIELD], [A.HIGHLANDER, A.MAIL, A.LEATHER, A.NONE],
     [A.COHORT, A.OFFICER]),
    (C.FAIRY, [S.SHIELD], [A.LEATHER, A.MAIL, A.NONE], [A.HIGHLANDER, A.COHORT, A.OFFICER]),
    (C.GOBLIN, [S.CLUB, S.SPEAR], [A.LEATHER, A.NONE],
     [A.MAIL, A.HIGHLANDER, A.COHORT, A.OFFICER]),   # captured armour only by a moderator
])
def test_R2_1_armour_open_to_each_culture(
    culture: Culture, picks: list[Skill], allowed: list[Armour], refused: list[Armour]
) -> None:
    for armour in allowed:
        made, _ = create_warrior("Test", culture, picks, armour, fairy_open=True)
        assert made.armour is armour
    for armour in refused:
        with pytest.raises(InvalidSheet):
            create_warrior("Test", culture, picks, armour, fairy_open=True)


# R2.1: a moderator's armour change. The culture's armour, or for a goblin any of the
# six (captured armour); between fights only, which is the bot's and storage's to check.

ALLOWED_ARMOUR = {
    C.INVADERS: {A.COHORT, A.OFFICER, A.HIGHLANDER, A.LEATHER, A.NONE},
    C.FREE_CLANS: {A.HIGHLANDER, A.MAIL, A.LEATHER, A.NONE},
    C.FAIRY: {A.LEATHER, A.MAIL, A.NONE},
    C.GOBLIN: {A.LEATHER, A.NONE},
}
"""The R2.1 table's usual and other allowed armour, written out again."""
PICKS = {C.INVADERS: [S.SPEAR], C.FREE_CLANS: [S.AXE, S.SHIELD], C.FAIRY: [S.SHIELD],
         C.GOBLIN: [S.CLUB, S.SPEAR]}


def test_R2_1_armour_table_is_the_rulings_table() -> None:
    for culture, allowed in ALLOWED_ARMOUR.items():
        assert CULTURES[culture].armour == allowed, culture
    assert CULTURES[C.GOBLIN].captured_armour == set(Armour) - ALLOWED_ARMOUR[C.GOBLIN]
    assert all(not CULTURES[c].captured_armour for c in (C.INVADERS, C.FREE_CLANS, C.FAIRY))


@pytest.mark.parametrize("armour", [A.MAIL, A.HIGHLANDER, A.COHORT, A.OFFICER, A.NONE])
def test_R2_1_a_moderator_gives_a_goblin_any_of_the_six_armours(armour: Armour) -> None:
    goblin = sheet(C.GOBLIN, S.CLUB, S.SPEAR)
    assert goblin.armour is A.LEATHER
    changed, events = set_armour(goblin, armour)
    assert changed == replace(goblin, armour=armour)     # nothing else changes
    captured = armour is not A.NONE                      # None is the goblin's own choice
    assert events == (ArmourSet("Test", A.LEATHER, armour, captured),)


def test_R2_1_a_goblin_can_go_back_from_captured_armour_to_leather() -> None:
    goblin, _ = set_armour(sheet(C.GOBLIN, S.CLUB, S.SPEAR), A.OFFICER)
    back, events = set_armour(goblin, A.LEATHER)
    assert back.armour is A.LEATHER
    assert events == (ArmourSet("Test", A.OFFICER, A.LEATHER, False),)


@pytest.mark.parametrize("culture", [C.INVADERS, C.FREE_CLANS, C.FAIRY])
def test_R2_1_other_cultures_change_only_to_armour_their_culture_allows(
    culture: Culture,
) -> None:
    warrior_sheet = sheet(culture, *PICKS[culture])
    allowed = ALLOWED_ARMOUR[culture]
    for armour in allowed - {warrior_sheet.armour}:
        changed, events = set_armour(warrior_sheet, armour)
        assert changed.armour is armour
        assert events == (ArmourSet("Test", warrior_sheet.armour, armour, False),)
    names = ", ".join(sorted(a.value for a in allowed))
    for armour in set(Armour) - allowed:
        with pytest.raises(InvalidSheet) as refused:
            set_armour(warrior_sheet, armour)
        assert str(refused.value) == f"{culture.value} armour must be one of {names}"


def test_R2_1_a_refusal_names_the_allowed_armour() -> None:
    fairy = sheet(C.FAIRY, S.SHIELD)
    with pytest.raises(InvalidSheet) as refused:
        set_armour(fairy, A.OFFICER)
    assert str(refused.value) == "fairy armour must be one of leather, mail, none"
    assert fairy.armour is A.LEATHER                     # unchanged


@pytest.mark.parametrize(("culture", "armour"), [
    (C.INVADERS, A.COHORT), (C.FREE_CLANS, A.HIGHLANDER), (C.FAIRY, A.LEATHER),
    (C.GOBLIN, A.LEATHER),
])
def test_R2_1_changing_to_the_armour_already_worn_is_refused(culture: Culture,
                                                             armour: Armour) -> None:
    with pytest.raises(InvalidSheet, match=r"^Test's armour is already"):
        set_armour(sheet(culture, *PICKS[culture]), armour)
    goblin, _ = set_armour(sheet(C.GOBLIN, S.CLUB, S.SPEAR), A.MAIL)
    with pytest.raises(InvalidSheet, match="already mail"):
        set_armour(goblin, A.MAIL)


def test_R2_1_a_goblin_in_captured_mail_fights_in_mail() -> None:
    goblin, _ = set_armour(warrior("Gorbag", "goblin", "club", "shield"), A.MAIL)
    _, events = start(Kind.PRACTICE, goblin, warrior("Olaf", "free-clans", "axe", "shield"))
    # Dodge = Move 30 + Mail -15 (R3.5)
    assert next(e.dodge for e in events if isinstance(e, LoadoutSet)) == 15


def test_R2_1_only_open_skills_can_be_bought() -> None:
    goblin = sheet(C.GOBLIN, S.CLUB, S.SPEAR, bp=100)
    with pytest.raises(InvalidSheet):
        buy_skill(goblin, S.BROADSWORD)
    bought, _ = buy_skill(goblin, S.AXE)
    assert bought.skill(S.AXE) == 30


# -- R2.2 every skill starts at 30 ------------------------------------------------------


def test_R2_2_skills_start_at_30_at_creation_and_when_bought() -> None:
    made, _ = create_warrior("Olaf", C.FREE_CLANS, [S.BROADSWORD, S.SHIELD])
    assert dict(made.skills) == {S.MOVE: 30, S.BROADSWORD: 30, S.SHIELD: 30}
    rich = replace(made, bp=30)
    bought, events = buy_skill(rich, S.GREATSWORD)
    assert bought.skill(S.GREATSWORD) == 30
    assert events == (SkillBought("Olaf", S.GREATSWORD, 0, 30, 3),)


# -- R2.3 maxima ------------------------------------------------------------------------


@pytest.mark.parametrize(("culture", "skill", "maximum"), [
    (C.FREE_CLANS, S.AXE, 80), (C.FREE_CLANS, S.BROADSWORD, 80), (C.GOBLIN, S.CLUB, 80),
    (C.FREE_CLANS, S.GREATSWORD, 80), (C.GOBLIN, S.SPEAR, 80), (C.FAIRY, S.LAJATANG, 85),
    (C.FAIRY, S.COUNTERSWORD, 70), (C.INVADERS, S.SHIELD, 70), (C.GOBLIN, S.MOVE, 60),
    (C.INVADERS, S.SHORTSWORD, 80), (C.FAIRY, S.SHORTSWORD, 85),
])
def test_R2_3_skill_maxima(culture: Culture, skill: Skill, maximum: int) -> None:
    assert skill_maximum(culture, skill) == maximum


@pytest.mark.parametrize(("culture", "pick", "skill", "top"), [
    (C.INVADERS, S.SHORTSWORD, S.SHORTSWORD, 80),
    (C.FAIRY, S.SHIELD, S.SHORTSWORD, 85),
    (C.FAIRY, S.COUNTERSWORD, S.COUNTERSWORD, 70),
    (C.FAIRY, S.LAJATANG, S.LAJATANG, 85),
    (C.INVADERS, S.SPEAR, S.SHIELD, 70),
    (C.INVADERS, S.SPEAR, S.MOVE, 60),
    (C.INVADERS, S.SPEAR, S.SPEAR, 80),
])
def test_R2_3_buying_stops_at_the_maximum(
    culture: Culture, pick: Skill, skill: Skill, top: int
) -> None:
    warrior_sheet = sheet(culture, pick, bp=400, **{skill.value: top - 5})
    bought, _ = buy_skill(warrior_sheet, skill)
    assert bought.skill(skill) == top
    with pytest.raises(InvalidSheet):
        buy_skill(bought, skill)          # it would gain nothing


# -- R2.4 Fairy Folk closed by default --------------------------------------------------


def test_R2_4_fairy_folk_closed_until_opened() -> None:
    with pytest.raises(InvalidSheet):
        create_warrior("Fenella", C.FAIRY, [S.COUNTERSWORD])
    with pytest.raises(InvalidSheet):
        create_warrior("Fenella", C.FAIRY, [S.COUNTERSWORD], fairy_open=False)
    made, _ = create_warrior("Fenella", C.FAIRY, [S.COUNTERSWORD], fairy_open=True)
    assert made.culture is C.FAIRY


# -- R2.5 names -------------------------------------------------------------------------


def test_R2_5_names_compare_case_insensitively() -> None:
    # the same name in another case is the same warrior: no fight against oneself
    with pytest.raises(IllegalCommand):
        start(Kind.PRACTICE, warrior("Olaf", "free-clans", "axe", "shield"),
              warrior("oLAF", "goblin", "club", "spear"))


def test_R2_5_one_player_may_own_several_warriors_with_unique_names() -> None:
    from storage.models import Warrior

    columns = Warrior.__table__.c
    assert columns.name_key.unique          # the case-folded name is unique in the club
    assert not columns.owner.unique         # an owner may have several warriors
    # a club persona and a goblin beside it
    club_persona, _ = create_warrior("Olaf", C.FREE_CLANS, [S.AXE, S.SHIELD])
    goblin, _ = create_warrior("Snaga", C.GOBLIN, [S.CLUB, S.SPEAR])
    assert club_persona.name != goblin.name


# -- R2.6 BP in tenths, 0 to 40.0 -------------------------------------------------------


def test_R2_6_bp_kept_in_tenths() -> None:
    olaf = sheet(C.FREE_CLANS, S.AXE, S.SHIELD)
    olaf, events = add_bp(olaf, 2)              # a practice win: 0.2 BP
    olaf, events = add_bp(olaf, 1)              # a practice loss: 0.1 BP
    assert olaf.bp == 3 and isinstance(olaf.bp, int)
    assert events == (BPChanged("Test", 1, 1, 3),)


def test_R2_6_bp_capped_at_40() -> None:
    olaf = sheet(C.FREE_CLANS, S.AXE, S.SHIELD, bp=395)     # 39.5 BP
    olaf, events = add_bp(olaf, 15)                         # 1.5 BP won
    assert olaf.bp == 400
    assert events == (BPChanged("Test", 15, 5, 400),)       # the ledger records 0.5
    olaf, events = add_bp(olaf, 2)
    assert olaf.bp == 400
    assert events == (BPChanged("Test", 2, 0, 400),)


def test_R2_6_bp_never_below_0() -> None:
    olaf = sheet(C.FREE_CLANS, S.AXE, S.SHIELD, bp=3)
    olaf, events = add_bp(olaf, -10)                        # a moderator takes 1.0
    assert olaf.bp == 0
    assert events == (BPChanged("Test", -10, -3, 0),)


# -- R2.7 Test skill --------------------------------------------------------------------


@pytest.mark.parametrize(("tenths", "test"), [
    (0, 40), (4, 40), (5, 41), (7, 41), (15, 43), (100, 60), (199, 79), (200, 80),
    (250, 80), (400, 80),
])
def test_R2_7_test_skill_from_bp(tenths: int, test: int) -> None:
    assert derived_test(tenths) == test


def test_R2_7_test_roll_uses_the_test_skill_in_a_fight() -> None:
    olaf = warrior("Olaf", "free-clans", "broadsword", "shield", bp=137)   # 13.7 BP
    state = fight("practice", olaf, warrior("Gorbag", "goblin", "club", "spear"))
    state, _ = play(state, """
        Olaf: first
        Olaf: test
    """)
    # 40 + floor(2 x 13.7) = 40 + 27
    assert state.awaiting is not None
    assert (state.awaiting.need, state.awaiting.roll_for) == (Need.ROLL, RollFor.TEST)
    assert state.awaiting.chance == 67


# -- R2.8 buying ------------------------------------------------------------------------


@pytest.mark.parametrize(("old", "new"), [
    (30, 40), (40, 50), (45, 50), (49, 50),   # +10 below 50, not past 50
    (50, 55), (55, 60), (78, 80),             # +5 from 50, not past the maximum 80
])
def test_R2_8_one_bp_buys_10_below_50_and_5_from_50(old: int, new: int) -> None:
    olaf = sheet(C.FREE_CLANS, S.AXE, S.SHIELD, bp=10, axe=old)
    bought, events = buy_skill(olaf, S.AXE)
    assert bought.skill(S.AXE) == new
    assert events == (SkillBought("Test", S.AXE, old, new, 1),)
    assert bought.bp_spent == 1
    assert bought.bp == 10                    # spending does not lower the total


def test_R2_8_new_skill_costs_3_bp_and_starts_at_30() -> None:
    olaf = sheet(C.FREE_CLANS, S.AXE, S.SHIELD, bp=30)
    bought, _ = buy_skill(olaf, S.GREATSWORD)
    assert bought.skill(S.GREATSWORD) == 30
    assert bought.bp_spent == 3 and bought.bp == 30
    assert bp_available(bought) == 0
    with pytest.raises(InvalidSheet):
        buy_skill(bought, S.BROADSWORD)


def test_R2_8_available_bp_is_whole_total_less_spent() -> None:
    olaf = sheet(C.FREE_CLANS, S.AXE, S.SHIELD, bp=29, spent=0)   # 2.9 BP: 2 to spend
    assert bp_available(olaf) == 2
    with pytest.raises(InvalidSheet):
        buy_skill(olaf, S.GREATSWORD)         # costs 3
    olaf, _ = buy_skill(olaf, S.AXE)
    olaf, _ = buy_skill(olaf, S.AXE)
    assert olaf.skill(S.AXE) == 50
    assert bp_available(olaf) == 0 and olaf.bp == 29 and olaf.bp_spent == 2
    with pytest.raises(InvalidSheet):
        buy_skill(olaf, S.AXE)                # no whole BP left
    olaf = replace(olaf, bp=30)               # one more tenth makes 3.0
    assert bp_available(olaf) == 1
    olaf, _ = buy_skill(olaf, S.AXE)
    assert olaf.skill(S.AXE) == 55


def test_R2_8_purchase_gaining_nothing_is_refused() -> None:
    olaf = sheet(C.FREE_CLANS, S.AXE, S.SHIELD, bp=100, move=60)
    with pytest.raises(InvalidSheet):
        buy_skill(olaf, S.MOVE)
    assert bp_available(olaf) == 10
