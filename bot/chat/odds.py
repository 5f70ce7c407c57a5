"""``!odds``: the odds advisor in chat. The exact solve (:mod:`bot.odds.advisor`) runs on the
referee's odds requests (:mod:`bot.odds.pending`), off the event loop, in one part per range on
the worker keeping that range's chain; its answer comes later. A fight's chains are
worked out ahead when the fight begins (:func:`bot.odds.ahead.foresee`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TypeVar

from bot.commands.registry import Ctx, Example, Precondition, command
from bot.odds import advisor, pending
from bot.odds.advisor import POLICY, shard, weighed
from bot.odds.pending import WINDOW, Job
from bot.refusals import Refusal
from bot.systems.registry import SYSTEMS
from rules.ancath import start
from rules.ancath.sheet import Sheet
from rules.ancath.state import FightState, Kind, Need, Range
from storage.store import OpenFight

__all__ = ["odds"]

T = TypeVar("T")


def _pct(chance: float) -> str:
    return f"{100 * chance:.1f}%"


def _per_range(state: FightState, part: Callable[[FightState, Range], T]) -> list[Job[T]]:
    """One job per range the question reaches (:func:`bot.odds.advisor.ranges`), each on
    the worker that keeps the fight's chain there: a question that cannot reach the
    other range does not wait for that worker."""
    return [Job(partial(part, state, where), shard(state, where))
            for where in advisor.ranges(state)]


def _fighters_only(ctx: Ctx) -> str | None:
    """A spectator is refused where a moderator keeps ``!odds`` for the fighters
    (``!mod odds fighters``)."""
    channel = ctx.msg.channel
    if channel is None or ctx.services.settings.odds_for(channel) != "fighters":
        return None
    fight = ctx.services.tables.table(channel).fight
    if fight is None or ctx.who not in fight.accounts:
        return (f"in {channel} only the fighters use !odds; for a matchup, "
                "/msg the bot !odds <warrior> vs <warrior>")
    return None


_audience = Precondition("the channel's !odds audience", _fighters_only)


def _asked_in(ctx: Ctx) -> str | None:
    """The channel a request counts against (casefolded), None in private."""
    return ctx.msg.channel.casefold() if ctx.msg.channel else None


def _ask(ctx: Ctx, jobs: list[Job[T]], answer: Callable[[list[T]], str],
         fight: OpenFight | None = None) -> None:
    """Run ``jobs`` on the odds workers and reply ``answer(their results)`` later; about ``fight``
    when given: said for the turn it was asked at if the fight moved on since, and not
    at all if it ended (odds about it are no use to anyone)."""
    services = ctx.services

    def about_fight(results: list[T]) -> str | None:
        text = answer(results)
        if fight is None:
            return text
        table = services.tables.get(fight.channel)
        now = table.fight if table is not None else None
        if now is None or now.id != fight.id:
            return None
        return text if now.seq == fight.seq else f"{text} (for turn {fight.state.progress})"

    pending.ask(services.odds, ctx.who, _asked_in(ctx), services.clock.now(), jobs,
             about_fight, ctx.answer)


@command("odds", "!odds <warrior> vs <warrior> [practice|duel|mortal] | !odds",
         f"Exact win chances if both sides play by a fixed policy (!help odds policy); "
         f"in a fight, each move open to the side to act. One at a time per channel, one "
         f"per player every {WINDOW:.0f} s.",
         group="fight", reads_only=True, subs=(("policy", f"The policy of !odds: {POLICY}"),),
         examples=(
             Example(("gob !create Gorbag goblin club spear",
                      "olaf !create Olaf free-clans axe shield",
                      "ann !odds Olaf vs Gorbag"), "Olaf vs Gorbag (practice): Olaf wins"),))
@_audience
def odds(ctx: Ctx) -> None:
    pending.admit(ctx.services.odds, ctx.who, _asked_in(ctx), ctx.services.clock.now())
    if ctx.args:
        _matchup(ctx)
    else:
        _in_fight(ctx)


def _matchup(ctx: Ctx) -> None:
    words = ctx.args
    kind = Kind.PRACTICE
    if words[-1].lower() in {k.value for k in Kind}:
        kind = Kind(words[-1].lower())
        words = words[:-1]
    if len(words) != 3 or words[1].lower() != "vs":
        raise Refusal("usage: !odds <warrior> vs <warrior> [practice|duel|mortal]")
    store = ctx.services.store
    first, second = store.warrior(words[0]), store.warrior(words[2])
    if not (SYSTEMS.find(first.system).advised and SYSTEMS.find(second.system).advised):
        raise Refusal("the odds advisor knows An Cath warriors only")
    one, other = first.sheet_as(Sheet), second.sheet_as(Sheet)
    a, b = one.name, other.name
    state, _ = start(kind, replace(one, status=one.status.FREE),
                     replace(other, status=other.status.FREE))

    def answer(parts: list[float]) -> str:
        return (f"{a} vs {b} ({kind.value}): {a} wins {_pct(sum(parts))} "
                "(exact; policy: !help odds policy)")

    _ask(ctx, _per_range(state, advisor.chance_part), answer)


def _in_fight(ctx: Ctx) -> None:
    table = ctx.services.tables.table(ctx.channel())
    fight = table.fighting()
    plugin = SYSTEMS.find(fight.system.name)
    if not plugin.advised:
        raise Refusal("the odds advisor knows An Cath fights only")
    state = fight.state
    assert isinstance(state, FightState)
    awaiting = state.awaiting
    assert awaiting is not None
    name = state.fighters[awaiting.side].name
    if awaiting.need is Need.ROLL:

        side = awaiting.side

        def from_here(parts: list[float]) -> str:
            return f"{name} wins {_pct(advisor.for_side(side, sum(parts)))} from here (exact)"

        _ask(ctx, _per_range(state, advisor.chance_part), from_here, fight)
        return

    def per_move(parts: list[advisor.Part]) -> str:
        return f"{name}'s chances (exact): " + ", ".join(
            f"{plugin.word(move)} {_pct(chance)}" for move, chance in weighed(state, parts))

    _ask(ctx, _per_range(state, advisor.weigh_part), per_move, fight)
