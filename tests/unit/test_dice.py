"""The dice roller: expressions, scripted and OS dice, and refusals (R1.4, R10.1)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.dice import (
    DiceError,
    DiceExhausted,
    OsDice,
    ScriptedDice,
    parse,
    roll,
)


def test_keep_highest_shows_dropped_die() -> None:
    result = roll("4d6kh3", ScriptedDice([6, 5, 3, 1]))
    assert result.total == 14
    assert result.describe() == "4d6kh3 = [6, 5, 3, (1)] = 14"


def test_keep_lowest() -> None:
    assert roll("2d20kl1", ScriptedDice([17, 4])).total == 4


def test_percentile_is_1_to_100() -> None:
    assert roll("d%", ScriptedDice([100])).total == 100
    assert roll("d100", ScriptedDice([1])).total == 1


def test_R10_1_exploding_dice_roll_up() -> None:
    # Farthan's damage: 1d8 shows 8 and rolls up 4 (12), 1d10 shows 5: 17.
    assert roll("1d8!+1d10!", ScriptedDice([8, 4, 5])).total == 17


def test_arithmetic() -> None:
    assert roll("2d6+3-1d4", ScriptedDice([2, 5, 3])).total == 7


@pytest.mark.parametrize("text", ["", "2d", "101d6", "d0", "d1001", "d6 d6", "4d6kh5", "1d1!",
                                  "x", "1d6+", "d" * 200])
def test_refusals_name_the_problem(text: str) -> None:
    with pytest.raises(DiceError):
        parse(text)


def test_R1_4_scripted_dice_fail_loudly() -> None:
    dice = ScriptedDice([3])
    assert dice.roll(6) == 3
    with pytest.raises(DiceExhausted, match="ran out"):
        dice.roll(6)
    with pytest.raises(DiceExhausted, match="not a face"):
        ScriptedDice([7]).roll(6)


def test_R1_4_os_dice_stay_on_the_die() -> None:
    dice = OsDice()
    assert {dice.roll(4) for _ in range(400)} == {1, 2, 3, 4}


@given(st.text(max_size=60))
def test_any_text_rolls_or_raises_a_dice_error(text: str) -> None:
    try:
        result = roll(text, OsDice())
    except DiceError:
        return
    assert isinstance(result.total, int)


@given(st.lists(st.tuples(st.sampled_from("+-"), st.integers(1, 100), st.integers(1, 1000)),
                min_size=1, max_size=8))
def test_generated_expressions_stay_in_bounds(terms: list[tuple[str, int, int]]) -> None:
    text = "".join(f"{sign}{count}d{sides}" for sign, count, sides in terms).lstrip("+")
    result = roll(text, OsDice())
    low = sum((count if s == "+" else -count * sides) for s, count, sides in terms)
    high = sum((count * sides if s == "+" else -count) for s, count, sides in terms)
    assert low <= result.total <= high


def test_a_long_roll_is_one_line_with_its_total_and_the_dice_that_fit() -> None:
    dice = ScriptedDice([7] * 100 + [3] * 5)
    result = roll("100d1000+5d6", dice)
    text = result.describe()
    assert text.startswith("100d1000+5d6 = 715: [7, 7, ")
    shown = text.count("7,") + text.count("7]")
    assert text.endswith(f", ... {105 - shown} more]")
    assert len(text) <= 300


@given(st.integers(1, 100), st.integers(1, 1000))
def test_any_roll_fits_one_line(count: int, sides: int) -> None:
    result = roll(f"{count}d{sides}", ScriptedDice([sides] * count))
    assert len(result.describe().encode()) <= 300
