"""The classes of a d100 roll: values the engine cannot tell apart, grouped, so the exact
chain (:mod:`bot.odds.chain`) and its fast turns (:mod:`bot.odds.regular`) apply one value
of each, weighted by how many values it stands for."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable

from rules.ancath.damage import diverts, severity
from rules.ancath.state import succeeds
from rules.ancath.tables import damage_result

__all__ = ["classes"]


@functools.cache
def classes(what: str, of: Hashable) -> tuple[tuple[int, int], ...]:
    """The classes of one kind of roll as (smallest value, how many), by what tells the
    values apart: for an attack the chance and the weapon's damage rating (R6.2) and
    81 or more (R4.10); a Test's exact roll (its defence compares, R4.4); for a defence
    the chance and the Test roll; for damage the row and whether R6.3 diverts it;
    for the second initiative roll how it compares with the first (R3.6)."""
    answer: Callable[[int], Hashable]
    if what == "initiative":
        first = of if isinstance(of, int) else None
        answer = (lambda v: v) if first is None else (lambda v: (v > first) - (v < first))
    elif what == "attack":
        assert isinstance(of, tuple)
        chance, weapon = of
        answer = lambda v: ((severity(v, weapon), False) if succeeds(v, chance)  # noqa: E731
                            else (None, v >= 81))
    elif what == "test":
        assert isinstance(of, int)
        answer = lambda v: v if succeeds(v, of) else 0  # noqa: E731
    elif what == "defence":
        assert isinstance(of, tuple)
        chance, test_roll = of
        answer = lambda v: (succeeds(v, chance), v > test_roll)  # noqa: E731
    elif what == "damage":
        assert isinstance(of, tuple)
        armour, striker_down, target_down = of

        def answer(v: int) -> Hashable:
            hit = damage_result(armour, v)
            return hit, diverts(hit, v, striker_down, target_down)
    else:
        assert isinstance(of, int)
        answer = lambda v: succeeds(v, of)  # noqa: E731
    first_value: dict[Hashable, int] = {}
    count: dict[Hashable, int] = {}
    for value in range(1, 101):
        a = answer(value)
        first_value.setdefault(a, value)
        count[a] = count.get(a, 0) + 1
    return tuple((first_value[a], count[a]) for a in first_value)
