"""Lines that must reach IRC whole: a fight's end, which ends with its ledger anchor
(``ledger #39 4305b5ca9e1f0c2d``), found in a channel's log by ``audit verify
--anchors`` only whole and on one line. When such a line is too long for the server,
what it quotes is cut (names, a ransom: the longest first), never the anchor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields, is_dataclass, replace
from typing import Any

__all__ = ["ELLIPSIS", "LONGEST", "QUOTED", "Say", "cut", "fitted", "quoting"]

ELLIPSIS = "..."
LONGEST = 600
"""No quoted text is longer: what anyone says is cut to 600 characters on arrival."""
QUOTED = ("ransom",)
"""Event fields that quote what a player typed (An Cath's ransom)."""

Say = Callable[[int | None], str]
"""``say(most)``: a line with what it quotes cut to ``most`` characters (None: whole)."""


def cut(text: str, most: int | None) -> str:
    """``text``, or its first ``most`` characters and ``...`` when that is shorter."""
    if most is None or len(text) <= most + len(ELLIPSIS):
        return text
    return text[:most].rstrip() + ELLIPSIS


def quoting(events: Sequence[Any], most: int | None) -> list[Any]:
    """``events`` with the text in their :data:`QUOTED` fields cut to ``most``."""
    if most is None:
        return list(events)
    return [_quoted(event, most) for event in events]


def _quoted(event: Any, most: int) -> Any:
    if not is_dataclass(event) or isinstance(event, type):  # a class is no event
        return event
    names = {f.name for f in fields(event)} & set(QUOTED)
    cuts = {n: cut(v, most) for n in names if type(v := getattr(event, n)) is str}
    return replace(event, **cuts) if cuts else event


def fitted(say: Say, tail: str, room: int) -> str:
    """``say(most) + " " + tail`` in at most ``room`` UTF-8 bytes, for the largest
    ``most`` that fits (a line only grows with ``most``); when nothing quoted is short
    enough, ``say(1)`` itself cut. ``tail`` is always there, whole, at the end."""
    whole = _line(say(None), tail)
    if len(whole.encode()) <= room:
        return whole
    low, high, found = 1, LONGEST, ""
    while low <= high:
        most = (low + high) // 2
        line = _line(say(most), tail)
        if len(line.encode()) <= room:
            found, low = line, most + 1
        else:
            high = most - 1
    if found:
        return found
    left = room - len(f"{ELLIPSIS} {tail}".encode())
    head = say(1).encode()[:max(left, 0)].decode("utf-8", "ignore").rstrip()
    return _line(f"{head}{ELLIPSIS}" if head else "", tail)


def _line(said: str, tail: str) -> str:
    return " ".join(part for part in (said, tail) if part)
