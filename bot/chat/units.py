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
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from bot.chat.registry import Ctx
from bot.irc.casemap import DEFAULT, Folded, fold

__all__ = ["Staged", "command_unit"]

V = TypeVar("V")


class Staged(Folded[V]):
    """A :class:`Folded` whose values a unit on one thread changes on copies: while
    :meth:`stage` is on, that thread reads and writes its copies (made as it first
    reads a value) and every other thread the committed values; :meth:`publish` puts
    the copies in their place, :meth:`drop` forgets them. ``exact`` compares keys as
    they are spelled (for the settings), not by the casemapping."""

    def __init__(self, casemapping: str = DEFAULT, *, exact: bool = False) -> None:
        super().__init__(casemapping)
        self._exact = exact
        self._local = threading.local()

    def _key(self, name: str) -> str:
        return name if self._exact else fold(name, self.casemapping)

    def _staged(self) -> dict[str, tuple[str, V]] | None:
        staged: dict[str, tuple[str, V]] | None = getattr(self._local, "items", None)
        return staged

    def __getitem__(self, name: str) -> V:
        key, staged = self._key(name), self._staged()
        if staged is None:
            return self._items[key][1]
        if key not in staged:
            spelled, value = self._items[key]
            staged[key] = (spelled, _copy(value))
        return staged[key][1]

    def __setitem__(self, name: str, value: V) -> None:
        staged = self._staged()
        (self._items if staged is None else staged)[self._key(name)] = (name, value)

    def __delitem__(self, name: str) -> None:
        if self._staged() is not None:
            raise RuntimeError("a unit never forgets a value")
        del self._items[self._key(name)]

    def __iter__(self) -> Iterator[str]:
        items = dict(self._items)   # one step: another thread may add meanwhile
        items.update(self._staged() or {})
        return iter([name for name, _ in items.values()])

    def __len__(self) -> int:
        return len(self._items.keys() | (self._staged() or {}).keys())

    def stage(self) -> None:
        """From now on this thread changes copies."""
        self._local.items = {}

    def publish(self) -> None:
        """This thread's copies become the values every thread reads."""
        self._items.update(self._local.items)
        self._local.items = None

    def drop(self) -> None:
        """Forget this thread's copies."""
        self._local.items = None


def _copy(value: V) -> V:
    """A copy whose lists, dicts and sets are its own too (a table's unsaid events)."""
    made = copy.copy(value)
    for name, field in vars(made).items() if hasattr(made, "__dict__") else ():
        if isinstance(field, list | dict | set):
            setattr(made, name, copy.copy(field))
    return made


@contextmanager
def command_unit(ctx: Ctx) -> Iterator[None]:
    """The ``with`` around a writing command's handler."""
    referee, said = ctx.referee, len(ctx.out)
    staged = (referee.tables, referee._settings)
    wrote = False
    with _staging(staged) as keep:
        try:
            with referee.store.unit() as unit:   # its end commits
                moderators = list(referee.chat_moderators)   # with the lock held
                for mapping in staged:
                    mapping.stage()
                try:
                    yield
                finally:
                    wrote = unit.wrote
        except BaseException:
            if wrote:
                keep[0] = False
                referee.chat_moderators[:] = moderators
                del ctx.out[said:]
            raise


@contextmanager
def _staging(staged: tuple[Staged[Any], ...]) -> Iterator[list[bool]]:
    """Publish what was staged when the ``with`` ends, unless it set ``keep[0]`` False."""
    keep = [True]
    try:
        yield keep
    finally:
        for mapping in staged:
            if mapping._staged() is not None:
                mapping.publish() if keep[0] else mapping.drop()
