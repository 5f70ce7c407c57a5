"""The record a rules system plugs into the bot by (python-chess's variants are the
model): its rules engine, its fight verbs, its wording, its fighters and its commands
outside a fight, together; :mod:`bot.systems.registry` holds them.

A :class:`Verb` is the one place a fight command is defined: its name and help, how
its words make an engine command (``parse``), and how an engine command is said back
(``!dodge``, ``!accept prisoner``). Command registration, the prompts' options, the
``!odds`` labels and the transcript tests all read it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from bot.commands.registry import Spec, Sub
from bot.refusals import Refusal
from bot.systems.fighters import Fighters, Settings
from bot.wording.common import Award, Cast, join
from bot.wording.fit import Say, fitted, quoting
from rules.system import RulesState, RuleSystem
from storage.records import Fighter, WarriorRecord
from storage.store import Store

__all__ = ["Plugin", "Usage", "Verb", "Words", "fixed", "help_lines", "verbs"]

S = TypeVar("S", bound=RulesState)
"""A system's fight state."""
C = TypeVar("C")
"""A system's engine command."""

Words = Callable[[C], str]
"""How a command is said in chat: ``!dodge``, ``!bonus attack``."""


class Usage(Refusal):
    """A verb's words that make no command; the message is its usage."""


@dataclass(frozen=True, slots=True)
class Verb(Generic[C]):
    """One fight verb of one system: ``!name [args]`` for the sender's side."""

    name: str
    summary: str
    """Its ``!help`` line; where several systems share the verb, the first system's."""
    parse: Callable[[int, Sequence[str]], C]
    """``parse(side, args) -> command``; words that make none raise :class:`Usage`."""
    words: Callable[[C], str | None] | None = None
    """The chat words for a command this verb makes, None for any other command;
    unset, ``!name`` for what ``parse(side, [])`` makes."""
    usage: str = ""
    """``!help``'s usage; unset, ``!name``."""
    detail: str = ""
    """This system's note in a shared verb's help: ``Attack (An Cath: <detail>; ...)``."""
    samples: tuple[tuple[str, ...], ...] = ((),)
    """Arguments that make a command, for the conformance test to try every form."""
    chat: bool = True
    """A chat command of its own; False where a wider command hands it on (``!accept``
    takes up a challenge, or, in a fight, a foe's yield)."""

    def say(self, command: C) -> str | None:
        """``!dodge`` when this verb makes ``command``, else None."""
        if self.words is not None:
            return self.words(command)
        side = getattr(command, "side", None)
        if not isinstance(side, int):
            return None
        try:
            made = self.parse(side, ())
        except Usage:
            return None
        return f"!{self.name}" if made == command else None


def _no_opening(_state: Any, _cast: Cast) -> str:
    return ""


_MOST_WORDED = 1024
"""Decisions are few (a verb a side, with its few arguments); a bound all the same."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Plugin(Generic[S, C]):
    """Everything the bot knows of one rules system, built by keywords."""

    system: RuleSystem
    label: str
    """``Simple Contest``: the system as the chat names it."""
    verbs: Mapping[str, Verb[C]]
    """The fight verbs by name."""
    roll: Callable[[int, int], C]
    """``roll(side, value)``: the roll the fight waits for."""
    forfeit: Callable[[int], C]
    end: Callable[[int | None, str], C]
    """``end(winner, reason)``: a moderator's end (R8.1)."""
    describe: Callable[[Sequence[Any], Cast, Sequence[Award] | None], str]
    """``describe(events, cast, awarded)``: a run of events in one line."""
    asks: Callable[[S, bool, Cast, Words[C]], str]
    """``asks(state, manual, cast, word)``: who must move next, with their options."""
    glance: Callable[[S, bool, Cast, Words[C]], str]
    """``glance(state, manual, cast, word)``: the fight at a glance, then who moves."""
    waiting: Callable[[S], str]
    """``Brenna's attack roll``: the roll awaited, or '' when a decision is."""
    undone: Callable[[C, Sequence[str]], str]
    """``Gorm's dodge``: a decision a moderator's undo took back."""
    fighters: Fighters[Any]
    """How ``!create`` makes its fighters, and how they are described."""
    opens: Callable[[Any, Cast], str] = _no_opening
    """``opens(state, cast)``: who fights whom, and with what, for a fight's first line
    when its start has no events to say it (An Cath's ``FightStarted`` does)."""
    aliases: tuple[str, ...] = ()
    """Other words the registry finds it by, beside its name and label."""
    commands: tuple[Spec, ...] = ()
    """Its chat commands outside a fight (An Cath's ``!buy``), wired by :mod:`bot.app`."""
    subcommands: tuple[Sub, ...] = ()
    """Its ``!mod`` rulings on its warriors (An Cath's ``!mod bp``)."""
    setting_subcommands: tuple[Sub, ...] = ()
    """Its ``!mod`` rulings on the club's settings (An Cath's ``!mod fairy``)."""
    advised: bool = False
    """Whether the odds advisor (``!odds``) knows its fights: An Cath's alone."""
    _worded: dict[Any, str] = field(default_factory=dict, init=False, repr=False,
                                    compare=False)
    """The words of the decisions already worded: a prompt words five or so, each by
    asking every verb, a twentieth of a fight move's time."""

    def word(self, command: C) -> str:
        """``!dodge``: the chat words of a decision, by the verb that makes it."""
        words = self._worded.get(command)
        if words is not None:
            return words
        for verb in self.verbs.values():
            words = verb.say(command)
            if words is not None:
                if len(self._worded) < _MOST_WORDED:
                    self._worded[command] = words
                return words
        raise ValueError(f"no {self.label} verb makes {command!r}")

    def create(self, store: Store, name: str, words: Sequence[str], settings: Settings,
               owner: str) -> WarriorRecord[Fighter]:
        """``!create <name> [word] <words>``: the fighter made and stored for ``owner``."""
        fighter = self.fighters.parse(name, words, settings)
        return self.fighters.keep(store, self.system.name, fighter, owner)

    def sheet_line(self, record: WarriorRecord[Fighter], owner: str) -> str:
        """The ``!sheet`` line of one of this system's fighters."""
        return self.fighters.line(record, owner)

    def prompt(self, state: S, manual: bool, cast: Cast) -> str:
        """Who the fight waits for, and their options."""
        return self.asks(state, manual, cast, self.word)

    def status(self, state: S, manual: bool, cast: Cast) -> str:
        """The fight at a glance and whose move it is."""
        return self.glance(state, manual, cast, self.word)

    def answer(self, events: Sequence[Any], state: S, manual: bool, cast: Cast,
               awarded: Sequence[Award] | None, anchor: object | None = None,
               head: str | Say = "", opening: bool = False) -> str:
        """A command's answer as the channel hears it, whole (:meth:`line`)."""
        return self.line(events, state, manual, cast, awarded, anchor, head, opening)(None)

    def line(self, events: Sequence[Any], state: S, manual: bool, cast: Cast,
             awarded: Sequence[Award] | None, anchor: object | None = None,
             head: str | Say = "", opening: bool = False) -> Callable[[int | None], str]:
        """A command's answer in one line, as ``line(room)``: ``head`` first, the fight's
        start when ``opening`` (:attr:`opens`), what happened, then who moves next with
        their options; at the fight's end, instead, the ledger anchor its closing row made
        (``ledger #4123 9f2c1a7e4305b5ca``). In at most ``room`` bytes what it says and
        quotes (names, a ransom, a ruling's reason) is cut to fit, the options or the
        anchor never; ``line(None)`` is the whole line."""
        ended = state.outcome is not None
        tail = (str(anchor) if anchor else "") if ended else self.prompt(state, manual, cast)

        def say(most: int | None) -> str:
            who = cast.cut(most)
            return join(head if isinstance(head, str) else head(most),
                        self.opens(state, who) if opening else "",
                        self.describe(quoting(events, most), who, awarded))

        def line(room: int | None) -> str:
            return join(say(None), tail) if room is None else fitted(say, tail, room)
        return line

    def undo_line(self, before: Sequence[C], keep: int, names: Sequence[str],
                  reason: str) -> str:
        """``Undone: Olaf's attack and its roll (misclick).``: an undo that kept ``keep``
        of the commands ``before`` it (the decision it took back, then that one's rolls)."""
        rolls = len(before) - keep - 1
        tail = {0: "", 1: " and its roll"}.get(rolls, f" and its {rolls} rolls")
        return f"Undone: {self.undone(before[keep], names)}{tail} ({reason})."


def fixed(name: str, summary: str, make: Callable[[int], C], detail: str = "") -> Verb[C]:
    """A verb without arguments (any given are ignored, as they always were)."""
    return Verb(name, summary, lambda side, _args: make(side), detail=detail)


def verbs(*listed: Verb[C]) -> dict[str, Verb[C]]:
    """Verbs by name, in the order listed."""
    return {verb.name: verb for verb in listed}


def help_lines(plugins: Iterable[Plugin[Any, Any]]) -> dict[str, tuple[str, str]]:
    """``(usage, summary)`` per chat verb name across ``plugins``: a verb several systems
    share has the first one's summary, with each system's detail in brackets (``Attack
    (An Cath: a roll against your weapon skill; General rules: a d20 Test).``)."""
    found: dict[str, list[tuple[Plugin[Any, Any], Verb[Any]]]] = {}
    for plugin in plugins:
        for verb in plugin.verbs.values():
            if verb.chat:
                found.setdefault(verb.name, []).append((plugin, verb))
    lines = {}
    for name, pairs in found.items():
        first = pairs[0][1]
        details = "; ".join(f"{p.label}: {v.detail}" for p, v in pairs if v.detail)
        summary = f"{first.summary} ({details})." if details else f"{first.summary}."
        lines[name] = (first.usage or f"!{name}", summary)
    return lines
