"""The rules systems a store is handed at start-up (``Store(engine, systems=...)``),
and what storage asks of each: its name, its ``RuleSystem`` (a fight's replay) and its
sheet codec (``RuleSystem.sheets()``: a fighter to and from a warrior row's stored
values, ``rules.stored``). Storage imports no rules system: whatever is particular to
one (An Cath's skills, armour, culture) is its codec's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rules.stored import SheetCodec, Whole
from rules.system import RuleSystem
from storage.errors import StorageError

__all__ = ["Handed", "SheetCodec", "Systems"]


_UNKNOWN = Whole(None)
"""A system not handed to this store: its fighters are compared whole, never read."""


class Systems:
    """The rules systems a store knows, by name; the first is the one whose warriors
    the ledger recorded without naming their system (legacy rows)."""

    def __init__(self, systems: Mapping[str, RuleSystem] | Iterable[RuleSystem]) -> None:
        found = systems.values() if isinstance(systems, Mapping) else systems
        self._by_name = {system.name: system for system in found}
        self._sheets = {name: system.sheets() for name, system in self._by_name.items()}

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def rules(self, name: str) -> RuleSystem:
        """The system ``name`` (``KeyError`` when this store was handed none)."""
        return self._by_name[name]

    def sheets(self, name: str | None) -> SheetCodec:
        """The sheet codec of ``name`` (None: the legacy rows' system); one that keeps
        fighters whole for a system not handed here."""
        if name is None:
            return next(iter(self._sheets.values()), _UNKNOWN)
        return self._sheets.get(name, _UNKNOWN)

    def owning(self, fighter: object) -> RuleSystem:
        """The system whose fighter ``fighter`` is; refused when none handed here."""
        for name, sheets in self._sheets.items():
            if sheets.owns(fighter):
                return self._by_name[name]
        raise StorageError(f"no rules system this club plays fights with a "
                           f"{type(fighter).__name__}: start the bot with it")

    def recorded(self, system: str, profile: Any) -> dict[str, Any]:
        """A profile as the ledger records it (``culture``, ``armour``, ``skills``,
        ``profile``); a damaged one (no mapping) whole, so that ``verify`` names it."""
        if profile is not None and not isinstance(profile, dict):
            return _UNKNOWN.recorded(profile)
        return self.sheets(system).recorded(profile)


Handed = Systems | Mapping[str, RuleSystem] | Iterable[RuleSystem]
"""What a store may be handed: its systems by name, or one after another."""
