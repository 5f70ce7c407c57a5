"""The command registry: each chat command declares its usage, a summary and examples;
the examples are both ``!help`` text and tests (tests/unit/test_help_examples.py).

Handlers receive a :class:`Ctx` and raise :class:`Refusal` for anything a user got
wrong; the referee turns that into one short line addressed to them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.chat.messages import Incoming, Outgoing, Priority

if TYPE_CHECKING:
    from bot.referee import Referee

__all__ = ["REGISTRY", "Ctx", "Example", "Refusal", "Spec", "command", "split_command"]


class Refusal(Exception):
    """A request the referee declines; the message names the fix."""


@dataclass(frozen=True, slots=True)
class Example:
    """Lines ``"<nick> <text>"`` run in order on a fresh club; the last reply must
    contain ``expect``. ``dice`` script the bot's rolls."""

    lines: tuple[str, ...]
    expect: str
    dice: tuple[int, ...] = ()


@dataclass
class Ctx:
    referee: Referee
    msg: Incoming
    name: str
    args: list[str]
    out: list[Outgoing] = field(default_factory=list)

    @property
    def who(self) -> str:
        """The sender's identity (account, mask, or console nick)."""
        return self.msg.sender.identity

    def reply(self, text: str) -> None:
        """A line addressed to the sender."""
        prefix = f"{self.msg.sender.nick}: " if self.msg.channel else ""
        self.out.append(Outgoing(self.msg.reply_to, prefix + text))

    def say(self, text: str, priority: Priority = Priority.FIGHT) -> None:
        """A line to the channel (or the private conversation)."""
        if text:
            self.out.append(Outgoing(self.msg.reply_to, text, priority))

    def channel(self) -> str:
        if self.msg.channel is None:
            raise Refusal(f"!{self.name} works in a channel, not in private")
        return self.msg.channel


Handler = Callable[[Ctx], None]


@dataclass(frozen=True, slots=True)
class Spec:
    name: str
    usage: str
    summary: str
    handler: Handler
    examples: tuple[Example, ...] = ()
    group: str = "general"
    reads_only: bool = False
    """It never writes the records nor changes a fight: it may run beside the writers."""
    subs: tuple[tuple[str, str], ...] = ()
    """``(word, "usage: summary")`` per sub-command, for ``!help <name> <word>``."""


REGISTRY: dict[str, Spec] = {}


def command(
    name: str, usage: str, summary: str, *, examples: tuple[Example, ...] = (),
    group: str = "general", aliases: tuple[str, ...] = (), reads_only: bool = False,
    subs: tuple[tuple[str, str], ...] = (),
) -> Callable[[Handler], Handler]:
    """Register a handler for ``!name`` (and its aliases)."""

    def register(handler: Handler) -> Handler:
        spec = Spec(name, usage, summary, handler, examples, group, reads_only, subs)
        for key in (name, *aliases):
            REGISTRY[key] = spec
        return handler

    return register


def split_command(text: str, prefix: str) -> tuple[str, list[str]] | None:
    """``("roll", ["d100"])`` for ``!roll d100`` or ``/rol d100``; None for chatter."""
    if text.lower().startswith(("/rol ", "/roll ")):
        return "roll", text.split()[1:]
    if not text.startswith(prefix) or len(text) <= len(prefix):
        return None
    words = text[len(prefix):].split()
    if not words:
        return None
    return words[0].lower(), words[1:]
