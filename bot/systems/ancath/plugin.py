"""An Cath's plugin: the rules engine, its fight verbs, its wording, how ``!create`` makes
its warriors, and its commands outside a fight."""

from __future__ import annotations

from collections.abc import Sequence

from bot.commands.registry import collect, subs_of
from bot.systems.ancath import commands, wording
from bot.systems.ancath.fighters import FIGHTERS
from bot.systems.plugin import Plugin, Usage, Verb, fixed, verbs
from rules.ancath.commands import (
    AcceptYield,
    Act,
    ChooseOrder,
    Command,
    DeclareBonus,
    Defend,
    Forfeit,
    ModeratorEnd,
    RejectYield,
    Roll,
    Stop,
    Wield,
)
from rules.ancath.state import Action, BonusUse, Defence, FightState
from rules.ancath.system import AN_CATH as RULES
from rules.ancath.tables import Weapon

__all__ = ["AN_CATH", "RANSOM_MOST"]

def _act(action: Action, summary: str, detail: str = "") -> Verb[Command]:
    return fixed(action.value, summary, lambda side: Act(side, action), detail)


def _defend(defence: Defence) -> Verb[Command]:
    return fixed(defence.value, f"Defend against the next hit with {defence.value}",
                 lambda side: Defend(side, defence))


def _bonus(side: int, args: Sequence[str]) -> Command:
    word = (args[0].lower() if args else "").replace("defense", "defence")
    if word not in {u.value for u in BonusUse}:
        raise Usage("usage: !bonus attack|defence|reduce")
    return DeclareBonus(side, BonusUse(word))


def _bonus_words(command: Command) -> str | None:
    return f"!bonus {command.use.value}" if isinstance(command, DeclareBonus) else None


def _wield(side: int, args: Sequence[str]) -> Command:
    if not args or args[0].lower() not in {w.value for w in Weapon}:
        weapons = "|".join(w.value for w in Weapon)
        raise Usage(f"usage: !wield <{weapons}> [shield|two-handed]")
    extras = {a.lower() for a in args[1:]}
    if extras - {"shield", "two-handed"}:
        raise Usage("after the weapon say shield or two-handed, or nothing")
    return Wield(side, Weapon(args[0].lower()), "shield" in extras, "two-handed" in extras)


def _wield_words(command: Command) -> str | None:
    if not isinstance(command, Wield):
        return None
    grip = " shield" if command.shield else " two-handed" if command.two_handed else ""
    return f"!wield {command.weapon.value}{grip}"


RANSOM_MOST = 80
"""The longest ransom's terms, in UTF-8 bytes (a character each in plain ASCII): the
fight's end that says them, with two 24-letter names, the BP and the anchor of a row
#9999999 (``ledger #9999999 4305b5ca9e1f0c2d``), is still one IRC line of 380 bytes, so
what a player typed is said whole (bot/wording/fit.py cuts only in rarer corners: the
40.0 cap named twice, a resumed fight's head). Longer terms are refused, never cut."""


def _ransom(words: Sequence[str]) -> str:
    terms = " ".join(words)
    if len(terms.encode()) > RANSOM_MOST:
        wide = "" if terms.isascii() else " (a letter beyond plain ASCII counts 2 to 4)"
        raise Usage(f"a ransom is at most {RANSOM_MOST} characters{wide}: say it shorter")
    return terms


def _accept(side: int, args: Sequence[str]) -> Command:
    """``!accept``, ``!accept release``, ``!accept prisoner [ransom <terms>]``; a ransom
    after ``release`` is the engine's to refuse, one over :data:`RANSOM_MOST` is
    refused here."""
    words = [w.lower() for w in args[:2]]
    if not words:
        return AcceptYield(side)
    if words in (["prisoner"], ["release"]):
        return AcceptYield(side, words[0] == "prisoner")
    if words[1:] == ["ransom"] and words[0] in ("prisoner", "release") and len(args) > 2:
        return AcceptYield(side, words[0] == "prisoner", _ransom(args[2:]))
    raise Usage("usage: !accept, !accept release, or !accept prisoner [ransom <terms>]")


def _accept_words(command: Command) -> str | None:
    if not isinstance(command, AcceptYield):
        return None
    return "!accept" + {True: " prisoner", False: " release", None: ""}[command.prisoner]


_WEAPONS = tuple((w.value,) for w in Weapon)

AN_CATH: Plugin[FightState, Command] = Plugin(
    system=RULES, label="An Cath",
    verbs=verbs(
        _act(Action.ATTACK, "Attack", "a roll against your weapon skill"),
        _act(Action.DOUBLE, "Two attacks (club, shortsword or a pair of shortswords)"),
        _act(Action.PRESS, "Attack at +25; only Luck (5) to defend in the foe's next turn"),
        _act(Action.TEST, "Probe for a weakness: win a bonus of 10 or 30 (!bonus)"),
        _act(Action.CLOSE, "Move to close quarters (Dodge rolls)"),
        _act(Action.OPEN, "Move back to standard range (Dodge rolls)"),
        _act(Action.FLEE, "Run from the fight at standard range"),
        _act(Action.YIELD, "Give up the fight", "the foe accepts or rejects"),
        fixed("first", "Act first (when you won the initiative)",
               lambda side: ChooseOrder(side, True)),
        fixed("second", "Let the foe act first", lambda side: ChooseOrder(side, False)),
        fixed("stop", "Try to cut off a fleeing foe (a Dodge roll)", Stop),
        fixed("reject", "Reject the foe's yield: they lose their turn", RejectYield),
        *(_defend(d) for d in Defence),
        Verb("bonus", "Say where your Test bonus goes (undeclared it reduces the foe's "
             "defence)", _bonus, _bonus_words, "!bonus attack|defence|reduce",
             samples=tuple((u.value,) for u in BonusUse)),
        Verb("wield", "Choose your weapon before the first action; countersword is the "
             "pair", _wield, _wield_words, "!wield <weapon> [shield|two-handed]",
             samples=(*_WEAPONS, ("broadsword", "shield"), ("spear", "two-handed"))),
        Verb("accept", "Accept a foe's yield (mortal fights: prisoner or release)", _accept,
             _accept_words, samples=((), ("prisoner",), ("release",),
                                     ("prisoner", "ransom", "ten", "goats")),
             chat=False),  # bot.fights.challenges' !accept: it takes up challenges too
    ),
    roll=Roll, forfeit=Forfeit, end=ModeratorEnd, describe=wording.describe,
    asks=wording.prompt, glance=wording.status, waiting=wording.waiting,
    undone=wording.undone,
    fighters=FIGHTERS, commands=collect(commands), subcommands=subs_of(commands),
    setting_subcommands=(commands.FAIRY,), advised=True,
)
