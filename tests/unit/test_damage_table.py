"""R6.1: the damage table, checked row edge by row edge against a copy typed from
``docs/rulings.md`` (deliberately not read from the engine's own data)."""

from __future__ import annotations

import pytest

from rules.ancath.tables import Armour, Hit, damage_result

ROWS = ("kill", "head", "torso", "weapon-arm", "off-arm", "right-leg", "left-leg", "no-effect")

# docs/rulings.md R6.1, column by column: (first roll, last roll) of each row, or None
# for an empty row ("-").
RULINGS_TABLE: dict[str, dict[str, tuple[int, int] | None]] = {
    "none": {
        "kill": (1, 15),
        "head": (16, 20),
        "torso": (21, 30),
        "weapon-arm": (31, 45),
        "off-arm": (46, 60),
        "right-leg": (61, 80),
        "left-leg": (81, 100),
        "no-effect": None,
    },
    "leather": {
        "kill": (1, 11),
        "head": (12, 16),
        "torso": (17, 22),
        "weapon-arm": (23, 31),
        "off-arm": (32, 40),
        "right-leg": (41, 52),
        "left-leg": (53, 64),
        "no-effect": (65, 100),
    },
    "highlander": {
        "kill": (1, 7),
        "head": (8, 8),
        "torso": (9, 14),
        "weapon-arm": (15, 23),
        "off-arm": (24, 32),
        "right-leg": (33, 52),
        "left-leg": (53, 72),
        "no-effect": (73, 100),
    },
    "cohort": {
        "kill": (1, 3),
        "head": (4, 4),
        "torso": (5, 6),
        "weapon-arm": (7, 21),
        "off-arm": (22, 36),
        "right-leg": (37, 56),
        "left-leg": (57, 76),
        "no-effect": (77, 100),
    },
    "mail": {
        "kill": (1, 3),
        "head": (4, 4),
        "torso": (5, 6),
        "weapon-arm": (7, 12),
        "off-arm": (13, 18),
        "right-leg": (19, 38),
        "left-leg": (39, 58),
        "no-effect": (59, 100),
    },
    "officer": {
        "kill": (1, 3),
        "head": (4, 4),
        "torso": (5, 6),
        "weapon-arm": (7, 12),
        "off-arm": (13, 18),
        "right-leg": (19, 30),
        "left-leg": (31, 42),
        "no-effect": (43, 100),
    },
}


def _edges() -> list[tuple[str, int, str]]:
    """Both ends of every non-empty row of every column: each side of each row edge."""
    cases = []
    for armour, column in RULINGS_TABLE.items():
        for row in ROWS:
            span = column[row]
            if span is None:
                continue
            first, last = span
            cases.append((armour, first, row))
            if last != first:
                cases.append((armour, last, row))
    return cases


EDGES = _edges()


def _expected(armour: str, roll: int) -> str:
    rows = [r for r, span in RULINGS_TABLE[armour].items() if span and span[0] <= roll <= span[1]]
    assert len(rows) == 1, (armour, roll, rows)
    return rows[0]


@pytest.mark.parametrize(
    ("armour", "roll", "row"), EDGES, ids=[f"{a}-{r}-{row}" for a, r, row in EDGES]
)
def test_R6_1_row_edge(armour: str, roll: int, row: str) -> None:
    assert damage_result(Armour(armour), roll) is Hit(row)


@pytest.mark.parametrize("armour", list(RULINGS_TABLE))
def test_R6_1_roll_100_is_the_last_row_of_each_column(armour: str) -> None:
    expected = Hit.LEFT_LEG if armour == "none" else Hit.NO_EFFECT
    assert damage_result(Armour(armour), 100) is expected


@pytest.mark.parametrize("armour", list(RULINGS_TABLE))
def test_R6_1_column_covers_1_to_100_exactly_once(armour: str) -> None:
    spans = [span for span in RULINGS_TABLE[armour].values() if span is not None]
    covered = [roll for first, last in spans for roll in range(first, last + 1)]
    assert sorted(covered) == list(range(1, 101))  # no gap, no overlap
    assert covered == sorted(covered)  # rows run down the table in order
    for roll in range(1, 101):
        assert damage_result(Armour(armour), roll) is Hit(_expected(armour, roll)), roll


def test_R6_1_table_has_every_armour_and_row() -> None:
    assert set(RULINGS_TABLE) == {a.value for a in Armour}
    assert all(tuple(column) == ROWS for column in RULINGS_TABLE.values())
    assert set(ROWS) == {h.value for h in Hit}
