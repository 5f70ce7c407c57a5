"""Text that is safe to send on IRC: no control characters that end or forge a line,
and lines split on UTF-8 boundaries within a byte budget.

ngircd and Solanum end a line at a lone CR, so CR, LF and NUL are removed from every
parameter, not only LF (shared/IRC-NOTES.md).
"""

from __future__ import annotations

__all__ = ["DEFAULT_BUDGET", "clean", "split_utf8"]

DEFAULT_BUDGET = 380
"""Bytes of message text to assume until the bot has seen its own prefix."""
_UNSAFE = {ord("\r"): " ", ord("\n"): " ", 0: None}


def clean(text: str) -> str:
    """``text`` with CR and LF turned into spaces and NUL removed."""
    return text.translate(_UNSAFE)


def split_utf8(text: str, budget: int = DEFAULT_BUDGET) -> list[str]:
    """Cleaned ``text`` in pieces of at most ``budget`` UTF-8 bytes, preferring to break
    at a space and never inside a character."""
    if budget < 4:
        raise ValueError("a budget below 4 bytes cannot hold every character")
    text = clean(text)
    pieces: list[str] = []
    while len(text.encode()) > budget:
        cut = len(text.encode()[:budget].decode("utf-8", "ignore"))
        space = text.rfind(" ", 0, cut + 1)
        if space > cut // 2:
            cut = space
        piece = text[:cut].rstrip(" ")
        if piece:
            pieces.append(piece)
        text = text[cut:].lstrip(" ")
    if text or not pieces:
        pieces.append(text)
    return pieces
