"""Every refusal and failure of a chat command as its one reply, never a traceback in
the channel: a refusal is said as it is; a damaged record or a commit of unknown outcome
is said and logged; anything else is logged (a password never) and said as a short
apology. What the caller must handle goes on: scripted dice run out (a test or a replay
is wrong), a line on the wrong lane (``WritesAfterAll``) and the records lost.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from bot.commands.registry import Ctx
from bot.dice import DiceError, DiceExhausted
from bot.refusals import Refusal, WritesAfterAll
from rules.errors import RulesError
from storage.errors import CommitUnknown, DamagedRecord, RecordsLost
from storage.store import StorageError

__all__ = ["one_reply"]

log = logging.getLogger("ancath.referee")

_SORRY = "that went wrong on my side and changed nothing; a moderator can check the log"


@contextmanager
def one_reply(ctx: Ctx) -> Iterator[None]:
    """Run the command of ``ctx`` inside; what it raises becomes its reply."""
    try:
        yield
    except (DiceExhausted, WritesAfterAll, RecordsLost):
        raise
    except DamagedRecord as error:   # refused, and said in the log as in the channel
        log.warning("command %r from %s: %s", ctx.name, ctx.who, error)
        ctx.reply(str(error))
    except CommitUnknown as error:
        log.error("command %r from %s: its commit failed and may have been kept",
                  ctx.name, ctx.who)
        ctx.reply(str(error))
    except (Refusal, RulesError, StorageError, DiceError) as error:
        ctx.reply(str(error))
    except Exception:
        hidden = ctx.name == "mod" and [a.lower() for a in ctx.args[:1]] == ["login"]
        said = "!mod login ..." if hidden else ctx.msg.text   # never log a password
        log.exception("command failed: %r from %s", said, ctx.who)
        ctx.reply(_SORRY)
