"""The fast steps of the exact chain: a *regular* turn worked out from cached parts.

Most of a fight under the policy is regular turns: the side to act chooses an action in
a started fight, with no flight under way and no Test bonus declared (an undeclared one,
R4.5, is part of the state: it ages as turns start and lapses). Such a state is a
small int (:mod:`bot.odds.fighters`); its successors are built from parts cached per
chain, each worked out once with the engine's own functions (``attack_chance``,
``secondary_weapon``, and those :mod:`bot.odds.hits` names) and the advisor's policy:

- the policy's action and each strike's chance, per the attacker's weapon and arms, the
  foe's weapon and the range;
- which hits get through, per the defender's defensive situation (R4.11, R5), and what
  they do, per the defender's injuries (R6, R3.2, R6.5): :mod:`bot.odds.hits`;
- the turns that follow (flags cleared, bonuses aged, a weapon drawn, R6.5) until
  someone must act.

So this module writes down, a second time and in the engine's order, what a regular
turn reads of the state; ``tests/unit/test_odds_exact.py`` checks its transitions
against the engine's ``apply`` on positions from random fights, so the two cannot drift
apart (the one symmetry used, the legs', is in :mod:`bot.odds.fighters`). One more
step is derived: a side with both arms disabled whose foe still has an
arm loses under the policy whatever the dice (it flees or yields, and the foe strikes,
stops the flight or accepts; the test checks that too). Anything else (the first
action, a flight, a declared bonus, both sides armless) goes through the engine step
by step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, NoReturn, TypeVar

from bot.odds.fighters import SHIFT, WEAPON_ORDER, Dyn, Fighters, encode
from bot.odds.hits import Hits
from bot.odds.nodes import Next, Won
from rules.ancath.chances import attack_chance, pair_rule
from rules.ancath.chances import secondary_weapon as _secondary
from rules.ancath.commands import Act, Command
from rules.ancath.state import Action, ActionContext, Defence, FightState, Strike
from rules.ancath.tables import WEAPONS

__all__ = ["Regular"]

T = TypeVar("T")
_MASK = (1 << SHIFT) - 1
_WEAPON_BITS = max(len(WEAPON_ORDER) - 1, 1).bit_length()


def _closed(_target: object) -> NoReturn:
    raise RuntimeError("this chain was closed")


class _Links(dict[int, T]):
    """A cache that works out what it lacks on first use (a lookup stays in C)."""

    def __init__(self, make: Callable[[int], T]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: int) -> T:
        value = self[key] = self.make(key)
        return value


class Regular(Generic[T]):
    """The regular turns of one fight (its sheets, loadouts and kind fixed). A turn's
    targets are given as ``place`` makes them of a :data:`Next` (the chain: its node
    id), once per target, since a chain meets the same target many times."""

    def __init__(self, template: FightState, decide: Callable[[FightState], Command],
                 best: Callable[[dict[Defence, int]], Defence],
                 place: Callable[[Next], T]) -> None:
        self.template = template
        self.decide = decide
        self.best = best
        self.place = place
        self._won: tuple[T, T] | None = None
        fighters = Fighters(template)
        self.key, self.state, self.dyn_id = fighters.key, fighters.state, fighters.dyn_id
        self._id = fighters.injuries_id
        self.injuries, self.dyns = fighters.injuries, fighters.dyns
        self._flags, self._arms = fighters.flags, fighters.arms
        self._hits = Hits(fighters, best)
        self._plans: dict[tuple[object, ...], tuple[Action, tuple[int, ...], bool]] = {}
        self._free: dict[tuple[object, ...], int] = {}
        self._merged: dict[tuple[object, ...], tuple[list[float], list[int], bool, float]] = {}
        self._turns: dict[int, tuple[int, int, bool]] = {}
        """Per actor's Dyn id, foe's weapon, range and actor: see :meth:`_turn`."""
        self._profiles: dict[tuple[object, ...], int] = {}
        """What a turn's strikes are (side, chances, the striker's weapon, bonus, legs),
        numbered; :attr:`_striker` holds each one's side, chances and a striker."""
        self._striker: list[tuple[int, tuple[int, ...], Dyn]] = []
        self._struck_by: dict[int, tuple[list[float], list[int], bool, float]] = {}
        """:meth:`_outcomes` by strikes, whether a free attack answers, and the foe."""
        self._after: _Links[T] = _Links(self._link)
        self._ready: dict[int, tuple[int, int | None]] = {}
        self._drawn = tuple(WEAPON_ORDER.index(_secondary(f.sheet) or f.loadout.weapon)
                            for f in template.fighters)
        self._slow = tuple(WEAPONS[w].slow for w in WEAPON_ORDER)

    def close(self) -> None:
        """Drop the links back to the chain and to this fast path itself (``place``, the
        cache of links), so that a chain dropped is freed at once by reference counting:
        the solve keeps the garbage collector off, and a chain is millions of objects."""
        self._after.clear()
        self._after.make = self.place = _closed

    def settle(self) -> None:
        """Drop the links between turns worked out so far (the largest cache, needed only
        while the chain grows; the chain keeps the values)."""
        self._after.clear()

    # -- a turn ------------------------------------------------------------------------

    def turn(self, key: int) -> tuple[list[float], list[T]]:
        """Where the actor's turn leads: the chances and their targets (one may come
        twice). Called once per node of the chain, so it reads two int-keyed caches:
        the actor's turn (:meth:`_turn`) and what it does to this foe."""
        side, low = key & 1, key & 3  # low: the actor and the range, as links keep them
        first, second = key >> (SHIFT + 2), (key >> 2) & _MASK
        mine_id, theirs_id = (first, second) if side == 0 else (second, first)
        theirs = self.dyns[theirs_id]
        plan = self._turns.get(((mine_id << _WEAPON_BITS | theirs.weapon) << 2) | low)
        if plan is None:
            plan = self._turn(key, side, mine_id, theirs)
        after, profile, slow = plan
        won = self._won
        if won is None:
            won = self._won = (self.place(Won(0)), self.place(Won(1)))
        if after < 0:
            return [1.0], [won[1 - side]]  # armless against an armed foe: see above
        answered = slow and not (self._slow[theirs.weapon] or theirs.must_draw
                                 or self._flags[theirs.injuries].armless)  # R4.10
        struck = self._struck_by.get((profile << 1 | answered) << SHIFT | theirs_id)
        if struck is None:
            struck = self._strikes(key, profile, answered, theirs_id)
        ps, hurts, wins, high = struck
        links = self._after
        base = (after << (SHIFT + 2)) | low  # the link's key (see _link) but the foe's id
        targets = [links[base | hurt] for hurt in hurts]
        if wins:
            targets.append(won[side])
        if not high:
            return ps, targets
        ps = list(ps)
        foe_ps, foe_hurts, foe_wins = self._free_attack(key, side, bool(low & 2), mine_id,
                                                        theirs_id)
        ps += [high * q for q in foe_ps]
        base = (theirs_id << 2) | low
        targets += [links[(hurt << SHIFT) | base] for hurt in foe_hurts]
        if foe_wins:
            targets.append(won[1 - side])
        return ps, targets

    def _turn(self, key: int, side: int, mine_id: int,
              theirs: Dyn) -> tuple[int, int, bool]:
        """The actor's turn, per the actor's :class:`Dyn`, the foe's weapon and the
        range: the actor's Dyn id after it (-1 when armless), the id of what its strikes
        are (:attr:`_profiles`), and whether it is an Attack with a slow weapon (R4.10)."""
        mine = self.dyns[mine_id]
        cache = ((mine_id << _WEAPON_BITS | theirs.weapon) << 2) | (key & 3)
        if self._flags[mine.injuries].armless:
            found = self._turns[cache] = (-1, -1, False)
            return found
        action, chances, pair = self._plan(key, side, bool(key & 2), mine, theirs)
        after = mine_id
        if action is Action.DOUBLE:
            after = self.dyn_id(mine._replace(pair_doubled=True) if pair
                                else mine._replace(press_penalty=True))
        profile = (side, chances, mine.weapon, mine.bonus, self._flags[mine.injuries].down)
        number = self._profiles.get(profile)
        if number is None:
            number = self._profiles[profile] = len(self._striker)
            self._striker.append((side, chances, mine))
        slow = action is Action.ATTACK and self._slow[mine.weapon]
        found = self._turns[cache] = (after, number, slow)
        return found

    def _strikes(self, key: int, profile: int, answered: bool,
                 target: int) -> tuple[list[float], list[int], bool, float]:
        """:meth:`_outcomes` of the strikes ``profile`` on ``target``, kept by an int."""
        side, chances, striker = self._striker[profile]
        found = self._outcomes(key, side, chances, striker, False, answered, target)
        self._struck_by[(profile << 1 | answered) << SHIFT | target] = found
        return found

    def _plan(self, key: int, side: int, close: bool, mine: Dyn,
              theirs: Dyn) -> tuple[Action, tuple[int, ...], bool]:
        """The policy's action, its strikes' chances, and whether it Doubles by the
        pair rule (R4.2): per the attacker's weapon and arms, the foe's weapon, range."""
        cache = self._striking(side, close, mine, theirs)
        found = self._plans.get(cache)
        if found is None:
            state = self.state(key)
            command = self.decide(state)
            assert isinstance(command, Act)
            action = command.action
            count = 2 if action is Action.DOUBLE else 1
            ctx = ActionContext(action, side, (Strike(WEAPON_ORDER[mine.weapon]),) * count)
            chances = tuple(attack_chance(state, ctx, i) for i in range(count))
            found = self._plans[cache] = (action, chances, pair_rule(state.fighters[side]))
        return found

    def _striking(self, side: int, close: bool, striker: Dyn, foe: Dyn) -> tuple[object, ...]:
        """What a strike's chance reads (R4.1-R4.3, R4.9, R6.5): the striker's side,
        weapon and arms, the foe's weapon, the range."""
        return (side, close, striker.weapon, foe.weapon, self._arms[striker.injuries],
                striker.bonus)

    def _outcomes(self, key: int, side: int, chances: tuple[int, ...], striker: Dyn,
                  free: bool, answered: bool,
                  target: int) -> tuple[list[float], list[int], bool, float]:
        """What ``side``'s strikes do to the foe's :class:`Dyn` ``target``, merged over the
        hits that land: chances, the foe's new ids shifted 2 bits left, as a link's key
        holds them, and whether the fight may end there in ``side``'s favour (its chance
        then last in the chances); and, when a miss of 81 or more is ``answered`` by a
        free attack (R4.10), that miss's chance, left out of the lists. ``free``: this is
        the free attack. ``striker``: the striker's Dyn, or one with the same weapon,
        bonus and legs."""
        down = self._flags[striker.injuries].down
        cache = (side, chances, striker.weapon, striker.bonus, free, answered, down, target)
        found = self._merged.get(cache)
        if found is None:
            merged: dict[int, float] = {}
            high = 0.0
            for p, landed, high_miss in self._hits.hits(key, side, chances, free):
                if high_miss and answered:
                    high += p
                    continue
                for q, hurt in self._hits.harms(side, down, target, landed):
                    merged[hurt] = merged.get(hurt, 0.0) + p * q
            ends = merged.pop(-1, None)
            chances_to = list(merged.values())
            if ends is not None:
                chances_to.append(ends)
            found = self._merged[cache] = (chances_to, [t << 2 for t in merged],
                                           ends is not None, high)
        return found

    def _free_attack(self, key: int, side: int, close: bool, mine_id: int,
                     theirs_id: int) -> tuple[list[float], list[int], bool]:
        """The foe's free attack on ``side`` (R4.10): chances, ``side``'s new ids and
        whether it may end the fight (as :meth:`_outcomes` gives them)."""
        foe = 1 - side
        mine, theirs = self.dyns[mine_id], self.dyns[theirs_id]
        cache = self._striking(foe, close, theirs, mine)
        chance = self._free.get(cache)
        if chance is None:
            ctx = ActionContext(Action.FREE_ATTACK, foe, (Strike(WEAPON_ORDER[theirs.weapon]),))
            chance = self._free[cache] = attack_chance(self.state(key), ctx, 0)
        ps, hurts, wins, _ = self._outcomes(key ^ 1, foe, (chance,), theirs, True, False,
                                            mine_id)
        return ps, hurts, wins

    def _link(self, cache: int) -> T:
        """The turns after a side's, placed: flags cleared and weapons drawn (R5.4, R4.2,
        R6.5) until someone must choose an action. ``cache`` packs the side, the range
        and the side's and the foe's :class:`Dyn` ids as :attr:`_after` is keyed."""
        side, close = cache & 1, bool(cache & 2)
        mine, theirs = cache >> (SHIFT + 2), (cache >> 2) & ((1 << SHIFT) - 1)
        ids = [mine, theirs] if side == 0 else [theirs, mine]
        actor = 1 - side
        while True:  # a turn starts: bonuses age (R4.5), the actor readies
            ids = [self._aged(ids[0]), self._aged(ids[1])]
            cleared, drawn = self._readied(actor, ids[actor])
            if drawn is None:
                ids[actor] = cleared
                break
            ids[actor] = drawn
            actor = 1 - actor
        following = encode(actor, close, ids[0], ids[1])
        flags, dyns = self._flags, self.dyns
        both = flags[dyns[ids[0]].injuries].armless and flags[dyns[ids[1]].injuries].armless
        return self.place(self.state(following) if both else following)

    def _aged(self, dyn: int) -> int:
        """``dyn`` one turn on: a bonus a turn older, gone after its holder's next turn
        (R4.5)."""
        d = self.dyns[dyn]
        if not d.bonus:
            return dyn
        return self.dyn_id(d._replace(bonus=d.bonus + 1 if d.bonus & 3 < 2 else 0))

    def _readied(self, side: int, dyn: int) -> tuple[int, int | None]:
        """``side``'s :class:`Dyn` when its turn comes: its flags cleared (R5.4, R4.2);
        and, when it must draw and can (R6.5), its Dyn after drawing instead (the turn
        goes by)."""
        cache = dyn << 1 | side
        found = self._ready.get(cache)
        if found is None:
            d = self.dyns[dyn]._replace(press_penalty=False, pair_doubled=False)
            drawn = None
            if d.must_draw and not self._flags[d.injuries].armless:
                drawn = self.dyn_id(d._replace(must_draw=False, weapon=self._drawn[side]))
            cleared = self.dyn_id(d._replace(must_draw=False, dodge_only=False))
            found = self._ready[cache] = (cleared, drawn)
        return found
