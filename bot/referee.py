"""The referee: routes each chat line to its command, turns every refusal into one
short reply, and never lets an exception reach the channel.

``handle`` and ``tick`` are synchronous and return the lines to send; transports own
the sending. Built by :func:`bot.app.build_referee` from the configuration, with the
commands it answers. A command gets the line and the referee's :class:`Services` (the
club's settings: :mod:`bot.club_settings`; who is who: :mod:`bot.identity`; the
channels' tables: :mod:`bot.fights.table`), never the referee.

Several processes may referee on one club database: one per network (``network:``), or
one network's channels split between them (``irc.channels``). A referee resumes
(:mod:`bot.resuming`) and answers only its own network's channels, and only those listed
when there is a list (:meth:`Referee.serves`).
"""

from __future__ import annotations

import logging
from contextlib import nullcontext
from dataclasses import replace

from bot import resuming
from bot.chat.messages import Incoming, Outgoing, Priority
from bot.chat.mod import MOD
from bot.chat.registry import Ctx, Registry, Services, split_command
from bot.chat.units import command_unit
from bot.clock import Clock
from bot.club_settings import ClubSettings
from bot.config import BotConfig
from bot.dice import DiceError, DiceExhausted, DiceSource
from bot.fights import play, time_limits
from bot.fights.table import Tables
from bot.identity import Identity
from bot.irc.casemap import Folded
from bot.odds.desk import Desk
from bot.refusals import Refusal, WritesAfterAll
from rules.errors import RulesError
from storage.errors import (
    CommitUnknown,
    DamagedRecord,
    DatabaseUnreachable,
    RecordsBusy,
    RecordsLost,
    RecordsUnwritable,
)
from storage.store import StorageError, Store

__all__ = ["Referee"]

log = logging.getLogger("ancath.referee")


class Referee:
    def __init__(self, config: BotConfig, store: Store, dice: DiceSource, clock: Clock,
                 commands: Registry) -> None:
        self.config, self.store = config, store
        tables = Tables()
        settings = ClubSettings(config, store, tables)
        self.services = Services(config, store, dice, clock, tables, settings,
                                 Identity(config, settings), Desk(), commands)
        """What every command gets (:class:`bot.chat.registry.Services`)."""
        self.tables, self.settings, self.identity = tables, settings, self.services.identity
        self.odds = self.services.odds
        self.channels: list[str] = list(config.irc.channels) if config.irc else []
        """The channels the bot serves (for lines every channel must hear)."""
        self.heard: Folded[str] = Folded()
        """Every channel a line came from (name -> name as first heard)."""
        self.lost: str | None = None
        """Why the records are lost (the database file went away), once they are."""
        self.unwritable = False
        """The records were lost because they cannot be written (``RecordsUnwritable``):
        the database is left untouched at the stop (:func:`bot.app.stop_referee`)."""

    @property
    def commands(self) -> Registry:
        """The commands this referee answers (set anew: every command gets them)."""
        return self.services.commands

    @commands.setter
    def commands(self, commands: Registry) -> None:
        self.services = replace(self.services, commands=commands)

    @property
    def dice(self) -> DiceSource:
        """The bot's dice (set anew, as a test or a benchmark does: every command gets
        them)."""
        return self.services.dice

    @dice.setter
    def dice(self, dice: DiceSource) -> None:
        self.services = replace(self.services, dice=dice)

    @property
    def casemapping(self) -> str:
        """How the network folds nicks, channels and accounts (ISUPPORT CASEMAPPING);
        the transport sets it, and what is kept by nick or channel is folded again."""
        return self.tables.casemapping

    @casemapping.setter
    def casemapping(self, name: str) -> None:
        self.tables.remap(name)
        self.heard.remap(name)
        self.identity.remap(name)

    def resume(self) -> list[str]:
        """Take up what the records hold open here (:func:`bot.resuming.resume`)."""
        return resuming.resume(self.services, self.serves)

    def serves(self, channel: str) -> bool:
        """Whether ``channel`` is this referee's: any channel of its network when the
        config lists none, else a listed one (another process serves the rest)."""
        fold = self.identity.fold
        return not self.channels or any(fold(c) == fold(channel) for c in self.channels)

    def writes(self, msg: Incoming) -> bool:
        """Whether the command in ``msg`` may write the records or change a fight: a
        transport runs those one after another (:mod:`bot.chat.lanes`), the rest beside."""
        parsed = split_command(msg.text, self.config.command_prefix)
        spec = self.commands.get(parsed[0]) if parsed is not None else None
        if parsed is None or spec is None:
            return False
        if spec.name == "roll":
            return play.fight_roll(self.services, msg, parsed[1])
        if spec.name == "mod":
            return MOD.writes(parsed[1])
        return not spec.reads_only

    def handle(self, msg: Incoming, writes: bool | None = None) -> list[Outgoing]:
        """The lines to send in answer to one chat line (none for chatter, none to
        someone ignored, none in a channel another process serves, and none at all once
        the records are lost). ``writes`` is the lane the transport chose (:meth:`writes`
        when it queued the line): a line taken for a reader that writes after all raises
        :class:`WritesAfterAll` and does nothing, for the transport to queue it again on
        the records lane; with no ``writes`` (the console, tests) the referee picks, and
        runs such a line again as a writer at once. A command first brings the club's
        settings up to date (:meth:`ClubSettings.refresh`), a writer inside its unit of
        work."""
        if self.lost is not None or (msg.channel is not None and not self.serves(msg.channel)):
            return []
        if writes is None:
            writes = self.writes(msg)
            if not writes:   # no lanes (the console, tests): a reader that writes after
                try:   # all runs again at once as a writer
                    return self._answer(msg, False)
                except WritesAfterAll:
                    writes = True
        elif not writes and self.writes(msg):
            raise WritesAfterAll(msg.text)
        return self._answer(msg, writes)

    def _answer(self, msg: Incoming, writes: bool) -> list[Outgoing]:
        """:meth:`handle`'s work, on the lane ``writes`` says."""
        parsed = split_command(msg.text, self.config.command_prefix)
        spec = self.commands.get(parsed[0]) if parsed is not None else None
        if parsed is None or (spec is None and not parsed[0].isalpha()):
            if not self.identity.is_ignored(msg.sender):   # chatter: as the list was last read
                self._saw(msg)
            return []
        name, args = parsed
        ctx = Ctx(self.services, msg, name, args, writes=writes)
        try:
            with command_unit(ctx) if writes else nullcontext():
                self.settings.refresh()   # a writer reads, checks and writes in one transaction
                if self.identity.is_ignored(msg.sender):
                    return []
                self._saw(msg)
                if spec is None:
                    ctx.reply(f"I don't know !{name}; !help lists the commands")
                else:
                    spec.run(ctx)
        except (DiceExhausted, WritesAfterAll):
            raise  # scripted dice ran out (a test or replay is wrong), or the wrong lane
        except RecordsLost as error:
            return self._records_lost(error, msg.channel)
        except DamagedRecord as error:   # refused, and said in the log as in the channel
            log.warning("command %r from %s: %s", name, msg.sender.identity, error)
            ctx.reply(str(error))
        except CommitUnknown as error:
            log.error("command %r from %s: its commit failed and may have been kept",
                      name, msg.sender.identity)
            ctx.reply(str(error))
        except (Refusal, RulesError, StorageError, DiceError) as error:
            ctx.reply(str(error))
        except Exception:
            hidden = name == "mod" and [a.lower() for a in args[:1]] == ["login"]
            said = "!mod login ..." if hidden else msg.text  # never log a password
            log.exception("command failed: %r from %s", said, msg.sender.identity)
            ctx.reply("that went wrong on my side and changed nothing; a moderator can "
                      "check the log")
        return ctx.out

    def _saw(self, msg: Incoming) -> None:
        """Who is behind the nick, and the channel, as a line shows them."""
        self.identity.people.saw(msg.sender.nick, msg.sender.identity)
        if msg.channel is not None:
            self.heard.setdefault(msg.channel, msg.channel)

    def refused_in_batch(self, msg: Incoming,
                         error: CommitUnknown | RecordsBusy | DatabaseUnreachable,
                         ) -> list[Outgoing]:
        """The answer to a command of a batch that is not run again
        (:mod:`bot.chat.records_lane`), as it would be alone: the batch's commit may or
        may not have been kept, or the batch waited out another process's lock."""
        return Ctx(self.services, msg, "", []).answer(str(error))

    def _records_lost(self, error: RecordsLost, channel: str | None) -> list[Outgoing]:
        """Stop taking commands, and say so once in every channel the bot serves: the
        records are gone, or cannot be written (``RecordsUnwritable``: the database is
        not touched again, since SQLite would die of SIGBUS on its mapped ``-shm``)."""
        self.lost = str(error)
        self.unwritable = isinstance(error, RecordsUnwritable)
        log.critical("the records %s, no more commands taken: %s",
                     "cannot be written" if self.unwritable else "are lost", error)
        channels: Folded[str] = Folded(self.casemapping)
        channels.update((c, c) for c in [*self.channels, *self.heard.values()])
        if channel is not None:
            channels.setdefault(channel, channel)
        line = ("The club's records are gone from disk: I take no more commands until a "
                "moderator restores them and restarts me; nothing since was kept.")
        if self.unwritable:
            line = ("The club's records cannot be written any more: I take no more commands "
                    "until they are made writable and I am restarted; nothing since was "
                    "kept.")
        return [Outgoing(c, line, Priority.FIGHT) for c in channels.values()]

    def tick(self) -> list[Outgoing]:
        """Time-limit warnings and lapsed challenges; call about once a second."""
        if self.lost is not None:
            return []
        try:
            return time_limits.tick(self.services)
        except RecordsLost as error:   # a lapsed challenge found the records gone
            return self._records_lost(error, None)
