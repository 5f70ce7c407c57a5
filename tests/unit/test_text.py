"""IRC-safe text: no line forging, pieces within the byte budget, nothing lost."""

from hypothesis import given
from hypothesis import strategies as st

from bot.text import clean, split_utf8


def test_cr_lf_and_nul_cannot_forge_a_line() -> None:
    assert clean("hi\rNICK x\n\0") == "hi NICK x "


def test_splits_at_a_space_within_the_budget() -> None:
    assert split_utf8("aaa bbb ccc", 7) == ["aaa bbb", "ccc"]


def test_never_splits_inside_a_character() -> None:
    pieces = split_utf8("é" * 10, 5)
    assert pieces == ["éé"] * 5


@given(st.text(), st.integers(4, 600))
def test_pieces_fit_and_keep_every_non_space_character(text: str, budget: int) -> None:
    pieces = split_utf8(text, budget)
    assert all(len(p.encode()) <= budget for p in pieces)
    assert len(pieces) == 1 or all(p.strip(" ") for p in pieces)
    assert all(c not in p for p in pieces for c in "\r\n\0")
    joined = "".join(pieces).replace(" ", "")
    assert joined == clean(text).replace(" ", "")
