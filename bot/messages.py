"""What transports hand the referee and what it hands back.

``Incoming`` is validated by pydantic: text is cut to 600 characters and stripped of
NUL, so nothing later has to distrust it. Identity is the transport's business: an
IRC services account, an exact ``nick!user@host`` mask, or on the console the nick.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["Incoming", "Outgoing", "Priority", "Sender"]


class Sender(BaseModel):
    model_config = ConfigDict(frozen=True)

    nick: str = Field(min_length=1, max_length=64)
    account: str | None = None
    """A services account (R8.2), when the network has them."""
    mask: str | None = None
    """``nick!user@host``, when the transport knows it; matched against moderator
    masks only."""
    host: str | None = None
    """``user@host`` on a network without accounts: it survives a nick change."""

    @property
    def identity(self) -> str:
        """Who this is for ownership and turns: the services account, else ``user@host``,
        else the nick (the console)."""
        return self.account or self.host or self.nick


class Incoming(BaseModel):
    model_config = ConfigDict(frozen=True)

    sender: Sender
    text: str
    channel: str | None = None
    """None for a private message."""

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        return value.replace("\0", "")[:600].strip()

    @property
    def reply_to(self) -> str:
        return self.channel or self.sender.nick


class Priority(IntEnum):
    """Fight output goes before chatter in the send queue."""

    FIGHT = 0
    CHATTER = 1


@dataclass(frozen=True, slots=True)
class Outgoing:
    target: str
    text: str
    priority: Priority = Priority.CHATTER
    fit: Callable[[int], str] | None = field(default=None, compare=False)
    """The same line in at most so many bytes, for a line that must stay one (a
    fight's end and its anchor: bot/wording/fit.py); None: a long line may be split."""
    asker: Sender | None = field(default=None, compare=False)
    """Whom it answers (the sender of the command it answers), for the send queue's
    fair order (bot/irc/outbox.py); None: nobody in particular."""
