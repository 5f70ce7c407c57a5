"""The command registry: each chat command declares its usage, a summary and examples;
the examples are both ``!help`` text and tests (tests/unit/test_help_examples.py).

``@command(...)`` only marks a handler; preconditions (``@channel_only``,
``@moderator_only``), Sopel's ``require_*`` in shape, are stacked under it and run
before the handler, so a handler's first lines are its work (a fight's commands find
the sender's seat, or refuse, with :func:`bot.fights.play.seated`, which looks the
channel's fight up once for the whole command). The referee builds its
:class:`Registry` with :func:`load` from an explicit list of command modules; nothing
registers itself by being imported.
A command with sub-commands (``!mod``) holds a :class:`Group` of :class:`Sub` entries,
marked with ``@sub(...)`` the same way.

Handlers receive a :class:`Ctx`: the line, the reply sink, and the :class:`Services`
they may use (never the referee), and raise :class:`Refusal` for anything a user got
wrong; the referee turns that into one short line addressed to them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from inspect import isfunction
from types import ModuleType
from typing import Any, TypeVar

from bot.channel_fights import ChannelFights
from bot.clock import Clock
from bot.club_settings import ClubSettings
from bot.config import BotConfig
from bot.dice import DiceSource
from bot.identity.identity import Identity
from bot.messages import Incoming, Outgoing, Priority
from bot.odds.pending import OddsRequests
from bot.refusals import Refusal, WritesAfterAll
from bot.safe_text import DEFAULT_BUDGET
from storage.store import Store

__all__ = [
    "MODERATORS_ONLY", "Ctx", "Example", "Group", "Precondition", "Refusal", "Registry",
    "Services", "Spec", "Sub", "WritesAfterAll", "at_least", "channel_only", "collect",
    "command", "load", "moderator_only", "one_of", "split_command", "sub", "subs_of",
]


@dataclass(frozen=True, slots=True)
class Example:
    """Lines ``"<nick> <text>"`` run in order on a fresh club; the last reply must
    contain ``expect``. ``dice`` script the bot's rolls."""

    lines: tuple[str, ...]
    expect: str
    dice: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Services:
    """What a command may use: the records, the dice, the clock, the channels' tables,
    the club's settings, who is who, the odds requests, the commands (for ``!help``) and
    the configuration. One per referee, built by it."""

    config: BotConfig
    store: Store
    dice: DiceSource
    clock: Clock
    tables: ChannelFights
    settings: ClubSettings
    identity: Identity
    odds: OddsRequests
    commands: Registry


@dataclass
class Ctx:
    services: Services
    msg: Incoming
    name: str
    args: list[str]
    out: list[Outgoing] = field(default_factory=list)
    writes: bool = True
    """Whether the line runs as a writer (in a unit, on the records lane)."""

    @property
    def who(self) -> str:
        """The sender's identity (account, mask, or console nick)."""
        return self.msg.sender.identity

    @property
    def moderator(self) -> str:
        """Whom a moderator's ruling is recorded as: ``who``, or for a moderator logged
        in by password the name they logged in as (``Identity.recorded_as``)."""
        return self.services.identity.recorded_as(self.msg.sender)

    def _address(self) -> str:
        """``olaf: ``, before a reply in a channel; nothing in private."""
        return f"{self.msg.sender.nick}: " if self.msg.channel else ""

    def reply(self, text: str) -> None:
        """A line addressed to the sender."""
        self.out.extend(self.answer(text))

    def answer(self, text: str) -> list[Outgoing]:
        """A reply to the sender apart from this command's lines (one said later)."""
        return [Outgoing(self.msg.reply_to, self._address() + text, asker=self.msg.sender)]

    def room(self) -> int:
        """The bytes a reply's text may take and still be one line (the budget of
        :mod:`bot.safe_text` less the address)."""
        return DEFAULT_BUDGET - len(self._address().encode())

    def say(self, text: str, priority: Priority = Priority.FIGHT,
            fit: Callable[[int], str] | None = None) -> None:
        """A line to the channel (or the private conversation); ``fit`` as
        :class:`Outgoing` has it."""
        if text:
            self.out.append(Outgoing(self.msg.reply_to, text, priority, fit,
                                     self.msg.sender))

    def writing(self) -> None:
        """Before a write the line was not taken for: it goes to the records lane."""
        if not self.writes:
            raise WritesAfterAll(self.msg.text)

    def channel(self) -> str:
        if self.msg.channel is None:
            raise Refusal(f"!{self.name} works in a channel, not in private")
        return self.msg.channel


Handler = Callable[[Ctx], None]
SubHandler = Callable[[Ctx, list[str]], None]
F = TypeVar("F", bound=Callable[..., None])


# -- preconditions ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Precondition:
    """What must hold before a command runs: ``check`` returns why not (the refusal),
    or None. As a decorator it attaches itself to a handler."""

    name: str
    check: Callable[[Ctx], str | None]

    def __call__(self, handler: F) -> F:
        vars(handler).setdefault("preconditions", []).insert(0, self)
        return handler

    def enforce(self, ctx: Ctx) -> None:
        why = self.check(ctx)
        if why is not None:
            raise Refusal(why)


def _preconditions(handler: Callable[..., None]) -> tuple[Precondition, ...]:
    return tuple(vars(handler).get("preconditions", ()))


def _in_channel(ctx: Ctx) -> str | None:
    return None if ctx.msg.channel is not None else \
        f"!{ctx.name} works in a channel, not in private"


MODERATORS_ONLY = ("only moderators use !mod (by services account or host mask; without "
                   "services: /msg <bot> !mod login <password>)")
"""The refusal of a non-moderator's ``!mod``, naming the one way in on a network without
services (R8.2). The bot's own nick is the transport's (it may have fallen back to
another): a nick guessed here could be someone else's, who would get the password."""


def _moderator(ctx: Ctx) -> str | None:
    return None if ctx.services.identity.is_moderator(ctx.msg.sender) else MODERATORS_ONLY


channel_only = Precondition("channel only", _in_channel)
moderator_only = Precondition("moderator only", _moderator)
"""By services account, exact host mask, or a password login (R8.2)."""


# -- commands -----------------------------------------------------------------------------


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
    aliases: tuple[str, ...] = ()
    preconditions: tuple[Precondition, ...] = ()
    writes: Callable[[list[str]], bool] | None = None
    """Whether the command with these words may write, where that hangs on them (a
    :class:`Group`'s sub-command, ``!mod``); else it writes unless ``reads_only``."""

    def run(self, ctx: Ctx) -> None:
        for precondition in self.preconditions:
            precondition.enforce(ctx)
        self.handler(ctx)


def command(
    name: str, usage: str, summary: str, *, examples: tuple[Example, ...] = (),
    group: str = "general", aliases: tuple[str, ...] = (), reads_only: bool = False,
    subs: tuple[tuple[str, str], ...] = (),
) -> Callable[[Handler], Handler]:
    """Mark a handler as ``!name`` (and its aliases); :func:`collect` finds it."""

    def mark(handler: Handler) -> Handler:
        spec = Spec(name, usage, summary, handler, examples, group, reads_only, subs, aliases)
        vars(handler).setdefault("commands", []).append(spec)
        return handler

    return mark


def _marked(module: ModuleType, key: str) -> Iterator[tuple[Callable[..., None], Any]]:
    """Each mark under ``key`` of the functions defined in ``module``, in order."""
    for value in list(vars(module).values()):
        if isfunction(value) and value.__module__ == module.__name__:
            for mark in vars(value).get(key, ()):
                yield value, mark


def collect(module: ModuleType) -> tuple[Spec, ...]:
    """The commands ``module`` defines, with their preconditions."""
    return tuple(replace(spec, preconditions=_preconditions(handler))
                 for handler, spec in _marked(module, "commands"))


class Registry(Mapping[str, Spec]):
    """Commands by name and alias."""

    def __init__(self) -> None:
        self._specs: dict[str, Spec] = {}

    def add(self, spec: Spec) -> None:
        for key in (spec.name, *spec.aliases):
            if key in self._specs:
                raise ValueError(f"!{key} is registered twice")
            self._specs[key] = spec

    def __getitem__(self, key: str) -> Spec:
        return self._specs[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)


def load(sources: Iterable[ModuleType | Iterable[Spec]]) -> Registry:
    """A registry of the commands the ``sources`` define, in their order: a module's
    marked handlers, or commands made elsewhere (the rules systems' fight verbs)."""
    registry = Registry()
    for source in sources:
        specs = collect(source) if isinstance(source, ModuleType) else tuple(source)
        for spec in specs:
            registry.add(spec)
    return registry


# -- sub-commands -------------------------------------------------------------------------


def at_least(count: int) -> Callable[[list[str]], bool]:
    """Words that fit when there are ``count`` or more."""
    return lambda args: len(args) >= count


def one_of(*words: str) -> Callable[[list[str]], bool]:
    """Words that fit when the first is one of ``words``."""
    return lambda args: args[:1] in [[w] for w in words]


@dataclass(frozen=True, slots=True)
class Sub:
    """One sub-command: ``!mod <name> <args>`` runs ``handler(ctx, args)`` when
    ``fits(args)``, after its preconditions; else its usage is the refusal."""

    name: str
    usage: str
    summary: str
    handler: SubHandler
    fits: Callable[[list[str]], bool]
    aliases: tuple[str, ...] = ()
    preconditions: tuple[Precondition, ...] = ()
    reads_only: bool = False
    """It never writes the records nor changes a fight (``Spec.reads_only``)."""

    @property
    def help(self) -> str:
        return f"{self.usage}: {self.summary}"


_ANY_WORDS = at_least(0)


def sub(name: str, usage: str, summary: str, *,
        fits: Callable[[list[str]], bool] = _ANY_WORDS, aliases: tuple[str, ...] = (),
        reads_only: bool = False) -> Callable[[SubHandler], SubHandler]:
    """Mark a handler as a sub-command; :func:`subs_of` finds it."""

    def mark(handler: SubHandler) -> SubHandler:
        vars(handler).setdefault("subs", []).append(
            Sub(name, usage, summary, handler, fits, aliases, reads_only=reads_only))
        return handler

    return mark


def subs_of(module: ModuleType) -> tuple[Sub, ...]:
    """The sub-commands ``module`` defines, with their preconditions."""
    return tuple(replace(entry, preconditions=_preconditions(handler))
                 for handler, entry in _marked(module, "subs"))


@dataclass(frozen=True, slots=True)
class Group:
    """A command's sub-commands, chosen by the first word. ``preconditions`` are what a
    missing or unknown sub-command is refused by before its usage is."""

    name: str
    subs: tuple[Sub, ...]
    preconditions: tuple[Precondition, ...] = ()
    word: str = "ruling"
    """What the usage calls a sub-command."""

    @property
    def names(self) -> str:
        return " ".join(s.name for s in self.subs)

    @property
    def help(self) -> tuple[tuple[str, str], ...]:
        """``(word, "usage: summary")`` per sub-command (``Spec.subs``)."""
        return tuple((s.name, s.help) for s in self.subs)

    def find(self, word: str) -> Sub | None:
        return next((s for s in self.subs if word in (s.name, *s.aliases)), None)

    def writes(self, args: list[str]) -> bool:
        """Whether ``!<name> <args>`` may write: a known sub-command not reads-only."""
        entry = self.find(args[0].lower()) if args else None
        return entry is not None and not entry.reads_only

    def run(self, ctx: Ctx) -> None:
        """``!<name> <sub> <args>``: the sub-command's preconditions, its words, its work."""
        entry = self.find(ctx.args[0].lower()) if ctx.args else None
        for precondition in entry.preconditions if entry else self.preconditions:
            precondition.enforce(ctx)
        if entry is None:
            raise Refusal(f"usage: !{self.name} <{self.word}> ...; {self.word}s: "
                          f"{self.names}; !help {self.name} <{self.word}> for one")
        args = ctx.args[1:]
        if not entry.fits(args):
            raise Refusal(f"usage: {entry.usage}")
        entry.handler(ctx, args)


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
