"""Wording every rules system shares: who is who in a fight, how to ask for a roll,
and the BP line of a fight's end (R2.6: the amounts actually added).

A turn is said in one line: what happened, then who must act next and their options
(``Gorbag attacks [4 vs 35: hit]. Olaf (olaf), defend: !dodge 30 | ...``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.safe_text import SEPARATOR
from bot.wording.fit import cut
from rules.common import ModeratorEnd
from storage.store import Award

__all__ = ["Award", "Cast", "a_fight", "award_words", "bp_line", "fight_name", "join",
           "options", "roll_how", "ruled", "undone"]


@dataclass(frozen=True, slots=True)
class Cast:
    """The fighters by side: warrior names, and the same with the player who acts for
    each (``Olaf (olaf)``) for the words that ask someone to move."""

    names: tuple[str, ...]
    labels: tuple[str, ...]

    @classmethod
    def of(cls, names: Sequence[str]) -> Cast:
        """A cast with nobody's player known (a replay, a test)."""
        return cls(tuple(names), tuple(names))

    def cut(self, most: int | None) -> Cast:
        """The same cast with every name cut to ``most`` characters, and in a label the
        warrior and the player each (``Aelfric... (nnnn...)``)."""
        return Cast(tuple(cut(n, most) for n in self.names),
                    tuple(_cut_label(n, label, most) for n, label in zip(
                        self.names, self.labels, strict=True)))


def _cut_label(name: str, label: str, most: int | None) -> str:
    player = label.removeprefix(f"{name} (").removesuffix(")")
    if len(player) + len(name) + 3 != len(label):   # no "name (player)"
        return cut(label, most)
    return f"{cut(name, most)} ({cut(player, most)})"


_FIGHT_NAMES = {"duel": "duel", "contest": "Simple Contest", "general": "General-rules fight"}
"""A kind that is not ``<kind> fight``: a duel is no "duel fight"."""


def fight_name(kind: str) -> str:
    """``duel``, ``practice fight``, ``Simple Contest``: a fight of ``kind`` in words."""
    return _FIGHT_NAMES.get(kind, f"{kind} fight")


def a_fight(kind: str) -> str:
    """``a duel``, ``a mortal fight``: a fight of ``kind`` with its article."""
    return f"a {fight_name(kind)}"


def ruled(moderator: str, reason: str, most: int | None) -> str:
    """``alice ends the fight: Gorbag left.``: who ended a fight and why, the reason cut
    to ``most`` characters (a line's fit, bot/wording/fit.py)."""
    said = cut(reason, most)
    return f"{moderator} ends the fight: {said}" + ("" if said.endswith((".", "!", "?")) else ".")


_REASONS = {"win": "win", "loss": "loss", "draw": "draw", "mortal": "mortal fight",
            "foe-slain": "foe slain", "prisoner-taken": "prisoner"}


def award_words(reason: str) -> str:
    """``foe slain``: what a BP award was for, from its reason code (``foe-slain``)."""
    return _REASONS.get(reason, reason)


def bp_line(awards: Sequence[Award], names: Sequence[str]) -> str:
    """``BP: Olaf +1.5 (mortal fight 0.5, prisoner 1.0), Gorbag +0.5.``: one entry per
    warrior with what was added, the reasons when there are several or the 40.0 cap
    cut one (R2.6, R7.2)."""
    if not awards:
        return ""
    by_side: dict[int, list[Award]] = {}
    for award in awards:
        by_side.setdefault(award.side, []).append(award)
    parts = []
    for side, mine in by_side.items():
        total = sum(a.tenths for a in mine)
        capped = any(a.tenths != a.asked for a in mine)
        entry = f"{names[side]} {total / 10:+.1f}"
        if len(mine) > 1 or capped:
            why = ", ".join(
                f"{award_words(a.reason)} {a.tenths / 10:.1f}"
                + (f" of {a.asked / 10:.1f}" if a.tenths != a.asked else "") for a in mine)
            entry += f" ({why}{': at the 40.0 cap' if capped else ''})"
        parts.append(entry)
    return "BP: " + ", ".join(parts) + "."


def roll_how(die: int) -> str:
    """How a player sends a manual roll: what works in every client first."""
    return f"!rol d{die} (WeeChat, irssi: //rol d{die})"


def options(words: Sequence[str]) -> str:
    """A prompt's options, ``!dodge 30 | !parry 25``: a long line splits between them."""
    return SEPARATOR.join(words)


def undone(command: Any, names: Sequence[str]) -> str:
    """``Alain's strike``: the decision a moderator's undo took back, in the smaller
    systems, whose commands are named by what they do."""
    if isinstance(command, ModeratorEnd):
        return "the moderator's end of the fight"
    return f"{names[command.side]}'s {type(command).__name__.lower()}"


def join(*parts: str) -> str:
    """Sentences into one line, empty parts left out."""
    return " ".join(p for p in parts if p)
