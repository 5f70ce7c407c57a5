"""The referee: routes each chat line to its command, turns every refusal into one
short reply, and never lets an exception reach the channel.

``handle`` and ``tick`` are synchronous and return the lines to send; transports own
the sending. Built by :func:`bot.app.build_referee` from the configuration.

Several processes may referee on one club database: one per network (``network:``), or
one network's channels split between them (``irc.channels``). A referee resumes and
answers only its own network's channels, and only those listed when there is a list
(:meth:`Referee.serves`). The settings and the moderators named in chat are every
process's: a referee keeps them (:class:`storage.records.ClubState`) and, at each
command, reads the club's version, one row, and reads them all again when it moved
(:meth:`Referee.refresh`), so a change made in one process counts in every other from
its next command.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from types import ModuleType
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from bot.chat import basics, history, mod, warriors
from bot.chat.messages import Incoming, Outgoing, Priority, Sender
from bot.chat.moderators import Logins
from bot.chat.people import People
from bot.chat.registry import Ctx, Refusal, Registry, Spec, WritesAfterAll, load, split_command
from bot.chat.units import Staged, command_unit
from bot.clock import Clock
from bot.config import NETWORK, BotConfig
from bot.dice import DiceError, DiceExhausted, DiceSource
from bot.fights import challenges, play, time_limits
from bot.fights.play import Table
from bot.irc.casemap import Folded, fold, fold_mask, glob_match
from bot.odds import advice
from bot.systems.plugin import Plugin
from bot.systems.registry import PLUGINS
from rules.errors import RulesError
from storage.club import VersionReader
from storage.errors import (
    CommitUnknown,
    DamagedRecord,
    DatabaseUnreachable,
    RecordsBusy,
    RecordsLost,
    RecordsUnwritable,
)
from storage.proof import UNCHECKED, Verdict
from storage.records import ClubState
from storage.store import StorageError, Store

__all__ = ["COMMAND_MODULES", "REGISTRY", "Referee", "commands_for"]

log = logging.getLogger("ancath.referee")
_NETWORK_NAMED = re.compile(f"{NETWORK}:")
"""A name typed with its network before it (``oftc:bob``), as the club writes them."""

COMMAND_MODULES = (basics, warriors, history, mod, challenges, play, time_limits, advice)
"""The modules whose commands the bot answers, in ``!help``'s order."""


def commands_for(plugins: Iterable[Plugin[Any, Any]]) -> Registry:
    """The bot's commands with the fight verbs of ``plugins`` (before ``!status``)."""
    modules: list[ModuleType | Iterable[Spec]] = list(COMMAND_MODULES)
    modules.insert(modules.index(play), play.verb_commands(plugins))
    return load(modules)


REGISTRY = commands_for(PLUGINS.values())

_CLUB = "club"
"""The one key of the referee's kept :class:`ClubState`."""


def _minutes(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool)
                             and math.isfinite(value) and value > 0)


_SETTING_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "ignored": (lambda v: isinstance(v, list) and all(isinstance(e, str) for e in v),
                "!mod ignore or !mod unignore"),
    "rolls": (lambda v: v in ("auto", "manual"), "!mod rolls auto|manual"),
    "timelimit": (_minutes, "!mod timelimit <minutes>|default"),
    "odds": (lambda v: v in ("everyone", "fighters"), "!mod odds fighters|everyone"),
    "fairy_folk_open": (lambda v: isinstance(v, bool), "!mod fairy open|close"),
}
"""What each setting the referee obeys may hold (by the part of its key before ``:``),
and the command that sets it again."""


class Referee:
    def __init__(self, config: BotConfig, store: Store, dice: DiceSource, clock: Clock,
                 commands: Registry = REGISTRY) -> None:
        self.config = config
        self.commands = commands
        """The commands this referee answers."""
        self.store = store
        self.dice = dice
        self.clock = clock
        self.tables: Staged[Table] = Staged()
        """The table of each channel, channels compared by the network's casemapping."""
        self._settings: Staged[ClubState] = Staged(exact=True)
        """The club's settings and chat-named moderators as last read (``_CLUB``); a
        writing command changes its own copy (:mod:`bot.chat.units`)."""
        self._settings[_CLUB] = ClubState(-1, {}, [])
        self._refreshing = threading.Lock()
        self._version = VersionReader(store)
        self.people = People()
        """Who is behind which nick: for naming people in the channel, never for rights."""
        self.logins = Logins()
        """Moderators logged in by password (R8.2)."""
        self.shares_channel: Callable[[str], bool] | None = None
        """Whether the bot shares a channel with a nick now (the IRC transport sets it):
        a password login needs one, since only there the bot sees the nick quit or
        change. None (the console): no such check."""
        self.realm: str | None = None
        """This network's name when it is not the club's home network (the transport
        sets it): the names it hands over carry it (``oftc:alice``), and so do the
        names typed here (:meth:`club_name`)."""
        self.channels: list[str] = list(config.irc.channels) if config.irc else []
        """The channels the bot serves (for lines every channel must hear)."""
        self.not_in: dict[str, str] = {}
        """The channels the bot serves but is not in, with why (``too many channels``,
        ``kicked by op``); the transport sets it, and ``!status`` tells a moderator."""
        self.heard: Folded[str] = Folded()
        """Every channel a line came from (name -> name as first heard)."""
        self.lost: str | None = None
        """Why the records are lost (the database file went away), once they are."""
        self.unwritable = False
        """The records were lost because they cannot be written (``RecordsUnwritable``):
        the database is left untouched at the stop (:func:`bot.app.stop_referee`)."""
        self._damaged: set[tuple[str, str]] = set()
        """The damaged settings logged (key, value), each said once (:meth:`setting`)."""
        self.ledger_check: Verdict = UNCHECKED
        """What the start's check of the ledger proved (:mod:`storage.proof`)."""
        self.later: Callable[[list[Outgoing]], None] = lambda _out: None
        """Where lines go that are ready after ``handle`` returned (work done off the
        event loop, such as ``!odds``); the transport sets it. It may be called from
        another thread."""

    @property
    def casemapping(self) -> str:
        """How the network folds nicks, channels and accounts (ISUPPORT CASEMAPPING);
        the transport sets it, and what is kept by nick or channel is folded again."""
        return self.tables.casemapping

    @casemapping.setter
    def casemapping(self, name: str) -> None:
        for folded in (self.tables, self.heard, self.people, self.logins):
            folded.remap(name)

    def resume(self) -> list[str]:
        """Take up the unfinished fights of the channels this referee serves from
        storage, and the club's settings and moderators; returns what failed to replay."""
        self.refresh()
        for channel, fight_id in self.store.latest_fights().items():
            if self.serves(channel):
                self.table(channel).last_fight_id = fight_id
        fights, problems = self.store.open_fights(self.serves)
        self._stuck({fight.id for fight in fights}, problems)
        for fight in fights:
            table = self.table(fight.channel)
            table.fight, table.last_fight_id = fight, fight.id
            try:
                play.resume_rolls(self, table)
            except StorageError as error:   # the fight still waits; a command retries
                log.error("fight %d in %s: its due rolls were not made: %s",
                          fight.id, fight.channel, error)
            play.restart_timer(self, table)   # the time to decide starts again (R7.4)
            advice.foresee(self, fight)   # its odds worked out ahead again, from here
        challenges.resume_challenges(self)
        for problem in problems:
            log.error("not resumed: %s", problem)
        log.info("resumed %d open fight%s", len(fights), "" if len(fights) == 1 else "s")
        return problems

    def _stuck(self, resumed: set[int], problems: list[str]) -> None:
        """Every open fight of the channels served that was not resumed (its records
        cannot be read, or its replay fails or disagrees) blocks its channel until a
        moderator ends it (:class:`bot.fights.play.Stuck`), and the log says so."""
        for fight_id, channel in self.store.active_fights(self.serves):
            if fight_id in resumed:
                continue
            said = next((p.split(": ", 1)[1] for p in problems
                         if p.startswith(f"fight {fight_id} in ")), "it cannot be replayed")
            table = self.table(channel)
            table.stuck, table.last_fight_id = play.Stuck(fight_id, said), fight_id
            log.error("fight %d in %s is not resumed (%s): the channel stays blocked until a "
                      "moderator ends it there (!mod end draw <reason>)", fight_id, channel, said)

    def resume_line(self, channel: str) -> Outgoing | None:
        """The one line a channel gets when the bot (re)joins it with a fight open (or
        with one that could not be taken up: :class:`bot.fights.play.Stuck`)."""
        table = self.tables.get(channel)
        if table is not None and table.stuck is not None:
            return Outgoing(table.channel, table.stuck.line, Priority.FIGHT)
        if table is None or table.fight is None:
            return None
        return play.resumed(self, table)

    def serves(self, channel: str) -> bool:
        """Whether ``channel`` is this referee's: any channel of its network when the
        config lists none, else a listed one (another process serves the rest)."""
        return not self.channels or any(self.fold(c) == self.fold(channel)
                                        for c in self.channels)

    def refresh(self) -> None:
        """The club's settings and chat-named moderators as committed, when another
        command (of any process) changed them since they were read: one read of the
        club's version, and all of them read again when it moved. :meth:`handle` calls
        it inside a writing command's unit of work, with the club's write lock held, so
        what the command checks no other process changes before it commits; there it
        reads on the unit's connection into the command's own copy, so it never waits
        for the reading lane (which may be slow while every process waits for the lock).
        Outside a unit a failed read keeps what was last read (logged): ``!roll`` and
        ``!help`` do not need the database."""
        if self.store.in_unit():
            self._refresh()
            return
        self.store.usable()   # the version is read beside any transaction: files first
        with self._refreshing:   # the reading lane and the transport's threads
            try:
                self._refresh()
            except (SQLAlchemyError, StorageError) as error:
                if not self.store.outage(error):   # an outage: logged once, by the store
                    log.warning("the club's settings were not read again (%s); kept as "
                                "last read", error)

    def _refresh(self) -> None:
        kept = self._settings[_CLUB]
        if self._version() != kept.version:
            self._settings[_CLUB] = self.store.club_state(self.fold)

    @property
    def chat_moderators(self) -> list[str]:
        """Moderators added with ``!mod add``, from the ledger (R8.2); none while the
        ledger failed its check at the start (a row deleted could be a removal: only the
        config file's moderators rule until it is mended)."""
        if self.ledger_check.state == "failed":
            return []
        return self._settings[_CLUB].moderators

    def set_moderator(self, name: str, added: bool, actor: str, reason: str) -> None:
        """Add ``name`` as a moderator, or remove them: a ledger row (R8.2)."""
        self.store.set_moderator(name, added, actor, reason)
        kept = self._settings[_CLUB]
        if added:
            kept.moderators.append(name)
        else:
            kept.moderators.remove(name)
        kept.version += 1   # as the store counts: stale only if another process wrote

    def table(self, channel: str) -> Table:
        try:
            return self.tables[channel]   # one look (``in`` then ``[]`` looked twice)
        except KeyError:
            self.tables[channel] = Table(channel)
            return self.tables[channel]

    def fold(self, name: str) -> str:
        """``name`` folded by the network's casemapping."""
        return fold(name, self.casemapping)

    def is_moderator(self, sender: Sender) -> bool:
        """By services account, exact host mask, or a password login, never by nick
        alone (R8.2)."""
        return self.moderator_name(sender) is not None

    def moderator_name(self, sender: Sender) -> str | None:
        """Which moderator sent this, if any, as the config file or ``!mod add`` names
        them: the account, the mask, or the name logged in by password from this nick
        and host (names compared by the network's casemapping)."""
        return self.file_moderator(sender) or next(
            (name for name in self.chat_moderators if self.names(sender, name)), None)

    def file_moderator(self, sender: Sender) -> str | None:
        """Which moderator of the config file sent this, if any."""
        mods = self.config.moderators
        found = next((name for name in mods if self.names(sender, name)), None)
        if found is not None:
            return found
        login = self.logins.name(sender.nick, sender.host)
        return next((name for name in mods if login is not None
                     and self.fold(name) == self.fold(login)), None)

    def recorded_as(self, sender: Sender) -> str:
        """Whom a moderator's rulings name in the records (ledger rows, undo records):
        a moderator logged in by password by the name they logged in as (``boss``, as
        the config file spells it), never by the ``user@host`` they came from; anyone
        else, or a moderator by services account or mask, by identity (R8.2)."""
        if any(self.names(sender, name)
               for name in [*self.config.moderators, *self.chat_moderators]):
            return sender.identity
        login = self.logins.name(sender.nick, sender.host)
        return next((name for name in self.config.moderators if login is not None
                     and self.fold(name) == self.fold(login)), sender.identity)

    @property
    def masks_count(self) -> bool:
        """Whether a ``nick!user@host`` mask may name a moderator: only where the operator
        says the network verifies idents (``irc.verified_idents``); never on the console."""
        return self.config.irc is not None and self.config.irc.verified_idents

    def names(self, sender: Sender, name: str) -> bool:
        """Whether ``name``, an account or a ``nick!user@host`` mask, is ``sender`` (a
        mask only when :attr:`masks_count`)."""
        if "!" in name:
            return self.masks_count and sender.mask is not None and \
                fold_mask(name, self.casemapping) == fold_mask(sender.mask, self.casemapping)
        return sender.account is not None and self.fold(name) == self.fold(sender.account)

    def club_name(self, typed: str) -> str:
        """An account, ``user@host`` or mask typed in chat, as the club writes it: on a
        network that is not the club's home, that network's (``bob`` typed on OFTC is
        ``oftc:bob``), unless it begins with a network's name (``libera:bob``; the
        ``:`` of an IPv6 host does not count)."""
        named = _NETWORK_NAMED.match(typed) is not None
        return f"{self.realm}:{typed}" if self.realm and not named else typed

    def ignore_list(self) -> list[str]:
        """Accounts and masks (``*`` and ``?`` allowed) the bot ignores (``!mod ignore``)."""
        return list(self.setting("ignored", []))

    def is_ignored(self, sender: Sender) -> bool:
        """Whether the bot takes nothing from ``sender``; a moderator never is ignored."""
        return any(self._ignores(entry, sender) for entry in self.ignore_list()) and \
            not self.is_moderator(sender)

    def _ignores(self, entry: str, sender: Sender) -> bool:
        if "!" in entry:
            return sender.mask is not None and glob_match(entry, sender.mask,
                                                          self.casemapping)
        if "@" in entry:   # user@host, as a network without accounts names a player
            return sender.host is not None and glob_match(entry, sender.host,
                                                          self.casemapping)
        return glob_match(entry, sender.account or sender.identity, self.casemapping)

    def new_session(self) -> None:
        """A new connection: nobody's nick, and nobody's login, is known any more."""
        self.people.clear()
        self.logins.clear()

    def renamed(self, old: str, new: str) -> None:
        """A nick change the transport saw."""
        self.people.renamed(old, new)
        self.logins.renamed(old, new)

    def gone(self, nick: str) -> None:
        """The nick quit, or left the last channel the bot shares with it."""
        self.people.gone(nick)
        self.logins.gone(nick)

    def setting(self, key: str, default: Any) -> Any:
        """A stored setting as of this command's :meth:`refresh`; one whose value the
        bot never writes there (damaged, or edited by hand: a time limit of ``"soon"``)
        is ``default``, and a WARNING says so once, with the command that sets it again."""
        value = self._settings[_CLUB].settings.get(key, default)
        check = _SETTING_CHECKS.get(key.split(":", 1)[0])
        if value is default or check is None or check[0](value):
            return value
        if (key, repr(value)) not in self._damaged:
            self._damaged.add((key, repr(value)))
            log.warning("setting %s holds %r, which the bot never writes there (damaged, "
                        "or edited by hand): it is skipped, the default used, until a "
                        "moderator sets it again (%s)", key, value, check[1])
        return default

    def set_setting(self, key: str, value: Any, actor: str, reason: str,
                    moderator: str | None = None) -> None:
        """Change a setting, with its ``setting-changed`` ledger row (``moderator``: who
        ruled it, when a moderator did)."""
        self.store.set_setting(key, value, actor, reason, moderator)
        kept = self._settings[_CLUB]
        kept.settings[key] = value
        kept.version += 1   # as the store counts: stale only if another process wrote

    def channel_setting(self, what: str, channel: str) -> str:
        """The key of a channel's setting (``rolls:libera:#duels``): by the network and
        the spelling of the channel's table, so every spelling the casemapping folds
        alike shares it."""
        return f"{what}:{self.config.network}:{self.table(channel).channel.casefold()}"

    def rolls_mode(self, channel: str) -> str:
        return str(self.setting(self.channel_setting("rolls", channel), self.config.rolls))

    def turn_seconds(self, channel: str) -> float:
        """The decision time limit in ``channel`` (R7.4): a moderator's, or the config's."""
        minutes = self.setting(self.channel_setting("timelimit", channel), None)
        return float(minutes if minutes is not None else self.config.turn_timeout_minutes) * 60

    def odds_for(self, channel: str) -> str:
        """Who may ask ``!odds`` in ``channel``: ``everyone`` or only the ``fighters``."""
        return str(self.setting(self.channel_setting("odds", channel), "everyone"))

    def fairy_open(self) -> bool:
        return bool(self.setting("fairy_folk_open", self.config.fairy_folk_open))

    def writes(self, msg: Incoming) -> bool:
        """Whether the command in ``msg`` may write the records or change a fight: a
        transport runs those one after another (:mod:`bot.chat.lanes`), the rest beside."""
        parsed = split_command(msg.text, self.config.command_prefix)
        spec = self.commands.get(parsed[0]) if parsed is not None else None
        if parsed is None or spec is None:
            return False
        if spec.name == "roll":
            return play.fight_roll(self, msg, parsed[1])
        if spec.name == "mod":
            return mod.MOD.writes(parsed[1])
        return not spec.reads_only

    def handle(self, msg: Incoming, writes: bool | None = None) -> list[Outgoing]:
        """The lines to send in answer to one chat line (none for chatter, none to
        someone ignored, none in a channel another process serves, and none at all once
        the records are lost). ``writes`` is the lane the transport chose (:meth:`writes`
        when it queued the line): a line taken for a reader that writes after all raises
        :class:`WritesAfterAll` and does nothing, for the transport to queue it again on
        the records lane; with no ``writes`` (the console, tests) the referee picks, and
        runs such a line again as a writer at once. A command first brings the club's
        settings up to date (:meth:`refresh`), a writer inside its unit of work."""
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
            if not self.is_ignored(msg.sender):   # chatter: as the list was last read
                self._saw(msg)
            return []
        name, args = parsed
        ctx = Ctx(self, msg, name, args, writes=writes)
        try:
            with command_unit(ctx) if writes else nullcontext():
                self.refresh()   # a writer reads, checks and writes in one transaction
                if self.is_ignored(msg.sender):
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
        self.people.saw(msg.sender.nick, msg.sender.identity)
        if msg.channel is not None:
            self.heard.setdefault(msg.channel, msg.channel)

    def refused_in_batch(self, msg: Incoming,
                         error: CommitUnknown | RecordsBusy | DatabaseUnreachable,
                         ) -> list[Outgoing]:
        """The answer to a command of a batch that is not run again
        (:mod:`bot.chat.records_lane`), as it would be alone: the batch's commit may or
        may not have been kept, or the batch waited out another process's lock."""
        ctx = Ctx(self, msg, "", [], writes=True)
        ctx.reply(str(error))
        return ctx.out

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
            return time_limits.tick(self)
        except RecordsLost as error:   # a lapsed challenge found the records gone
            return self._records_lost(error, None)

