"""The odds advisor: exact win chances of An Cath fights under a stated policy.

The policy (said in ``!help odds`` and the README): go first when choosing; on your turn
Double when it gives a better chance of at least one hit than a single Attack, else
Attack (never Press, Test, Close, Open, Flee or Yield, unless both arms are disabled:
then Flee where allowed, else Yield); defend with the best chance left; accept a yield;
answer a flight with a last Attack. Under it a fight is a Markov chain, solved exactly
(:mod:`bot.odds.chain`); the worker keeps the chains of the last few fights, so a
fight's later questions, and a fight warmed when it began (:func:`prepare`), answer at
once.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from bot.odds.chain import Chain, TooLong
from rules.ancath import apply, legal_actions
from rules.ancath.chances import action_problem, attack_chance, defence_options
from rules.ancath.commands import (
    AcceptYield,
    Act,
    ChooseOrder,
    Command,
    DeclareBonus,
    Defend,
    ModeratorEnd,
    Roll,
    Stop,
)
from rules.ancath.state import Action, ActionContext, Defence, FightState, Need, Range, Strike
from rules.ancath.state import succeeds as _succeeds
from rules.errors import RulesError

__all__ = ["CHAINS", "POLICY", "best_defence", "chain", "forget", "odds", "play_out", "policy",
           "prepare", "succeeds", "weigh"]

POLICY = ("both sides: go first; Double if it gives a better chance of a hit than "
          "Attack, else Attack; best defence left; accept a yield; strike a fleeing foe")
Roller = Callable[[int], int]
"""Gives the d100 roll for a side."""
succeeds = _succeeds


def _hit_chance(chances: tuple[int, ...]) -> float:
    miss = 1.0
    for chance in chances:
        miss *= 1 - min(99, max(1, chance)) / 100  # 1 always hits, 100 always misses
    return 1 - miss


def _strike_chances(state: FightState, side: int, action: Action) -> tuple[int, ...]:
    count = 2 if action is Action.DOUBLE else 1
    ctx = ActionContext(action, side, (Strike(None),) * count)
    return tuple(attack_chance(state, ctx, i) for i in range(count))


def best_defence(options: dict[Defence, int]) -> Defence:
    """The policy's defence: the best chance left (the first of equals)."""
    return max(options, key=lambda d: options[d])


def policy(state: FightState) -> Command:
    """The decision the policy makes for the side the fight waits for."""
    awaiting = state.awaiting
    assert awaiting is not None and awaiting.need is not Need.ROLL
    side, need = awaiting.side, awaiting.need
    if need is Need.ORDER:
        return ChooseOrder(side, True)
    if need is Need.DEFENCE:
        assert state.context is not None
        return Defend(side, best_defence(defence_options(state, state.context)))
    if need is Need.YIELD_ANSWER:
        return AcceptYield(side)
    if need in (Need.ACTION, Need.LAST_TURN, Need.FLEE_ANSWER):
        # answering a flight, the last turn is the next turn (R4.8)
        view = replace(state, turn=state.turn + 1) if need is Need.FLEE_ANSWER else state
        strikes = [a for a in (Action.DOUBLE, Action.ATTACK)
                   if action_problem(state, side, a) is None]
        if strikes and not state.fighters[side].must_draw:
            best = max(strikes, key=lambda a: _hit_chance(_strike_chances(view, side, a)))
            return Act(side, best)
        if need is Need.FLEE_ANSWER:
            return Stop(side)
        flee_ok = need is Need.ACTION and action_problem(state, side, Action.FLEE) is None
        return Act(side, Action.FLEE if flee_ok else Action.YIELD)
    raise AssertionError(f"no policy for {need}")


def play_out(state: FightState, roll: Roller, limit: int = 5000) -> int | None:
    """The winner of one simulated fight from ``state`` (None for a draw)."""
    for _ in range(limit):
        if state.outcome is not None:
            return state.outcome.winner
        awaiting = state.awaiting
        assert awaiting is not None
        if awaiting.need is Need.ROLL:
            command: Command = Roll(awaiting.side, roll(awaiting.side))
        else:
            command = policy(state)
        state, _ = apply(state, command)
    return None


CHAINS = 4
"""How many fights' chains the worker keeps (the least recently used goes first): a
practice fight's, solved at both ranges, holds about 20-40 MB."""
_chains: OrderedDict[Hashable, Chain] = OrderedDict()


def forget() -> None:
    """Drop every kept chain (a benchmark's fresh start)."""
    while _chains:
        _chains.popitem()[1].close()


def _identity(state: FightState) -> Hashable:
    """What a fight's chain depends on besides the position: kind, sheets, loadouts."""
    return (state.kind, tuple(
        (f.sheet.name, f.sheet.armour, f.sheet.bp, tuple(sorted(
            (skill.value, level) for skill, level in f.sheet.skills.items())),
         f.loadout, f.defences) for f in state.fighters))


def chain(state: FightState) -> Chain:
    """The kept chain of ``state``'s fight (the challenger's chances), or a new one."""
    identity = _identity(state)
    found = _chains.get(identity)
    if found is None:
        found = _chains[identity] = Chain(0, state, policy, best_defence)
        while len(_chains) > CHAINS:
            _chains.popitem(last=False)[1].close()
    _chains.move_to_end(identity)
    return found


def _for(side: int, challenger: float) -> float:
    """A side's chance from the challenger's: under the policy every fight ends with a
    winner (it never asks a moderator to end it), so the two add up to one."""
    return challenger if side == 0 else 1 - challenger


@contextmanager
def _solving(state: FightState) -> Iterator[Chain]:
    """The kept chain of ``state``'s fight, with the garbage collector off; a chain
    whose solve failed (anything but its deadline) is dropped, not kept half-grown."""
    solver = chain(state)
    try:
        with _no_collection():
            yield solver
    except TooLong:
        raise
    except Exception:
        dropped = _chains.pop(_identity(state), None)
        if dropped is not None:
            dropped.close()
        raise


@contextmanager
def _no_collection() -> Iterator[None]:
    """The chain makes a great many small objects and frees none: the cyclic garbage
    collector would walk them again and again for nothing (a solve is about 1.5x
    faster without it)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def odds(state: FightState, side: int) -> float:
    """The exact chance that ``side`` wins from ``state`` under the policy."""
    with _solving(state) as solver:
        return _for(side, solver.value(state))


def prepare(state: FightState, seconds: float) -> bool:
    """Work on the chain of a fight from its start ``state`` for at most ``seconds``:
    at both ranges (a Close weighed in a fight leads to the other), and after each move
    open at the first action, whoever takes it (a Test weighed there steps the engine
    through two turns of its bonus); True once all is solved. The work is kept, so a
    later call goes on."""
    deadline = time.perf_counter() + seconds
    targets = [replace(state, range=where)
               for where in (state.range, *(r for r in Range if r is not state.range))]
    try:
        with _solving(state) as solver:
            for target in targets + _openings(state):
                solver.value(target, deadline)
    except TooLong:
        return False
    return True


def _openings(state: FightState) -> list[FightState]:
    """The states after each move open at the fight's first action, for either side
    acting first; none once the fight has begun."""
    out: list[FightState] = []
    for first in (0, 1):
        opening = _first_action(state, first)
        if opening is None:
            continue
        for option in legal_actions(opening):
            command = option.command
            if isinstance(command, ModeratorEnd | DeclareBonus) or command.side != first:
                continue
            with contextlib.suppress(RulesError):
                out.append(apply(opening, command)[0])
    return out


def _first_action(state: FightState, first: int) -> FightState | None:
    """The first action with ``first`` to act, from a fight's start: the initiative
    won by the challenger (60 against 40), then the order chosen (R3.6)."""
    awaiting = state.awaiting
    if state.started or awaiting is None:
        return None
    if awaiting.need is Need.ROLL and awaiting.side == 0:
        state, _ = apply(state, Roll(0, 60))
        state, _ = apply(state, Roll(1, 40))
        awaiting = state.awaiting
        assert awaiting is not None
    if awaiting.need is not Need.ORDER:
        return None
    return apply(state, ChooseOrder(awaiting.side, awaiting.side == first))[0]


def _defended(state: FightState) -> int:
    """How many hits of the action under way wait for a defence."""
    ctx = state.context
    return 0 if ctx is None else sum(1 for s in ctx.strikes if s.hit and s.defence is None)


def weigh(state: FightState) -> list[tuple[Command, float]]:
    """The exact chance of the side to decide after each move open to it (bonus
    declarations aside). A defence that a higher unused one dominates (one hit to
    defend: same outcomes, a better chance of the good one) never shows above it."""
    awaiting = state.awaiting
    assert awaiting is not None and awaiting.need is not Need.ROLL
    side = awaiting.side
    options = [o for o in legal_actions(state)
               if not isinstance(o.command, ModeratorEnd | DeclareBonus)
               and o.command.side == side]
    weighed: list[tuple[Command, float]] = []
    chances: dict[Command, int] = {}
    with _solving(state) as solver:
        for option in options:
            try:
                after, _ = apply(state, option.command)
            except RulesError:
                continue
            weighed.append((option.command, _for(side, solver.value(after))))
            if isinstance(option.command, Defend) and option.chances:
                chances[option.command] = option.chances[0]
    if awaiting.need is Need.DEFENCE and _defended(state) == 1:
        weighed = [(move, _capped(move, figure, weighed, chances)) for move, figure in weighed]
    return weighed


def _capped(move: Command, figure: float, weighed: list[tuple[Command, float]],
            chances: dict[Command, int]) -> float:
    """``figure``, but no more than that of any defence with a higher chance."""
    mine = chances.get(move)
    if mine is None:
        return figure
    better = [f for m, f in weighed if chances.get(m, -1) > mine]
    return min([figure, *better])
