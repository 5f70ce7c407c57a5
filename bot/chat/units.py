"""A chat command that writes, run as one unit of work (:meth:`storage.store.Store.unit`).

The command reads, checks and writes in one transaction; its lines are said only once
that transaction is committed. What it changes in the referee's memory (the channels'
tables, the settings) it changes on copies of its own
(:class:`bot.unit_copies.UnitCopies`): only its own
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

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import partial
from typing import Any

from bot.commands.registry import Ctx, Services
from bot.unit_copies import UnitCopies
from storage.unit_savepoints import Unit

__all__ = ["batch_unit", "command_unit"]


@contextmanager
def command_unit(ctx: Ctx) -> Iterator[None]:
    """The ``with`` around a writing command's handler (in a batch, its savepoint): a
    whole unit, since a handler lets a failed write end the command."""
    said = len(ctx.out)
    unit: Unit | None = None
    try:
        with _staging(ctx.services, partial(ctx.services.store.unit, whole=True)) as unit:
            yield
    except BaseException:
        if unit is not None and unit.changed:
            del ctx.out[said:]
        raise


def batch_unit(services: Services) -> AbstractContextManager[Unit]:
    """The ``with`` around writing commands run together (group commit), each in its
    :func:`command_unit`: what they staged is published once it is committed."""
    return _staging(services, services.store.batch)


@contextmanager
def _staging(services: Services, opening: Callable[[], AbstractContextManager[Unit]],
             ) -> Iterator[Unit]:
    """``opening()``'s unit with a layer of the referee's memory staged (the tables, and
    the settings with the moderators named in chat): published when the unit has ended
    (committed, or refused before it wrote), dropped when it was rolled back after a
    write."""
    memory: tuple[UnitCopies[Any], ...] = (services.tables, services.settings.kept)
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
