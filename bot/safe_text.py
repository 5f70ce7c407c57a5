"""Text that is safe to send on IRC: no control characters that end or forge a line,
lines split on UTF-8 boundaries within a byte budget, and the targets it may go to.

ngircd and Solanum end a line at a lone CR, so CR, LF and NUL are removed from every
parameter, not only LF (docs/irc-notes.md#one-line).
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["DEFAULT_BUDGET", "SEPARATOR", "clean", "split_utf8", "valid_target"]

DEFAULT_BUDGET = 380
"""Bytes of message text to assume until the bot has seen its own prefix."""
SEPARATOR = " | "
"""Between the options of a prompt: the preferred place to split a long line."""
_UNSAFE = {ord("\r"): " ", ord("\n"): " ", 0: None}
_CHANNEL = re.compile(r"[#&][^\s,\x07\x00-\x1f]{1,49}")
_NICK = re.compile(r"[A-Za-z\[\]\\`_^{|}][A-Za-z0-9\[\]\\`_^{|}-]{0,29}")


def valid_target(target: str) -> bool:
    """A channel or nick the bot may address; anything else is never sent."""
    return bool(_CHANNEL.fullmatch(target) or _NICK.fullmatch(target))


def clean(text: str) -> str:
    """``text`` with CR and LF turned into spaces and NUL removed."""
    return text.translate(_UNSAFE)


def _cut(text: str, budget: int) -> tuple[int, int]:
    """Where to end the first piece and where the rest starts: at the last ``" | "``
    that fits (the separator is dropped), else at the last space that does not split
    a ``!command`` from its arguments, else at the last space, else mid-word."""
    fits = len(text.encode()[:budget].decode("utf-8", "ignore"))
    bar = text.rfind(SEPARATOR, 0, fits + 1)
    if bar > fits // 3:
        return bar, bar + len(SEPARATOR)
    space = fits
    while (space := text.rfind(" ", 0, space)) > fits // 2:
        word_start = text.rfind(" ", 0, space) + 1
        if not text.startswith("!", word_start):
            return space, space + 1
    space = text.rfind(" ", 0, fits + 1)
    if space > fits // 2:
        return space, space + 1
    return fits, fits


def split_utf8(text: str, budget: int = DEFAULT_BUDGET,
               fit: Callable[[int], str] | None = None) -> list[str]:
    """Cleaned ``text`` in pieces of at most ``budget`` UTF-8 bytes, split between a
    prompt's options or between words where it can be, never inside a character; a
    line that must stay one is said as ``fit(budget)`` instead when too long."""
    if budget < 4:
        raise ValueError("a budget below 4 bytes cannot hold every character")
    if fit is not None and len(text.encode()) > budget:
        text = fit(budget)
    text = clean(text)
    pieces: list[str] = []
    while len(text.encode()) > budget:
        end, rest = _cut(text, budget)
        piece = text[:end].rstrip(" ")
        if piece:
            pieces.append(piece)
        text = text[rest:].lstrip(" ")
    if text or not pieces:
        pieces.append(text)
    return pieces
