"""A chat command that writes, run as one unit of work (:meth:`storage.store.Store.unit`).

The command reads, checks and writes in one transaction; its lines are said only once
that transaction is committed. What it changes in the referee's memory (the channels'
tables, the settings) it changes on copies of its own (:class:`Staged`): only its own
thread sees them, the talk lane (:mod:`bot.chat.lanes`) reads what was committed, and
they take the place of the committed ones when the transaction commits. When it is
rolled back after a write (a refusal after the write, a commit that failed), nothing it
did is kept: its copies, the lines it meant to say and the moderators it added in chat
are dropped with its rows, and only the reason is said. A command refused before it
wrote keeps what it read, as a command outside a unit does.

Commands run together in one transaction (:func:`batch_unit`, group commit) stage in
layers: the batch's copies, and each command's over them, made from the batch's. A
command that ends (or is refused before it wrote) merges its layer into the batch's, so
the next command sees what it did; one rolled back after a write drops its layer with
its savepoint. The batch's layer is published once the batch is committed, and dropped
with everything else when it is not.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from bot.chat.registry import Ctx
from bot.irc.casemap import DEFAULT, Folded, fold
from storage.unit_of_work import Unit

if TYPE_CHECKING:
    from bot.referee import Referee

__all__ = ["Staged", "batch_unit", "command_unit"]

V = TypeVar("V")


class Staged(Folded[V]):
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
    """A copy whose lists, dicts and sets are its own too (a table's unsaid events)."""
    made = copy.copy(value)
    for name, field in vars(made).items() if hasattr(made, "__dict__") else ():
        if isinstance(field, list | dict | set):
            setattr(made, name, copy.copy(field))
    return made


@contextmanager
def command_unit(ctx: Ctx) -> Iterator[None]:
    """The ``with`` around a writing command's handler (in a batch, its savepoint): a
    whole unit, since a handler lets a failed write end the command."""
    said = len(ctx.out)
    unit: Unit | None = None
    try:
        with _staging(ctx.referee, partial(ctx.referee.store.unit, whole=True)) as unit:
            yield
    except BaseException:
        if unit is not None and unit.changed:
            del ctx.out[said:]
        raise


def batch_unit(referee: Referee) -> AbstractContextManager[Unit]:
    """The ``with`` around writing commands run together (group commit), each in its
    :func:`command_unit`: what they staged is published once it is committed."""
    return _staging(referee, referee.store.batch)


@contextmanager
def _staging(referee: Referee, opening: Callable[[], AbstractContextManager[Unit]],
             ) -> Iterator[Unit]:
    """``opening()``'s unit with a layer of the referee's memory staged (the tables, and
    the settings with the moderators named in chat): published when the unit has ended
    (committed, or refused before it wrote), dropped when it was rolled back after a
    write."""
    memory: tuple[Staged[Any], ...] = (referee.tables, referee._settings)
    depths = [mapping.depth() for mapping in memory]
    keep = True
    unit: Unit | None = None
    try:
        with opening() as unit:
            for mapping in memory:
                mapping.stage()
            yield unit
    except BaseException:
        if unit is not None and unit.changed:
            keep = False
        raise
    finally:
        for mapping, depth in zip(memory, depths, strict=True):
            if mapping.depth() > depth:
                mapping.publish() if keep else mapping.drop()
