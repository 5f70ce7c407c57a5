"""The referee: routes each chat line to its command, turns every refusal into one
short reply (:mod:`bot.error_replies`), and never lets an exception reach the channel.

``handle`` and ``tick`` are synchronous and return the lines to send; transports own
the sending. Built by :func:`bot.app.build_referee` from the configuration, with the
commands it answers. A command gets the line and the referee's :class:`Services` (the
dice and the commands; the club's settings: :mod:`bot.club_settings`; who is who:
:mod:`bot.identity`; the channels' tables: :mod:`bot.channel_fights`), never the referee.
Once the records are lost (:mod:`bot.lost_records`) it takes no more commands.

Several processes may referee on one club database: one per network (``network:``), or
one network's channels split between them (``irc.channels``). A referee resumes
(:mod:`bot.resuming`) and answers only its own network's channels, and only those listed
when there is a list (:meth:`Referee.serves`).
"""

from __future__ import annotations

from contextlib import nullcontext

from bot import resuming
from bot.channel_fights import ChannelFights
from bot.chat.units import command_unit
from bot.clock import Clock
from bot.club_settings import ClubSettings
from bot.commands.registry import Ctx, Registry, Services, Spec, split_command
from bot.config import BotConfig
from bot.dice import DiceSource
from bot.error_replies import one_reply
from bot.fights import play, time_limits
from bot.identity.identity import Identity
from bot.lost_records import LostRecords
from bot.messages import Incoming, Outgoing
from bot.odds.pending import OddsRequests
from bot.refusals import WritesAfterAll
from storage.errors import RecordsLost
from storage.store import Store

__all__ = ["Referee"]


class Referee:
    def __init__(self, config: BotConfig, store: Store, dice: DiceSource, clock: Clock,
                 commands: Registry) -> None:
        self.config, self.store = config, store
        tables = ChannelFights()
        settings = ClubSettings(config, store, tables)
        self.services = Services(config, store, dice, clock, tables, settings,
                                 Identity(config, settings), OddsRequests(), commands)
        """What every command gets (:class:`bot.commands.registry.Services`): set anew to
        change the dice or the commands."""
        self.tables, self.settings, self.identity = tables, settings, self.services.identity
        self.odds = self.services.odds
        self.channels: list[str] = list(config.irc.channels) if config.irc else []
        """The channels the bot serves (for lines every channel must hear)."""
        self.records = LostRecords(self.channels)
        """Whether the records are lost, and whom to tell (:mod:`bot.lost_records`)."""
        self._served: tuple[str, frozenset[str]] = ("", frozenset())
        """The casemapping and ``channels`` folded by it (:meth:`serves`)."""
        self._freed: tuple[Incoming, tuple[str, list[str]], Spec | None] | None = None
        """The line :meth:`storage_free` last passed, read: :meth:`handle` with
        ``current`` reads it no more (both run on the event loop, one after the other)."""

    @property
    def lost(self) -> str | None:
        """Why the records are lost, once they are."""
        return self.records.why

    @property
    def unwritable(self) -> bool:
        """The records were lost because they cannot be written: the database is left
        untouched at the stop (:func:`bot.app.stop_referee`)."""
        return self.records.unwritable

    @property
    def casemapping(self) -> str:
        """How the network folds nicks, channels and accounts (ISUPPORT CASEMAPPING);
        the transport sets it, and what is kept by nick or channel is folded again."""
        return self.tables.casemapping

    @casemapping.setter
    def casemapping(self, name: str) -> None:
        self.tables.remap(name)
        self.records.heard.remap(name)
        self.identity.remap(name)

    def resume(self) -> list[str]:
        """Take up what the records hold open here (:func:`bot.resuming.resume`)."""
        return resuming.resume(self.services, self.serves)

    def serves(self, channel: str) -> bool:
        """Whether ``channel`` is this referee's: any channel of its network when the
        config lists none, else a listed one (another process serves the rest)."""
        if not self.channels:
            return True
        casemapping = self.identity.casemapping
        if self._served[0] != casemapping:
            self._served = casemapping, frozenset(map(self.identity.fold, self.channels))
        return self.identity.fold(channel) in self._served[1]

    def writes(self, msg: Incoming) -> bool:
        """Whether the command in ``msg`` may write the records or change a fight: a
        transport runs those one after another (:mod:`bot.chat.lanes`), the rest beside."""
        parsed = split_command(msg.text, self.config.command_prefix)
        spec = self.services.commands.get(parsed[0]) if parsed is not None else None
        if parsed is None or spec is None:
            return False
        if spec.name == "roll":
            return play.fight_roll(self.services, msg, parsed[1])
        if spec.writes is not None:   # a group's sub-command (``!mod``)
            return spec.writes(parsed[1])
        return not spec.reads_only

    def handle(self, msg: Incoming, writes: bool | None = None,
               current: bool = False) -> list[Outgoing]:
        """The lines to send in answer to one chat line (none for chatter, none to
        someone ignored, none in a channel another process serves, and none at all once
        the records are lost). ``writes`` is the lane the transport chose (:meth:`writes`
        when it queued the line): a line taken for a reader that writes after all raises
        :class:`WritesAfterAll` and does nothing, for the transport to queue it again on
        the records lane; with no ``writes`` (the console, tests) the referee picks, and
        runs such a line again as a writer at once. A command first brings the club's
        settings up to date (:meth:`ClubSettings.refresh`), a writer inside its unit of
        work, and only then reads the ignore list: the one place it is read for a line
        (the transport reads it only for a line it drops, bot/irc/admission.py).
        ``current``: :meth:`storage_free` just passed the line, so it is a reader and the
        settings are not read again, only the records' files checked as every
        transaction checks them (``Store.usable``: a stat, no read of the database)."""
        if current and self.lost is None:   # storage_free saw it served here
            return self._answer(msg, False, current=True)
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

    def storage_free(self, msg: Incoming) -> bool:
        """Whether ``msg`` can be answered at once, on the event loop, by :meth:`handle`
        with ``current``: a command that needs nothing from storage (``!roll`` that is
        no fight roll, ``!help``, the refusal of an unknown command), while the club's
        settings kept here are known, without waiting, to be the club's as committed
        now (:meth:`ClubSettings.current`), so the ignore list is as the newest row says
        whichever process wrote it. Reads nothing that may wait."""
        if self.lost is not None or (msg.channel is not None and not self.serves(msg.channel)):
            return False
        parsed = split_command(msg.text, self.config.command_prefix)
        if parsed is None:
            return False
        spec = self.services.commands.get(parsed[0])
        if spec is None:
            free = parsed[0].isalpha()
        else:
            free = spec.name == "help" or (
                spec.name == "roll" and not play.fight_roll(self.services, msg, parsed[1]))
        self._freed = (msg, parsed, spec) if free else None
        return free and self.settings.current()

    def _answer(self, msg: Incoming, writes: bool, current: bool = False) -> list[Outgoing]:
        """:meth:`handle`'s work, on the lane ``writes`` says."""
        freed = self._freed if current else None
        parsed: tuple[str, list[str]] | None
        if freed is not None and freed[0] is msg:
            _msg, parsed, spec = freed
        else:
            parsed = split_command(msg.text, self.config.command_prefix)
            spec = self.services.commands.get(parsed[0]) if parsed is not None else None
        if parsed is None or (spec is None and not parsed[0].isalpha()):
            if not self.identity.is_ignored(msg.sender):   # chatter: as the list was last read
                self._saw(msg)
            return []
        ctx = Ctx(self.services, msg, parsed[0], parsed[1], writes=writes)
        try:
            with one_reply(ctx), command_unit(ctx) if writes else nullcontext():
                if current:
                    self.store.usable()
                else:   # a writer reads, checks and writes in one transaction
                    self.settings.refresh()
                if self.identity.is_ignored(msg.sender):
                    return []
                self._saw(msg)
                if spec is None:
                    ctx.reply(f"I don't know !{ctx.name}; !help lists the commands")
                else:
                    spec.run(ctx)
        except RecordsLost as error:
            return self.records.lose(error, msg.channel)
        return ctx.out

    def _saw(self, msg: Incoming) -> None:
        """Who is behind the nick, and the channel, as a line shows them."""
        self.identity.people.saw(msg.sender.nick, msg.sender.identity)
        self.records.saw(msg)

    def tick(self) -> list[Outgoing]:
        """Time-limit warnings and lapsed challenges; call about once a second."""
        if self.lost is not None:
            return []
        try:
            return time_limits.tick(self.services)
        except RecordsLost as error:   # a lapsed challenge found the records gone
            return self.records.lose(error, None)
