"""Moderators named by ``nick!user@host`` mask rather than by services account: what
the configuration checks and ``!mod add`` refuse (R8.2)."""

from __future__ import annotations

__all__ = ["is_mask", "unverified_masks"]


def is_mask(name: str) -> bool:
    """Whether a moderator's name is a ``nick!user@host`` mask (not an account)."""
    return "!" in name


def unverified_masks(moderators: list[str]) -> list[str]:
    """Configured masks whose ident the server did not verify (``nick!~user@host``):
    anyone on that host can claim them with ``USER user``."""
    return [m for m in moderators if "!" in m and m.split("!", 1)[1].startswith("~")]
