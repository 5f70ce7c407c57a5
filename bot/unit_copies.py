"""Values kept by name (a channel's table, the club's settings) that a unit of work on
one thread changes on copies of its own, published when it commits and dropped when it
does not (:mod:`bot.chat.units`): :class:`UnitCopies`."""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from typing import TypeVar

from bot.casemap import DEFAULT, Folded, fold

__all__ = ["UnitCopies"]

V = TypeVar("V")


class UnitCopies(Folded[V]):
    """A :class:`Folded` whose values a unit on one thread changes on copies: while it
    has a layer staged, that thread reads and writes copies in its top layer (made as it
    first reads a value, from the layers below or the committed values) and every other
    thread the committed values; :meth:`publish` merges the top layer into the one below
    it (the last into the committed values), :meth:`drop` forgets it. ``exact`` compares
    keys as they are spelled (for the settings), not by the casemapping."""

    def __init__(self, casemapping: str = DEFAULT, *, exact: bool = False) -> None:
        super().__init__(casemapping)
        self._exact = exact
        self._local = threading.local()

    def _key(self, name: str) -> str:
        return name if self._exact else fold(name, self.casemapping)

    def _layers(self) -> list[dict[str, tuple[str, V]]]:
        layers: list[dict[str, tuple[str, V]]] | None = getattr(self._local, "layers", None)
        if layers is None:
            layers = self._local.layers = []
        return layers

    def __getitem__(self, name: str) -> V:
        key, layers = self._key(name), self._layers()
        if not layers:
            return self._items[key][1]
        top = layers[-1]
        if key not in top:
            spelled, value = next((layer[key] for layer in reversed(layers) if key in layer),
                                  None) or self._items[key]
            top[key] = (spelled, _copy(value))
        return top[key][1]

    def __setitem__(self, name: str, value: V) -> None:
        layers = self._layers()
        (layers[-1] if layers else self._items)[self._key(name)] = (name, value)

    def __delitem__(self, name: str) -> None:
        if self._layers():
            raise RuntimeError("a unit never forgets a value")
        del self._items[self._key(name)]

    def __iter__(self) -> Iterator[str]:
        items = dict(self._items)   # one step: another thread may add meanwhile
        for layer in self._layers():
            items.update(layer)
        return iter([name for name, _ in items.values()])

    def __len__(self) -> int:
        return len(set(self._items).union(*self._layers()))

    def depth(self) -> int:
        """How many layers this thread has staged."""
        return len(self._layers())

    def stage(self) -> None:
        """From now on this thread changes copies, in a new layer."""
        self._layers().append({})

    def publish(self) -> None:
        """This thread's top layer goes into the one below it, or becomes the values
        every thread reads."""
        layers = self._layers()
        top = layers.pop()
        (layers[-1] if layers else self._items).update(top)

    def drop(self) -> None:
        """Forget this thread's top layer."""
        self._layers().pop()


def _copy(value: V) -> V:
    """A copy whose lists, dicts and sets are its own too (a channel's unannounced events)."""
    made = copy.copy(value)
    for name, field in vars(made).items() if hasattr(made, "__dict__") else ():
        if isinstance(field, list | dict | set):
            setattr(made, name, copy.copy(field))
    return made
