"""Dice: where numbers come from (OS random, or a script for tests and replays), and
the ``!roll`` expression language.

Expressions: ``NdM`` (N up to 100, M up to 1000), ``d%`` (1..100), keep highest or
lowest (``4d6kh3``, ``2d20kl1``), exploding dice that roll again on their highest face
(``1d8!``, R10.1), whole numbers, joined by ``+`` and ``-``; at most 20 terms.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "DiceError",
    "DiceExhausted",
    "DiceSource",
    "Expression",
    "OsDice",
    "RollResult",
    "RollSyntaxError",
    "ScriptedDice",
    "parse",
    "roll",
]

MAX_DICE = 100
MAX_SIDES = 1000
MAX_TERMS = 20
MAX_EXPLOSIONS = 100
"""Rerolls of one exploding term before the bot stops it (a d1! would never end)."""


class DiceError(Exception):
    """A roll the bot refuses; the message says how to fix it."""


class RollSyntaxError(DiceError):
    def __init__(self, text: str, column: int, expected: str) -> None:
        got = text[column:column + 8] or "the end"
        super().__init__(f"cannot read {got!r} at column {column + 1}: expected {expected}")
        self.column = column


class DiceExhausted(DiceError):
    """A scripted sequence ran out, or gave a number its die cannot show."""


class DiceSource(Protocol):
    def roll(self, sides: int) -> int:
        """One die with faces 1..sides."""
        ...


class OsDice:
    """The operating system's random source (R1.4): never a seeded generator."""

    def roll(self, sides: int) -> int:
        return secrets.randbelow(sides) + 1


class ScriptedDice:
    """Numbers given in advance; fails loudly when they run out or do not fit the die."""

    def __init__(self, numbers: Iterable[int]) -> None:
        self._numbers = list(numbers)
        self.used = 0

    def roll(self, sides: int) -> int:
        if self.used >= len(self._numbers):
            raise DiceExhausted(f"roll {self.used + 1} (d{sides}): the scripted dice ran out")
        value = self._numbers[self.used]
        if not 1 <= value <= sides:
            raise DiceExhausted(f"roll {self.used + 1}: {value} is not a face of a d{sides}")
        self.used += 1
        return value

    def push(self, *numbers: int) -> None:
        """Script more numbers (a test adding the next turn's rolls)."""
        self._numbers.extend(numbers)

    @property
    def left(self) -> int:
        return len(self._numbers) - self.used


@dataclass(frozen=True, slots=True)
class Term:
    sign: int
    count: int
    sides: int
    """0 for a plain number, whose value is ``count``."""
    keep: tuple[str, int] | None = None
    explode: bool = False


@dataclass(frozen=True, slots=True)
class Expression:
    text: str
    terms: tuple[Term, ...]


@dataclass(frozen=True, slots=True)
class RolledTerm:
    term: Term
    rolls: tuple[int, ...]
    kept: tuple[bool, ...]

    @property
    def value(self) -> int:
        if self.term.sides == 0:
            return self.term.sign * self.term.count
        return self.term.sign * sum(r for r, k in zip(self.rolls, self.kept, strict=True) if k)


@dataclass(frozen=True, slots=True)
class RollResult:
    expression: Expression
    parts: tuple[RolledTerm, ...]

    @property
    def total(self) -> int:
        return sum(p.value for p in self.parts)

    def describe(self, budget: int = 300) -> str:
        """``4d6kh3 = [6, 5, 3, (1)] = 14``: each die, dropped ones in brackets. Past
        ``budget`` characters, the total first and as many dice as fit: ``100d1000 =
        50123: [512, 33, ... 97 more]`` (one line, whatever was rolled)."""
        shown = []
        for part in self.parts:
            sign = "-" if part.term.sign < 0 else "+"
            if part.term.sides == 0:
                shown.append(f"{sign} {part.term.count}")
                continue
            faces = ", ".join(str(r) if k else f"({r})" for r, k in zip(part.rolls, part.kept,
                                                                        strict=True))
            shown.append(f"{sign} [{faces}]")
        body = " ".join(shown).removeprefix("+ ")
        full = f"{self.expression.text} = {body} = {self.total}"
        if len(full) <= budget:
            return full
        head = f"{self.expression.text} = {self.total}: ["
        dice = [str(r) if k else f"({r})" for p in self.parts
                for r, k in zip(p.rolls, p.kept, strict=True)]
        listed: list[str] = []
        for face in dice:
            if len(head) + len(", ".join([*listed, face])) + 16 > budget:
                break
            listed.append(face)
        more = len(dice) - len(listed)
        return head + ", ".join(listed) + (f", ... {more} more]" if more else "]")


_TOKEN = re.compile(
    r"\s*(?P<sign>[+-])?\s*(?:(?P<count>\d{1,4})?[dD](?P<sides>%|\d{1,5})"
    r"(?:(?P<keep>k[hl]?)(?P<kept>\d{1,3}))?(?P<bang>!)?|(?P<number>\d{1,6}))\s*"
)


def parse(text: str) -> Expression:
    """Parse an expression, or raise RollSyntaxError / DiceError naming the problem."""
    source = text.strip()
    if not source:
        raise DiceError("say what to roll, e.g. !roll d100 or !roll 4d6kh3")
    if len(source) > 100:
        raise DiceError("that expression is too long (100 characters at most)")
    terms: list[Term] = []
    position = 0
    while position < len(source):
        match = _TOKEN.match(source, position)
        if not match or match.end() == position:
            raise RollSyntaxError(source, position, "a die like 2d6, d% or a number")
        if terms and not match["sign"]:
            raise RollSyntaxError(source, match.start(), "+ or - between terms")
        terms.append(_term(match))
        if len(terms) > MAX_TERMS:
            raise DiceError(f"at most {MAX_TERMS} terms")
        position = match.end()
    return Expression(source.replace(" ", ""), tuple(terms))


def _term(match: re.Match[str]) -> Term:
    sign = -1 if match["sign"] == "-" else 1
    if match["number"] is not None:
        return Term(sign, int(match["number"]), 0)
    count = int(match["count"]) if match["count"] else 1
    sides = 100 if match["sides"] == "%" else int(match["sides"])
    if not 1 <= count <= MAX_DICE:
        raise DiceError(f"roll 1 to {MAX_DICE} dice at a time")
    if not 1 <= sides <= MAX_SIDES:
        raise DiceError(f"dice have 1 to {MAX_SIDES} sides")
    keep = None
    if match["keep"]:
        kept = int(match["kept"])
        if not 1 <= kept <= count:
            raise DiceError(f"keep between 1 and {count} dice")
        keep = ("l" if match["keep"] == "kl" else "h", kept)
    explode = match["bang"] is not None
    if explode and sides == 1:
        raise DiceError("a one-sided die cannot explode")
    return Term(sign, count, sides, keep, explode)


def roll(expression: Expression | str, dice: DiceSource) -> RollResult:
    """Roll every term with ``dice``; exploding dice roll again on their top face."""
    if isinstance(expression, str):
        expression = parse(expression)
    parts = []
    for term in expression.terms:
        if term.sides == 0:
            parts.append(RolledTerm(term, (), ()))
            continue
        rolls: list[int] = []
        for _ in range(term.count):
            value = dice.roll(term.sides)
            total, extra = value, 0
            while term.explode and value == term.sides and extra < MAX_EXPLOSIONS:
                value = dice.roll(term.sides)
                total, extra = total + value, extra + 1
            rolls.append(total)
        kept = [True] * len(rolls)
        if term.keep:
            low, n = term.keep[0] == "l", term.keep[1]
            order = sorted(range(len(rolls)), key=lambda i: rolls[i], reverse=not low)
            chosen = set(order[:n])
            kept = [i in chosen for i in range(len(rolls))]
        parts.append(RolledTerm(term, tuple(rolls), tuple(kept)))
    return RollResult(expression, tuple(parts))
