"""Which strikes of a regular turn land through the defences, and what the landed hits
do to the foe (R4.10, R4.11, R5, R6, R3.2, R6.5): the parts of :mod:`bot.odds.regular`'s
turns that depend on the dice, each worked out once per fight with the engine's own
functions (``defence_options``, ``severity``, ``damage_result``, ``diverts``, ``injure``,
``choose_leg``) and the advisor's choice of defence, and cached."""

from __future__ import annotations

from collections.abc import Callable

from bot.odds.classes import classes
from bot.odds.fighters import WEAPON_ORDER, Fighters, decode
from rules.ancath.chances import TWO_HANDERS, defence_options
from rules.ancath.damage import choose_leg, diverts, injure, severity
from rules.ancath.state import Action, ActionContext, Defence, Kind, Severity, Strike, succeeds
from rules.ancath.tables import Armour, Hit, Location, damage_result

__all__ = ["Hits", "Landed"]

Landed = tuple[bool, ...]
"""The hits that got through, in order: whether each is disabling (R6.2)."""

_DISABLED = Severity.DISABLED


def _sides(key: int) -> tuple[int, bool, int, int]:
    """(actor, close, the actor's :class:`Dyn` id, the foe's) of a regular key."""
    actor, close, first, second = decode(key)
    return (actor, close, first, second) if actor == 0 else (actor, close, second, first)


class Hits:
    """The hits of one fight's regular turns (its sheets, loadouts and kind fixed), over
    the fighters interned by ``fighters``; ``best`` picks a defence among those offered."""

    def __init__(self, fighters: Fighters, best: Callable[[dict[Defence, int]], Defence]) -> None:
        template = fighters.template
        self.best = best
        self.duel = template.kind is Kind.DUEL
        self.state, self.dyn_id, self._id = fighters.state, fighters.dyn_id, fighters.injuries_id
        self.injuries, self.dyns, self.flags = fighters.injuries, fighters.dyns, fighters.flags
        self._landed: dict[tuple[object, ...], list[tuple[float, Landed, bool]]] = {}
        self._harm: dict[tuple[object, ...], list[tuple[float, int]]] = {}
        self._wound: dict[tuple[object, ...], list[tuple[float, int, bool, bool]]] = {}
        self._armour = tuple(f.sheet.armour for f in template.fighters)
        self._loadout = tuple(WEAPON_ORDER.index(f.loadout.weapon) for f in template.fighters)
        self._two_handed = tuple(w in TWO_HANDERS for w in WEAPON_ORDER)

    def hits(self, key: int, side: int, chances: tuple[int, ...],
              free: bool) -> list[tuple[float, Landed, bool]]:
        """The hits that get through the defences, with their chances, and whether the
        first strike missed with 81 or more (R4.10). ``key``'s actor is ``side``."""
        _, _, mine_id, theirs_id = _sides(key)
        mine = self.dyns[mine_id]
        weapon = mine.weapon
        foe = self.dyns[theirs_id]
        flags = self.flags[foe.injuries]
        cache = (side, chances, weapon, free, foe.press_penalty, foe.pair_doubled,
                 foe.dodge_only, flags.weapon_arm, flags.off_arm, flags.down, mine.bonus,
                 foe.bonus)
        found = self._landed.get(cache)
        if found is not None:
            return found
        state = self.state(key)
        action = Action.FREE_ATTACK if free else Action.ATTACK
        arm = WEAPON_ORDER[weapon]
        merged: dict[tuple[Landed, bool], float] = {}

        def defend(p: float, hits: Landed, used: frozenset[Defence], landed: Landed,
                   high: bool) -> None:
            if not hits:
                merged[(landed, high)] = merged.get((landed, high), 0.0) + p
                return
            offered = defence_options(state, ActionContext(action, side, (Strike(arm),), used))
            choice = self.best(offered) if len(offered) > 1 else Defence.LUCK
            chance = offered[choice]
            held = sum(n for v, n in classes("success", chance) if succeeds(v, chance)) / 100
            if not free and choice is not Defence.LUCK:
                used = used | {choice}
            if held:
                defend(p * held, hits[1:], used, landed, high)
            if held < 1:
                defend(p * (1 - held), hits[1:], used, (*landed, hits[0]), high)

        rolls = [[(severity(v, arm) is _DISABLED if succeeds(v, c) else None, v >= 81, n)
                  for v, n in classes("attack", (c, arm))] for c in chances]

        def strike(i: int, p: float, hits: Landed, high: bool) -> None:
            if i == len(rolls):
                defend(p, hits, frozenset(), (), high)
                return
            for level, wild, n in rolls[i]:
                if level is None:
                    strike(i + 1, p * n / 100, hits, high or (i == 0 and wild))
                else:
                    strike(i + 1, p * n / 100, (*hits, level), high)

        strike(0, 1.0, (), False)
        found = self._landed[cache] = [(p, landed, high) for (landed, high), p in merged.items()]
        return found

    def harms(self, side: int, striker_down: bool, theirs: int,
               landed: Landed) -> list[tuple[float, int]]:
        """What the landed hits do to the foe (``theirs``), in order: the id of their
        new :class:`Dyn`, or -1 when the fight ends in ``side``'s favour (a kill, or
        first blood, R3.2)."""
        cache = (side, striker_down, theirs, landed)
        found = self._harm.get(cache)
        if found is not None:
            return found
        if len(landed) == 1:
            found = self._struck(side, striker_down, theirs, landed[0])
        elif not landed:
            found = [(1.0, theirs)]
        else:  # the first hit, then the rest on each injured foe
            merged: dict[int, float] = {}
            for p, after in self.harms(side, striker_down, theirs, landed[:1]):
                if after < 0:
                    merged[-1] = merged.get(-1, 0.0) + p
                    continue
                for q, target in self.harms(side, striker_down, after, landed[1:]):
                    merged[target] = merged.get(target, 0.0) + p * q
            found = [(p, t) for t, p in merged.items()]
        self._harm[cache] = found
        return found

    def _struck(self, side: int, striker_down: bool, theirs: int,
                disabling: bool) -> list[tuple[float, int]]:
        """One hit on the foe's :class:`Dyn` ``theirs``, as :meth:`_harms` gives it."""
        target = self.dyns[theirs]
        loadout = self._loadout[1 - side]
        merged: dict[int, float] = {}
        for q, injuries, hurt, arm_lost in self._wounds(target.injuries, disabling,
                                                        striker_down, self._armour[1 - side]):
            if injuries < 0 or (self.duel and hurt):  # a kill, or first blood (R3.2)
                merged[-1] = merged.get(-1, 0.0) + q
                continue
            after = target._replace(injuries=injuries)
            if arm_lost and self._two_handed[after.weapon] and after.weapon == loadout:
                after = after._replace(must_draw=True, dodge_only=True)  # R6.5
            at = self.dyn_id(after)
            merged[at] = merged.get(at, 0.0) + q
        return [(p, t) for t, p in merged.items()]

    def _wounds(self, injuries_id: int, disabling: bool, striker_down: bool,
                armour: Armour) -> list[tuple[float, int, bool, bool]]:
        """One hit's damage roll on the injuries ``injuries_id`` (R6.1-R6.4): (chance,
        the new injuries' id or -1 for a kill, whether it was a hit rather than No
        Effect (R3.2), whether it disabled the weapon arm)."""
        cache = (injuries_id, disabling, striker_down, armour)
        found = self._wound.get(cache)
        if found is not None:
            return found
        level = _DISABLED if disabling else Severity.WOUND
        injuries = self.injuries[injuries_id]
        down = self.flags[injuries_id].down
        merged: dict[tuple[int, bool, bool], float] = {}
        for value, n in classes("damage", (armour, striker_down, down)):
            row = damage_result(armour, value)
            if diverts(row, value, striker_down, down):
                harm = choose_leg(injuries, level)
            elif row.location is None:
                outcome = (-1, True, False) if row is Hit.KILL else (injuries_id, False, False)
                merged[outcome] = merged.get(outcome, 0.0) + n / 100
                continue
            else:
                harm = injure(injuries, row.location, level)
            if harm.killed:
                outcome = (-1, True, False)
            else:
                lost = harm.location is Location.WEAPON_ARM and harm.severity is _DISABLED
                outcome = (self._id(harm.injuries), True, lost)
            merged[outcome] = merged.get(outcome, 0.0) + n / 100
        found = self._wound[cache] = [(q, *outcome) for outcome, q in merged.items()]
        return found
