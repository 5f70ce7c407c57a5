"""``!odds``: the odds advisor in chat (simulation in :mod:`bot.odds`)."""

from __future__ import annotations

from dataclasses import replace

from bot.commands import Ctx, Example, Refusal, command
from bot.odds import POLICY, Estimate, estimate, start_odds
from rules.ancath import apply, legal_actions
from rules.ancath.commands import DeclareBonus
from rules.ancath.state import Kind, Need
from rules.errors import RulesError

__all__ = ["SECONDS"]

SECONDS = 1.0
"""The time an answer may take, split between the options it weighs."""


def _pct(e: Estimate) -> str:
    return f"{100 * e.chance:.0f}% ±{100 * e.margin:.0f}"


def _verb(command: object) -> str:
    for field in ("action", "defence"):
        value = getattr(command, field, None)
        if value is not None:
            return f"!{value.value}"
    name = type(command).__name__
    if name == "ChooseOrder":
        return "!first" if getattr(command, "first", False) else "!second"
    return "!" + {"AcceptYield": "accept", "RejectYield": "reject", "Stop": "stop"}.get(
        name, name.lower())


@command("odds", "!odds <warrior> vs <warrior> [practice|duel|mortal] | !odds",
         f"Win chances by simulation, with the 95% interval. Policy: {POLICY}. In a fight, "
         "!odds weighs each move open to the side to act.", group="fight", examples=(
             Example(("gob !create Gorbag goblin club spear",
                      "olaf !create Olaf free-clans axe shield",
                      "ann !odds Olaf vs Gorbag"), "Olaf vs Gorbag (practice): Olaf wins"),))
def odds(ctx: Ctx) -> None:
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
    store = ctx.referee.store
    first, second = store.warrior(words[0]), store.warrior(words[2])
    if first.system != "ancath" or second.system != "ancath":
        raise Refusal("the odds advisor knows An Cath warriors only")
    result = start_odds(replace(first.sheet, status=first.sheet.status.FREE),
                        replace(second.sheet, status=second.sheet.status.FREE), kind,
                        seconds=SECONDS)
    ctx.reply(f"{first.sheet.name} vs {second.sheet.name} ({kind.value}): "
              f"{first.sheet.name} wins {_pct(result)} ({result.samples} fights; "
              "policy: !help odds)")


def _in_fight(ctx: Ctx) -> None:
    table = ctx.referee.table(ctx.channel())
    fight = table.fighting()
    if fight.system.name != "ancath":
        raise Refusal("the odds advisor knows An Cath fights only")
    state = fight.state
    awaiting = state.awaiting
    assert awaiting is not None
    side = awaiting.side
    name = state.fighters[side].name
    if awaiting.need is Need.ROLL:
        result = estimate(state, side, seconds=SECONDS)
        ctx.reply(f"{name} wins {_pct(result)} from here ({result.samples} fights)")
        return
    options = [o for o in legal_actions(state)
               if getattr(o.command, "side", None) == side
               and not isinstance(o.command, DeclareBonus)]
    parts = []
    for option in options:
        try:
            after, _ = apply(state, option.command)
        except RulesError:
            continue
        result = estimate(after, side, seconds=SECONDS / max(1, len(options)))
        parts.append(f"{_verb(option.command)} {_pct(result)}")
    ctx.reply(f"{name}'s chances: " + ", ".join(parts))
