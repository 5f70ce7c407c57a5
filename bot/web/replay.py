"""A fight's replay, step by step, as the referee said it in the channel: rebuilt from
its setup and every stored command through its rules system, and worded by the bot's
own plugin (``Plugin.answer``, ``Plugin.undo_line``), never read from a copy of the chat.

A step is what the channel heard as one line: a player's or moderator's command with the
rolls the bot made for it in the same transaction (the start with its initiative rolls
is step 0), or a moderator's undo. The commands an undo took back stay in the list,
marked with the undo that took them back (its moderator and reason); a moderator's end
is marked with its reason. The BP a line says are the ledger's (the awards as added,
R2.6), and a fight's last line ends with the anchor its closing ledger row made.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.identity.people import People
from bot.systems.plugin import Plugin
from bot.systems.registry import PLUGINS
from bot.web.glance import Glance, glance
from bot.web.redact import hide_hosts, who
from bot.wording.common import Award, Cast, ruled
from rules.common import Forfeit, ModeratorEnd, Roll
from rules.effects import BPChange
from storage.fight_rebuild import UNDO
from storage.ledger import Anchor
from storage.models import Entry
from storage.records import FightSummary, LedgerEntry, LoggedCommand

__all__ = ["Replay", "Ruling", "Sent", "Step", "replay"]

BOT = "bot"
"""The actor of a roll the bot made."""


@dataclass(frozen=True, slots=True)
class Sent:
    """One stored command: who sent it and its words (``!attack``, ``roll 20 (d100)``)."""

    who: str
    words: str


@dataclass(frozen=True, slots=True)
class Ruling:
    """A moderator's undo or end: who, why, and at which step."""

    what: str
    """``undo`` or ``end``."""
    moderator: str
    reason: str
    step: int


@dataclass(slots=True)
class Step:
    """One line of the fight as the channel heard it, and the state after it."""

    number: int
    at: str
    line: str
    sent: tuple[Sent, ...]
    state: Glance
    after: Any = None
    """The rules state after it (what the win chances are worked out from)."""
    ruling: Ruling | None = None
    """This step is a moderator's undo or end."""
    undone_by: Ruling | None = None
    """A later undo took this step back."""


@dataclass(frozen=True, slots=True)
class Replay:
    """A fight's steps, in the order they were said."""

    steps: list[Step]
    problem: str | None = None
    """Why the replay stopped before the end (a command the rules refuse now)."""


def _groups(log: Sequence[LoggedCommand], started: str) -> list[list[LoggedCommand]]:
    """The rows as the lines they were said in: a command, then the bot's rolls written
    with it (the same moment); the first group, maybe empty, is the start's rolls."""
    groups: list[list[LoggedCommand]] = [[]]
    at = started
    for row in log:
        if row.actor == BOT and row.at == at and row.data.get("type") != UNDO:
            groups[-1].append(row)
        else:
            groups.append([row])
            at = row.at
    return groups


def _words(plugin: Plugin[Any, Any], command: Any, names: Sequence[str],
           die: int | None) -> str:
    """How a stored command is written in the list of what was sent."""
    if isinstance(command, Roll):
        return f"roll {command.value}" + (f" (d{die})" if die else "")
    if isinstance(command, ModeratorEnd):
        winner = "draw" if command.winner is None else names[command.winner]
        return f"!mod end {winner} {hide_hosts(command.reason)}"
    if isinstance(command, Forfeit):
        return "!claim"
    return hide_hosts(plugin.word(command))


class _Walk:
    """The replay under way: the effective commands and the state after each."""

    def __init__(self, summary: FightSummary, ledger: Sequence[LedgerEntry]) -> None:
        self.plugin: Plugin[Any, Any] = PLUGINS[summary.system]
        system = self.plugin.system
        people = People()
        self.names = summary.names
        self.cast = Cast(summary.names, tuple(people.label(name, account) for name, account
                                              in zip(summary.names, summary.accounts,
                                                     strict=True)))
        sheets = tuple(system.codec.decode(sheet) for sheet in summary.setup["sheets"])
        self.state, self.start = system.start(summary.kind, sheets)
        self.states = [self.state]
        self.commands: list[Any] = []
        self.owners: list[int] = []
        """The step each effective command belongs to."""
        self.awards = deque(r for r in ledger if r["entry"] is Entry.AWARD)
        self.closes = deque(r for r in ledger if r["entry"] is Entry.FIGHT_CLOSED)
        self.steps: list[Step] = []

    def _manual(self) -> bool:
        awaiting = self.state.awaiting
        return awaiting is not None and bool(awaiting.is_roll)

    def _awarded(self, events: Sequence[Any]) -> list[Award] | None:
        """The BP the ledger added for ``events`` (None: as the events asked)."""
        asked = [e for e in self.plugin.system.ledger_effects(events)
                 if isinstance(e, BPChange)]
        if len(asked) > len(self.awards):
            return None
        rows = [self.awards.popleft() for _ in asked]
        return [Award(e.side, round(r["bp"] * 10), e.tenths, e.reason)
                for e, r in zip(asked, rows, strict=True)]

    def commands_of(self, rows: Sequence[LoggedCommand], events: list[Any], at: str) -> None:
        """Apply a group's commands (a player's or a moderator's end, then the bot's
        rolls) after ``events`` (the start's, for step 0)."""
        number = len(self.steps)
        sent = []
        ruling = None
        for row in rows:
            command = self.plugin.system.codec.decode(row.data)
            awaiting = self.state.awaiting
            die = awaiting.die if awaiting is not None and awaiting.is_roll else None
            sent.append(Sent(BOT if row.actor == BOT else who(row.actor),
                             _words(self.plugin, command, self.names, die)))
            if isinstance(command, ModeratorEnd):
                ruling = Ruling("end", who(row.actor), hide_hosts(command.reason), number)
            self.state, said = self.plugin.system.apply(self.state, command)
            events += said
            self.commands.append(command)
            self.owners.append(number)
            self.states.append(self.state)
        anchor = None
        if self.state.outcome is not None and self.closes:
            closing = self.closes.popleft()
            anchor = Anchor(closing["id"], closing["hash"])
        head = ruled(ruling.moderator, ruling.reason, None) if ruling else ""   # as said
        line = self.plugin.answer(events, self.state, self._manual(), self.cast,
                                  self._awarded(events), anchor, head, not self.steps)
        self.steps.append(Step(number, at, hide_hosts(line), tuple(sent),
                               glance(self.plugin, self.state, self.cast), self.state,
                               ruling))

    def undo(self, row: LoggedCommand) -> None:
        """A moderator's undo: back to the state after the commands it kept."""
        keep, reason = int(row.data["keep"]), str(row.data.get("reason", ""))
        ruling = Ruling("undo", who(row.actor), hide_hosts(reason), len(self.steps))
        line = self.plugin.undo_line(self.commands, keep, self.names, reason)
        for owner in set(self.owners[keep:]):
            self.steps[owner].undone_by = ruling
        del self.commands[keep:], self.owners[keep:], self.states[keep + 1:]
        self.state = self.states[-1]
        line += " " + self.plugin.prompt(self.state, self._manual(), self.cast)
        self.steps.append(Step(ruling.step, row.at, hide_hosts(line.strip()),
                               (Sent(ruling.moderator, f"!mod undo {ruling.reason}"),),
                               glance(self.plugin, self.state, self.cast), self.state,
                               ruling))


def replay(summary: FightSummary, log: Sequence[LoggedCommand],
           ledger: Sequence[LedgerEntry]) -> Replay:
    """Fight ``summary`` replayed from its whole command ``log`` (undo records included)
    with its ledger rows (oldest first) for the BP and anchors said."""
    groups = _groups(log, summary.started_at)
    steps: list[Step] = []
    try:
        walk = _Walk(summary, ledger)
        steps = walk.steps
        walk.commands_of(groups[0], list(walk.start), summary.started_at)
        for rows in groups[1:]:
            if rows[0].data.get("type") == UNDO:
                walk.undo(rows[0])
            else:
                walk.commands_of(rows, [], rows[0].at)
    except Exception as error:   # a stored command the rules refuse now: said, not fatal
        return Replay(steps, f"the replay stops at step {len(steps)}: "
                             f"{hide_hosts(str(error))}")
    return Replay(steps)
