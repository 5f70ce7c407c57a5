"""A line that must stay one (a fight's end and its ledger anchor) is fitted to the
server's budget: what it quotes is cut, the anchor never; the outbox sends it as one
line where any other long line is split."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.safe_text import split_utf8
from bot.wording.fit import ELLIPSIS, Say, cut, fitted

ANCHOR = "ledger #39 4305b5ca9e1f0c2d"
names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1,
                max_size=600)


def closing(winner: str, loser: str, ransom: str) -> Say:
    def say(most: int | None) -> str:
        return (f"{cut(winner, most)} wins by yield. {cut(loser, most)} is "
                f"{cut(winner, most)}'s prisoner (ransom: {cut(ransom, most)}). BP: "
                f"{cut(winner, most)} +1.5, {cut(loser, most)} +0.5.")
    return say


def test_a_short_line_is_said_whole() -> None:
    say = closing("Olaf", "Gorbag", "10 silver")
    assert fitted(say, ANCHOR, 380) == f"{say(None)} {ANCHOR}"


def test_long_names_and_ransom_are_cut_and_the_anchor_stays_whole() -> None:
    say = closing("Aelfricthewanderingbard", "Gorbagsonofgrishnakhthe", "goats " * 40)
    line = fitted(say, ANCHOR, 380)
    assert len(line.encode()) <= 380 and line.endswith(f". {ANCHOR}")
    assert ELLIPSIS in line and "Aelfric" in line
    assert split_utf8(say(None) + " " + ANCHOR, 380, lambda room: fitted(say, ANCHOR, room)) \
        == [line]


@given(names, names, names, st.integers(min_value=60, max_value=510))
def test_any_quoted_text_fits_and_ends_with_the_whole_anchor(
        winner: str, loser: str, ransom: str, room: int) -> None:
    line = fitted(closing(winner, loser, ransom), ANCHOR, room)
    assert len(line.encode()) <= room
    assert line.endswith(" " + ANCHOR)


def test_without_a_fit_a_long_line_is_split() -> None:
    say = closing("Aelfricthewanderingbard", "Gorbagsonofgrishnakhthe", "goats " * 40)
    assert len(split_utf8(say(None) + " " + ANCHOR, 380)) == 2
