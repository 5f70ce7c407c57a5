"""How a rules system's fighter is kept between fights, in plain values (no database):
the contract storage is handed with each system (``RuleSystem.sheets``).

A warrior row keeps a fighter as its ``profile`` (a JSON mapping) beside the club's own
columns every warrior has (BP in tenths, whole BP spent, status). The ledger has always
recorded a sheet as ``culture``, ``armour``, ``skills`` and ``profile``; each codec
says which of its profile go where (``recorded``) and back (``unrecorded``). A system
with no codec of its own keeps its fighter whole, encoded (:class:`Whole`, R9.6: no BP,
no skills).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from rules.codec import Codec, encode

__all__ = ["Change", "Changed", "SheetCodec", "Whole"]

Changed = tuple[Any, dict[str, Any]]
"""A between-fight change's outcome: the new fighter, and its ledger row's fields
(``entry`` by its value, ``actor``, ``reason``... without ``created_at``)."""
Change = Callable[[Any], Changed]
"""A between-fight change of a fighter (a purchase, a moderator's ruling)."""


class SheetCodec(Protocol):
    """A system's fighter to and from a warrior row's stored values."""

    def fighter(self, name: str, profile: Mapping[str, Any], bp: int, bp_spent: int,
                status: str) -> Any:
        """The fighter the values keep (``KeyError``, ``TypeError``, ``ValueError`` or
        ``AttributeError`` when they cannot be read)."""
        ...

    def profile(self, fighter: Any, old: Mapping[str, Any]) -> dict[str, Any]:
        """The profile ``fighter`` is kept as, over the ``old`` one."""
        ...

    def bp(self, fighter: Any) -> tuple[int, int]:
        """Its BP in tenths and whole BP spent."""
        ...

    def owns(self, fighter: object) -> bool:
        """Whether ``fighter`` is one of this system's."""
        ...

    def recorded(self, profile: Mapping[str, Any] | None) -> dict[str, Any]:
        """The profile as the ledger records it (``culture``, ``armour``, ``skills``,
        ``profile``)."""
        ...

    def unrecorded(self, recorded: Mapping[str, Any]) -> Any:
        """The profile of a ledger-recorded sheet (``recorded``'s inverse)."""
        ...

    def group(self, profile: Mapping[str, Any]) -> str | None:
        """What standings may be narrowed to (An Cath's culture); None."""
        ...

    def unlike(self, sheet: Mapping[str, Any], known: Mapping[str, Any]) -> list[str]:
        """Where a fight's setup sheet differs from the ledger-recorded one ``known``."""
        ...


class Whole:
    """A fighter kept whole: its profile is the fighter encoded by ``codec`` (None: a
    system not known here, whose fighters are only compared, never read)."""

    def __init__(self, codec: Codec | None) -> None:
        self._codec = codec

    def fighter(self, name: str, profile: Mapping[str, Any], bp: int, bp_spent: int,
                status: str) -> Any:
        if self._codec is None:
            raise ValueError("a rules system not known here")
        return self._codec.decode(profile)

    def profile(self, fighter: Any, old: Mapping[str, Any]) -> dict[str, Any]:
        found: dict[str, Any] = encode(fighter)
        return found

    def bp(self, fighter: Any) -> tuple[int, int]:
        return 0, 0

    def owns(self, fighter: object) -> bool:
        if self._codec is None:
            return False
        try:
            return bool(self._codec.decode(encode(fighter)) == fighter)
        except (KeyError, TypeError, ValueError, AttributeError):
            return False

    def recorded(self, profile: Mapping[str, Any] | None) -> dict[str, Any]:
        return {"culture": None, "armour": None, "skills": {}, "profile": profile}

    def unrecorded(self, recorded: Mapping[str, Any]) -> Any:
        return recorded["profile"]

    def group(self, profile: Mapping[str, Any]) -> str | None:
        return None

    def unlike(self, sheet: Mapping[str, Any], known: Mapping[str, Any]) -> list[str]:
        if known["profile"] is not None and sheet != known["profile"]:
            return ["its profile differs"]
        return []
