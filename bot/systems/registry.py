"""The one registry of the rules systems the bot plays, found by name or alias as
python-chess finds a variant (``find_variant``). Each system is a folder of its own
(``bot/systems/<name>/``) whose plugin is listed once in :data:`SYSTEMS`; nothing
registers itself by being imported."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bot.refusals import Refusal
from bot.systems.ancath.plugin import AN_CATH
from bot.systems.contest.plugin import CONTEST
from bot.systems.general.plugin import GENERAL
from bot.systems.plugin import Plugin
from rules.system import RuleSystem

__all__ = ["PLUGINS", "SYSTEMS", "Systems", "UnknownSystem"]


class UnknownSystem(Refusal, LookupError):
    """A name no registered system goes by; the message names those that do."""


class Systems:
    """Plugins in the order registered, by name (``plugins``), and their rules by name
    (``rules``, for storage)."""

    def __init__(self, *plugins: Plugin[Any, Any]) -> None:
        self.plugins: dict[str, Plugin[Any, Any]] = {}
        """Each plugin by its system's name."""
        self.rules: dict[str, RuleSystem] = {}
        """Each system's rules by its name: what storage is handed at start-up."""
        for plugin in plugins:
            self.add(plugin)

    @staticmethod
    def _words(plugin: Plugin[Any, Any]) -> set[str]:
        return {w.casefold() for w in (plugin.system.name, plugin.label, *plugin.aliases)}

    def add(self, plugin: Plugin[Any, Any]) -> None:
        """Register ``plugin``; a name or alias another system goes by is refused."""
        taken = {w for p in self for w in self._words(p) if p is not plugin}
        if self._words(plugin) & taken:
            raise ValueError(f"{plugin.system.name}: a name another system goes by")
        self.plugins[plugin.system.name] = plugin
        self.rules[plugin.system.name] = plugin.system

    def remove(self, plugin: Plugin[Any, Any]) -> None:
        del self.plugins[plugin.system.name], self.rules[plugin.system.name]

    @contextmanager
    def registered(self, plugin: Plugin[Any, Any]) -> Iterator[Plugin[Any, Any]]:
        """``plugin`` registered for the ``with`` block (a test's system)."""
        self.add(plugin)
        try:
            yield plugin
        finally:
            self.remove(plugin)

    def find(self, name: str) -> Plugin[Any, Any]:
        """The system ``name`` names: its name, label or an alias, in any case."""
        word = name.casefold()
        found = next((p for p in self if word in self._words(p)), None)
        if found is None:
            raise UnknownSystem(f"no rules system {name!r}; systems: {', '.join(self.plugins)}")
        return found

    def __iter__(self) -> Iterator[Plugin[Any, Any]]:
        return iter(tuple(self.plugins.values()))

    def __len__(self) -> int:
        return len(self.plugins)


SYSTEMS = Systems(AN_CATH, CONTEST, GENERAL)
"""The club's systems; ``SYSTEMS.rules`` is what a store is handed
(``Store(engine, systems=SYSTEMS.rules)``)."""

PLUGINS = SYSTEMS.plugins
"""Each plugin by its system's name (the same mapping as ``SYSTEMS.plugins``)."""
