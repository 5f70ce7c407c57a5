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
counts only relative to a Test bonus). Injuries only grow, so the chain's cycles are
short (a round of misses comes back to the same node): the values are solved per
strongly connected component, children first: by Gaussian elimination (a component is
a handful of nodes), or for a large one by Gauss-Seidel iteration to 1e-13.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from bot.odds.classes import classes
from bot.odds.regular import Branches, Key, Regular, Won
from rules.ancath import apply
from rules.ancath.commands import Command, Roll
from rules.ancath.state import Action, Bonus, Defence, Fighter, FightState, Need, RollFor

__all__ = ["Chain", "TooLong", "key", "roll_classes"]

TOLERANCE = 1e-13
"""A large component's iteration stops when no value moved by more than this."""
UNSOLVED = -1.0
"""The value of a node not solved yet (a chance is never negative)."""
DIRECT = 60
"""Components up to this many nodes are solved by elimination."""


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


Payload = FightState | Key | Won


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
    edges: list[list[tuple[float, int]]] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    """Per node id its value, or :data:`UNSOLVED`."""
    regular: Regular = field(init=False)
    _stack: list[tuple[int, Payload]] = field(default_factory=list)
    """Nodes added but not yet expanded."""
    _solved: int = 0
    """Every node below this id has its value or waits in ``_pending``."""
    _pending: list[list[int]] = field(default_factory=list)
    """Components found but not solved yet, the next to solve last."""

    def __post_init__(self) -> None:
        self.regular = Regular(self.template, self.decide, self.best)

    def value(self, state: FightState, deadline: float = float("inf")) -> float:
        """The chance that ``side`` wins from ``state``. When the deadline (of
        ``time.perf_counter``) passes first this raises :class:`TooLong`, keeping the
        work done: the next call goes on from there."""
        node, payload = self._node(state)
        if node not in self.ids:
            self._stack.append((self._add(node, payload), payload))
        self._grow(deadline)
        self._solve(deadline)
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
        self.edges.append([])
        if isinstance(payload, Won):
            self.values.append(1.0 if payload.winner == self.side else 0.0)
        else:
            self.values.append(UNSOLVED)
        return index

    def _successors(self, payload: FightState | Key) -> Branches:
        if isinstance(payload, Key):
            return self.regular.turn(payload)
        awaiting = payload.awaiting
        assert awaiting is not None
        self.applies += 1
        if awaiting.need is not Need.ROLL:
            return [(1.0, apply(payload, self.decide(payload))[0])]
        out: Branches = []
        for value, count in roll_classes(payload):
            out.append((count / 100, apply(payload, Roll(awaiting.side, value))[0]))
        return out

    def _grow(self, deadline: float) -> None:
        """Add every node reachable from the nodes waiting on the stack."""
        ids, edges, stack = self.ids, self.edges, self._stack
        expanded = 0
        while stack:
            expanded += 1
            if expanded % 256 == 0 and time.perf_counter() > deadline:
                raise TooLong
            at, current = stack.pop()
            if isinstance(current, Won):
                continue
            merged: dict[int, float] = {}
            for p, child in self._successors(current):
                if isinstance(child, FightState):
                    k, child = self._node(child)
                else:
                    k = child
                index = ids.get(k)
                if index is None:
                    index = self._add(k, child)
                    stack.append((index, child))
                merged[index] = merged.get(index, 0.0) + p
            edges[at] = [(p, i) for i, p in merged.items()]

    def _solve(self, deadline: float) -> None:
        """Values for the nodes grown since the last solve: components children first
        (Tarjan), found once and solved until the deadline (the components left keep for
        the next call; nodes grown since can only lead into them). Solved nodes drop
        their edges: only their value is read again."""
        pending = self._pending
        while True:
            if not pending:
                unsolved = [i for i in range(self._solved, len(self.values))
                            if self.values[i] == UNSOLVED]
                self._solved = len(self.values)
                if not unsolved:
                    break
                pending.extend(reversed(_components(unsolved, self.edges, self.values)))
            count = 0
            while pending:
                count += 1
                if count % 1024 == 0 and time.perf_counter() > deadline:
                    raise TooLong
                component = pending.pop()
                self._iterate(component)
                for i in component:
                    self.edges[i] = []
        self.regular.settle()

    def _iterate(self, component: list[int]) -> None:
        """Solve one component: a lone node at once, a small one by elimination, a
        large one by Gauss-Seidel iteration."""
        values, edges = self.values, self.edges
        todo = [i for i in component if values[i] == UNSOLVED]
        if not todo:
            return
        if len(todo) == 1:
            i = todo[0]
            loop, rest = 0.0, 0.0
            for p, j in edges[i]:
                if j == i:
                    loop += p
                else:
                    rest += p * values[j]
            values[i] = rest / (1 - loop)
            return
        if len(todo) <= DIRECT:
            for i, v in zip(todo, _eliminate(todo, edges, values), strict=True):
                values[i] = v
            return
        for i in todo:
            values[i] = 0.0
        while True:
            moved = 0.0
            for i in todo:
                v = sum(p * values[j] for p, j in edges[i])
                moved = max(moved, abs(v - values[i]))
                values[i] = v
            if moved <= TOLERANCE:
                return


def _eliminate(todo: list[int], edges: list[list[tuple[float, int]]],
               values: list[float]) -> list[float]:
    """Solve ``v = P v + b`` on the nodes ``todo`` by Gaussian elimination (partial
    pivoting); ``b`` comes from the edges that leave them, to solved nodes."""
    n = len(todo)
    where = {node: k for k, node in enumerate(todo)}
    rows = []
    for node in todo:
        row = [0.0] * (n + 1)
        row[where[node]] = 1.0
        for p, j in edges[node]:
            k = where.get(j)
            if k is None:
                row[n] += p * values[j]
            else:
                row[k] -= p
        rows.append(row)
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        head = rows[col]
        for r in range(n):
            if r != col and rows[r][col]:
                factor = rows[r][col] / head[col]
                target = rows[r]
                for c in range(col, n + 1):
                    target[c] -= factor * head[c]
    return [rows[k][n] / rows[k][k] for k in range(n)]


def _components(nodes: list[int], edges: list[list[tuple[float, int]]],
                values: list[float]) -> list[list[int]]:
    """Strongly connected components of the unsolved ``nodes`` (solved nodes left out),
    each after every component it reaches (Tarjan, without recursion)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for start in nodes:
        if start in index:
            continue
        work: list[tuple[int, int]] = [(start, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            out_edges = edges[v]
            recurse = False
            while i < len(out_edges):
                w = out_edges[i][1]
                i += 1
                if values[w] != UNSOLVED:
                    continue
                if w not in index:
                    work.append((v, i))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                out.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return out
