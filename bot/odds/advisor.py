"""The odds advisor: exact win chances of An Cath fights under a stated policy.

The policy (said in ``!help odds policy`` and the README): go first when choosing; on your turn
Double when it gives a better chance of at least one hit than a single Attack, else
Attack (never Press, Test, Close, Open, Flee or Yield, unless both arms are disabled:
then Flee where allowed, else Yield); defend with the best chance left; accept a yield;
answer a flight with a last Attack. Under it a fight is a Markov chain, solved exactly
(:mod:`bot.odds.chain`); the workers keep the chains of the last few fights, so a
fight's later questions, and a fight warmed when it began (:func:`prepare`), answer at
once.

The policy never changes the range, so once a Close or Open under way is settled a
fight stays at its range: the two ranges are two chains that share no node. A request
is answered in two parts, one per range (:func:`chance_part`, :func:`weigh_part`), each
on the worker that keeps that range's chain of the fight (:func:`shard`), and the parts
are added up (:func:`weighed`): a question that weighs a Close takes the time of the
larger chain, not of both.
"""

from __future__ import annotations

import contextlib
import gc
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace

from bot.odds.chain import Chain, TooLong, roll_classes
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

__all__ = ["CHAINS", "POLICY", "Part", "best_defence", "chain", "chance_part", "for_side",
           "forget", "odds", "play_out", "policy", "prepare", "ranges", "shard", "succeeds",
           "weigh", "weigh_part", "weighed"]

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


def for_side(side: int, challenger: float) -> float:
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
    collector would walk them again and again for nothing (a solve is faster without it:
    ``bench/README.md``)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def shard(state: FightState, where: Range) -> int:
    """Which worker keeps the chain of ``state``'s fight at ``where`` (the pending requests take it
    modulo the number of workers): a fight's two ranges go to neighbouring workers, and
    fights spread by what their chain depends on."""
    return zlib.crc32(repr(_identity(state)).encode()) + list(Range).index(where)


_MOVES = (Action.CLOSE, Action.OPEN)
"""The actions that change the range (R4.9): the policy never takes them."""


def _moving(state: FightState) -> bool:
    """Whether a Close or Open is under way in ``state``."""
    ctx = state.context
    return (state.outcome is None and state.awaiting is not None and ctx is not None
            and ctx.action in _MOVES)


def ranges(state: FightState) -> list[Range]:
    """The ranges a question about ``state`` reaches: its own, and the other where a
    Close or Open is under way or open to the side to decide. Cheap (no engine step),
    so the bot asks it before sending one part per range."""
    awaiting = state.awaiting
    moving = _moving(state) or (
        state.outcome is None and awaiting is not None and awaiting.need is not Need.ROLL
        and any(isinstance(option.command, Act) and option.command.action in _MOVES
                for option in legal_actions(state)))
    return list(Range) if moving else [state.range]


def _leaves(state: FightState) -> list[tuple[float, FightState]]:
    """Where ``state`` leads once its range is settled, with the chances: a Close or Open
    under way is followed through its rolls (the policy makes no other range change);
    any other state is settled already."""
    awaiting = state.awaiting
    if not _moving(state) or awaiting is None:
        return [(1.0, state)]
    if awaiting.need is Need.ROLL:
        steps = [(count / 100, apply(state, Roll(awaiting.side, value))[0])
                 for value, count in roll_classes(state)]
    else:
        steps = [(1.0, apply(state, policy(state))[0])]
    return [(p * q, leaf) for p, step in steps for q, leaf in _leaves(step)]


def _settled_at(state: FightState, where: Range) -> list[tuple[float, FightState]]:
    return [(p, leaf) for p, leaf in _leaves(state) if leaf.range is where]


def chance_part(state: FightState, where: Range) -> float:
    """The challenger's chance from ``state``, over the futures settled at ``where``
    only: the two ranges' parts add up to the whole (:func:`odds`)."""
    leaves = _settled_at(state, where)
    if not leaves:
        return 0.0
    with _solving(state) as solver:
        return sum((p * solver.value(leaf) for p, leaf in leaves), 0.0)


def odds(state: FightState, side: int) -> float:
    """The exact chance that ``side`` wins from ``state`` under the policy."""
    return for_side(side, sum((chance_part(state, where) for where in Range), 0.0))


Part = list[tuple[Command, float, int | None]]
"""Each move open, the challenger's chance after it over the futures settled at one
range (:func:`chance_part`), and a defence's chance of success (else None)."""


def weigh_part(state: FightState, where: Range) -> Part:
    """One range's part of :func:`weigh`: the moves open to the side to decide (bonus
    declarations aside), in the engine's order."""
    moves = _moves(state)
    leaves = [_settled_at(after, where) for _, after, _ in moves]
    if not any(leaves):
        return [(move, 0.0, chance) for move, _, chance in moves]
    with _solving(state) as solver:
        return [(move, sum((p * solver.value(leaf) for p, leaf in found), 0.0), chance)
                for (move, _, chance), found in zip(moves, leaves, strict=True)]


def _moves(state: FightState) -> list[tuple[Command, FightState, int | None]]:
    """The moves open to the side to decide, the state after each, and a defence's
    chance."""
    awaiting = state.awaiting
    assert awaiting is not None and awaiting.need is not Need.ROLL
    out: list[tuple[Command, FightState, int | None]] = []
    for option in legal_actions(state):
        command = option.command
        if isinstance(command, ModeratorEnd | DeclareBonus) or command.side != awaiting.side:
            continue
        try:
            after, _ = apply(state, command)
        except RulesError:
            continue
        defends = isinstance(command, Defend) and bool(option.chances)
        out.append((command, after, option.chances[0] if defends else None))
    return out


def weighed(state: FightState, parts: Sequence[Part]) -> list[tuple[Command, float]]:
    """The exact chance of the side to decide after each move, the ranges' parts added
    up. A defence that a higher unused one dominates (one hit to defend: same outcomes,
    a better chance of the good one) never shows above it."""
    awaiting = state.awaiting
    assert awaiting is not None and parts
    moves = [move for move, _, _ in parts[0]]
    assert all([move for move, _, _ in part] == moves for part in parts)
    figures = [(move, for_side(awaiting.side, sum((part[i][1] for part in parts), 0.0)))
               for i, move in enumerate(moves)]
    if awaiting.need is Need.DEFENCE and _defended(state) == 1:
        chances = {move: chance for move, _, chance in parts[0] if chance is not None}
        figures = [(move, _capped(move, figure, figures, chances)) for move, figure in figures]
    return figures


def weigh(state: FightState) -> list[tuple[Command, float]]:
    """:func:`weighed` with every part worked out here."""
    return weighed(state, [weigh_part(state, where) for where in Range])


def prepare(state: FightState, seconds: float, where: Range) -> bool:
    """Work on the chain of a fight from ``state`` (its start, or where a resumed fight
    stands) at ``where`` for at most ``seconds``: from ``state`` at that range (a Close
    weighed in a fight leads to the other), or, with a Close or Open under way, from
    where it settles at ``where``; and, from a fight's start, after each move open at
    the first action, whoever takes it, as far as it is settled at ``where`` (a Test
    weighed there steps the engine through two turns of its bonus). True once all is
    solved. The work is kept, so a later call goes on."""
    deadline = time.perf_counter() + seconds
    targets = ([leaf for _, leaf in _settled_at(state, where)] if _moving(state)
               else [replace(state, range=where)])
    targets += [leaf for opening in _openings(state) for _, leaf in _settled_at(opening, where)]
    try:
        with _solving(state) as solver:
            for target in targets:
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


def _capped(move: Command, figure: float, figures: list[tuple[Command, float]],
            chances: dict[Command, int]) -> float:
    """``figure``, but no more than that of any defence with a higher chance."""
    mine = chances.get(move)
    if mine is None:
        return figure
    better = [f for m, f in figures if chances.get(m, -1) > mine]
    return min([figure, *better])
