"""Exact win chances under the advisor's policy: the fight as a Markov chain.

Under the fixed policy (:func:`bot.odds.advisor.policy`) a fight is a Markov chain over
the engine's own states. A decision has one successor (the policy's command); a d100
roll has one successor per *class* of values (:func:`roll_classes`): two values are in
one class when the engine reads nothing that tells them apart (hit or miss against the
chance, the last digit against the damage rating, 81 or more on a slow weapon's miss,
the damage table's row and the roll's parity), so one value of each class is applied,
weighted by the class's size. Regular turns, most of a fight, take the fast path of
:mod:`bot.odds.regular`; everything else goes through the engine's ``apply`` step by step.
``tests/unit/test_odds_exact.py`` checks every class against all its members, and the
fast path against the engine, on positions from random fights.

States that differ only in what no rule reads are one node (:func:`key`: the turn
counts only relative to a Test bonus). The values solve as one sparse linear system
(:func:`bot.odds.linear.solve`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from bot.odds.classes import classes
from bot.odds.nodes import UNSOLVED, Next, Won
from bot.odds.regular import Regular
from rules.ancath import apply
from rules.ancath.commands import Command, Roll
from rules.ancath.state import Action, Bonus, Defence, Fighter, FightState, Need, RollFor

__all__ = ["Chain", "TooLong", "key", "roll_classes"]

class TooLong(Exception):
    """The chain did not solve before its deadline."""


def _bonus(bonus: Bonus | None, turn: int) -> Hashable:
    return None if bonus is None else (bonus.amount, bonus.earned_turn - turn, bonus.use)


def _fighter(f: Fighter, turn: int) -> Hashable:
    return (f.weapon, frozenset(f.injuries.items()), f.must_draw, f.dodge_only,
            f.press_penalty, f.pair_doubled, _bonus(f.bonus, turn), _bonus(f.earned, turn))


def key(state: FightState) -> Hashable:
    """What of ``state`` the rules read, as one hashable value. Sheets, loadouts and
    defences are fixed within one chain (the policy never changes a loadout); the turn
    counts only against a bonus's ``earned_turn`` (R4.5)."""
    turn = state.turn
    return ("engine", _fighter(state.fighters[0], turn), _fighter(state.fighters[1], turn),
            state.awaiting, state.range, state.actor, state.started, state.initiative,
            state.fleeing, state.context, state.outcome)


def roll_classes(state: FightState) -> tuple[tuple[int, int], ...]:
    """The values the pending d100 may take, as (smallest value, how many) per class:
    the values of one class lead to states no rule tells apart."""
    awaiting = state.awaiting
    assert awaiting is not None and awaiting.need is Need.ROLL
    roll_for, chance, ctx = awaiting.roll_for, awaiting.chance or 0, state.context
    if roll_for is RollFor.INITIATIVE:
        first = state.initiative[0]
        return classes("initiative", None if awaiting.side == 0 else first)
    if roll_for is RollFor.ATTACK:
        assert ctx is not None
        weapon = next(s for s in ctx.strikes if s.roll is None).weapon
        return classes("attack", (chance, weapon))
    if roll_for is RollFor.TEST:
        return classes("test", chance)
    if roll_for is RollFor.DEFENCE:
        assert ctx is not None
        strike = next(s for s in ctx.strikes if s.hit and s.defence_roll is None)
        test_roll = (strike.roll or 0) if ctx.action is Action.TEST else 101
        return classes("defence", (chance, test_roll))
    if roll_for is RollFor.DAMAGE:
        assert ctx is not None
        striker, target = state.fighters[ctx.actor], state.fighters[1 - ctx.actor]
        return classes("damage", (target.sheet.armour, striker.down, target.down))
    return classes("success", chance)  # manoeuvre, resist, stop


Payload = FightState | int | Won
"""What a node is grown from: an engine state, a regular key, or an end."""


@dataclass
class Chain:
    """The chain of one fight for one side, grown and solved on demand. Solved nodes
    are kept, so weighing several moves of one position shares the work."""

    side: int
    template: FightState
    """Any state of the fight: its sheets, loadouts and kind."""
    decide: Callable[[FightState], Command]
    best: Callable[[dict[Defence, int]], Defence]
    applies: int = 0
    """Engine steps taken (the slow path)."""
    ids: dict[Hashable, int] = field(default_factory=dict)
    values: list[float] = field(default_factory=list)
    """Per node id its value, or :data:`UNSOLVED`."""
    regular: Regular[int] = field(init=False)
    _stack: list[tuple[int, FightState | int]] = field(default_factory=list)
    """Nodes added but not yet expanded."""
    _solved: int = 0
    """Every node below this id has its value."""
    _steps: list[tuple[int, list[float], list[int]]] = field(default_factory=list)
    """The steps of the nodes grown since the last solve: from, chances, targets."""

    def __post_init__(self) -> None:
        self.regular = Regular(self.template, self.decide, self.best, self._place)

    def close(self) -> None:
        """Unlink the chain from its fast path (which places targets through it), so
        that dropping it frees it at once: see :meth:`Regular.close`."""
        self.regular.close()

    def value(self, state: FightState, deadline: float = float("inf")) -> float:
        """The chance that ``side`` wins from ``state``. When the deadline (of
        ``time.perf_counter``) passes first this raises :class:`TooLong`, keeping the
        work done: the next call goes on from there."""
        node, payload = self._node(state)
        if node not in self.ids:
            self._add(node, payload)
        self._grow(deadline)
        self._solve()
        solved = self.values[self.ids[node]]
        assert solved != UNSOLVED
        return solved

    def _node(self, state: FightState) -> tuple[Hashable, Payload]:
        if state.outcome is not None:
            won = Won(state.outcome.winner)
            return won, won
        regular = self.regular.key(state)
        if regular is not None:
            return regular, regular
        return key(state), state

    def _add(self, node: Hashable, payload: Payload) -> int:
        index = self.ids[node] = len(self.values)
        if isinstance(payload, Won):
            self.values.append(1.0 if payload.winner == self.side else 0.0)
        else:
            self.values.append(UNSOLVED)
            self._stack.append((index, payload))
        return index

    def _place(self, target: Next) -> int:
        """The node id of ``target``, added if new."""
        if isinstance(target, FightState):
            node, payload = self._node(target)
        else:
            node = payload = target
        index = self.ids.get(node)
        return self._add(node, payload) if index is None else index

    def _successors(self, payload: FightState) -> list[tuple[float, FightState]]:
        awaiting = payload.awaiting
        assert awaiting is not None
        self.applies += 1
        if awaiting.need is not Need.ROLL:
            return [(1.0, apply(payload, self.decide(payload))[0])]
        out: list[tuple[float, FightState]] = []
        for value, count in roll_classes(payload):
            out.append((count / 100, apply(payload, Roll(awaiting.side, value))[0]))
        return out

    def _grow(self, deadline: float) -> None:
        """Add every node reachable from the nodes waiting on the stack."""
        stack, turn, place = self._stack, self.regular.turn, self._place
        grown = self._steps.append
        expanded = 0
        while stack:
            expanded += 1
            if expanded % 256 == 0 and time.perf_counter() > deadline:
                raise TooLong
            at, current = stack.pop()
            try:
                if isinstance(current, int):
                    ps, targets = turn(current)
                else:
                    steps = self._successors(current)
                    ps, targets = [p for p, _ in steps], [place(child) for _, child in steps]
            except BaseException:
                stack.append((at, current))  # not expanded: a later call does it
                raise
            grown((at, ps, targets))

    def _solve(self) -> None:
        """Values for the nodes grown since the last solve (their steps lead to them or
        to nodes solved before), then the steps are dropped: only values are read again."""
        base = self._solved
        if base == len(self.values):
            return
        from bot.odds import linear  # SciPy: an import the bot itself never needs

        self.values[base:] = linear.solve(base, self.values, self._steps)
        self._solved = len(self.values)
        self._steps.clear()
        self.regular.settle()
