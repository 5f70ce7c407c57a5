"""IRC-safe text: no line forging, pieces within the byte budget, nothing lost."""

from hypothesis import given
from hypothesis import strategies as st

from bot.safe_text import SEPARATOR, clean, split_utf8


def test_cr_lf_and_nul_cannot_forge_a_line() -> None:
    assert clean("hi\rNICK x\n\0") == "hi NICK x "


def test_splits_at_a_space_within_the_budget() -> None:
    assert split_utf8("aaa bbb ccc", 7) == ["aaa bbb", "ccc"]


def test_never_splits_inside_a_character() -> None:
    pieces = split_utf8("é" * 10, 5)
    assert pieces == ["éé"] * 5


def test_a_prompt_splits_between_its_options_never_inside_one() -> None:
    prompt = "Olaf (olaf), defend: !dodge 30 | !block 30 | !parry 25 | !luck 5"
    assert split_utf8(prompt, 50) == ["Olaf (olaf), defend: !dodge 30 | !block 30",
                                      "!parry 25 | !luck 5"]
    # without a separator in reach, a command keeps its argument
    assert split_utf8("Olaf to act now: !attack 25", 24) == ["Olaf to act now:", "!attack 25"]


@given(st.text(), st.integers(4, 600))
def test_pieces_fit_and_keep_every_non_space_character(text: str, budget: int) -> None:
    pieces = split_utf8(text, budget)
    assert all(len(p.encode()) <= budget for p in pieces)
    assert len(pieces) == 1 or all(p.strip(" ") for p in pieces)
    assert all(c not in p for p in pieces for c in "\r\n\0")
    # a separator at a break is dropped; every other character is kept, in order
    squeezed = clean(text).replace(" ", "")
    joined = "".join(pieces).replace(" ", "")
    bars = squeezed.count(SEPARATOR.strip()) - joined.count(SEPARATOR.strip())
    assert 0 <= bars <= len(pieces) - 1
    assert joined.replace("|", "") == squeezed.replace("|", "")
