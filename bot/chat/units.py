"""A chat command that writes, run as one unit of work (:meth:`storage.store.Store.unit`).

The command reads, checks and writes in one transaction; its lines are said only once
that transaction is committed. When it is rolled back after a write (a refusal after
the write, a commit that failed), nothing it did is kept: the lines it meant to say and
what it changed in the referee's memory (the channels' tables, the settings read, the
moderators added in chat) are taken back with its rows, and only the reason is said.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from bot.chat.registry import Ctx

if TYPE_CHECKING:
    from bot.referee import Referee

__all__ = ["command_unit"]


@contextmanager
def command_unit(ctx: Ctx) -> Iterator[None]:
    """The ``with`` around a writing command's handler."""
    referee, said = ctx.referee, len(ctx.out)
    put_back = _memory(referee)
    wrote = False
    try:
        with referee.store.unit() as unit:   # its end commits
            try:
                yield
            finally:
                wrote = unit.wrote
    except BaseException:
        if wrote:
            put_back()
            del ctx.out[said:]
        raise


def _memory(referee: Referee) -> Callable[[], None]:
    """What a command may change in the referee's memory beside the records; returns
    what puts it back as it is now."""
    tables = {key: copy.copy(table) for key, table in referee.tables.items()}
    settings = dict(referee._settings)
    moderators = list(referee.chat_moderators)

    def put_back() -> None:
        for key, table in list(referee.tables.items()):
            if key in tables:
                vars(table).update(vars(tables[key]))
            else:
                del referee.tables[key]
        referee._settings.clear()
        referee._settings.update(settings)
        referee.chat_moderators[:] = moderators

    return put_back
