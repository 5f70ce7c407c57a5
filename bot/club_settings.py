"""The club's settings and the moderators named in chat, as a referee last read them.

Several processes may referee on one club database; the settings and the chat-named
moderators are every process's. A process keeps them (:class:`storage.records.ClubState`)
and, at each command, reads the club's version, one row, and reads them all again when it
moved (:meth:`ClubSettings.refresh`), so a change made in one process counts in every
other from its next command.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from bot.casemap import fold
from bot.channel_fights import ChannelFight, ChannelFights
from bot.config import BotConfig
from bot.unit_copies import UnitCopies
from storage.club import VersionReader
from storage.proof import UNCHECKED, Verdict
from storage.records import ClubState
from storage.store import StorageError, Store

__all__ = ["ChannelRules", "ClubSettings"]

log = logging.getLogger("ancath.referee")

_CLUB = "club"
"""The one key of the kept :class:`ClubState`."""


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


@dataclass(frozen=True, slots=True)
class ChannelRules:
    """A channel's rules as one command reads them, once (:meth:`ClubSettings.rules_of`)."""

    rolls_auto: bool
    """The bot rolls every die the fight waits for (``!mod rolls auto``), else the
    fighters roll them (``!rol d100``)."""
    turn_seconds: float
    """The time to decide (R7.4)."""


class ClubSettings:
    """The settings (club-wide, and per channel by the spelling of its table) and the
    moderators named in chat, read again when the club's version moved."""

    def __init__(self, config: BotConfig, store: Store, tables: ChannelFights) -> None:
        self.config, self.store, self.tables = config, store, tables
        self.kept: UnitCopies[ClubState] = UnitCopies(exact=True)
        """The club's state as last read (one key); a writing command changes its own
        copy (:mod:`bot.chat.units`)."""
        self.kept[_CLUB] = ClubState(-1, {}, [])
        self._refreshing = threading.Lock()
        self._version = VersionReader(store)
        self._damaged: set[tuple[str, str]] = set()
        """The damaged settings logged (key, value), each said once (:meth:`setting`)."""
        self.ledger_check: Verdict = UNCHECKED
        """What the start's check of the ledger proved (:mod:`storage.proof`)."""

    def refresh(self) -> None:
        """The club's settings and chat-named moderators as committed, when another
        command (of any process) changed them since they were read: one read of the
        club's version, and all of them read again when it moved. The referee calls it
        inside a writing command's unit of work, with the club's write lock held, so
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

    def current(self) -> bool:
        """Whether what is kept is known, at once and without waiting for the database,
        to be the club's as committed now (``VersionReader.unchanged``: on SQLite, no
        other connection has committed since the version was last read): then a
        command that needs nothing else from storage may skip :meth:`refresh`. False
        when it cannot be told so (PostgreSQL, a read under way): refresh."""
        return self._version.unchanged(self.kept[_CLUB].version)

    def _refresh(self) -> None:
        if self._version() != self.kept[_CLUB].version:
            self.kept[_CLUB] = self.store.club_state(
                lambda name: fold(name, self.tables.casemapping))

    @property
    def chat_moderators(self) -> list[str]:
        """Moderators added with ``!mod add``, from the ledger (R8.2); none while the
        ledger failed its check at the start (a row deleted could be a removal: only the
        config file's moderators rule until it is mended)."""
        if self.ledger_check.state == "failed":
            return []
        return self.kept[_CLUB].moderators

    def set_moderator(self, name: str, added: bool, actor: str, reason: str) -> None:
        """Add ``name`` as a moderator, or remove them: a ledger row (R8.2)."""
        self.store.set_moderator(name, added, actor, reason)
        kept = self.kept[_CLUB]
        if added:
            kept.moderators.append(name)
        else:
            kept.moderators.remove(name)
        kept.version += 1   # as the store counts: stale only if another process wrote

    def setting(self, key: str, default: Any) -> Any:
        """A stored setting as of this command's :meth:`refresh`; one whose value the
        bot never writes there (damaged, or edited by hand: a time limit of ``"soon"``)
        is ``default``, and a WARNING says so once, with the command that sets it again."""
        value = self.kept[_CLUB].settings.get(key, default)
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
        kept = self.kept[_CLUB]
        kept.settings[key] = value
        kept.version += 1   # as the store counts: stale only if another process wrote

    def channel_setting(self, what: str, channel: str) -> str:
        """The key of a channel's setting (``rolls:libera:#duels``): by the network and
        the spelling of the channel's table, so every spelling the casemapping folds
        alike shares it."""
        return self._key(what, self.tables.table(channel))

    def _key(self, what: str, table: ChannelFight) -> str:
        return f"{what}:{self.config.network}:{table.channel.casefold()}"

    def ignore_list(self) -> list[str]:
        """Accounts and masks (``*`` and ``?`` allowed) the bot ignores (``!mod ignore``)."""
        return list(self.setting("ignored", []))

    def rolls_mode(self, channel: str) -> str:
        return self._rolls(self.channel_setting("rolls", channel))

    def turn_seconds(self, channel: str) -> float:
        """The decision time limit in ``channel`` (R7.4): a moderator's, or the config's."""
        return self._seconds(self.channel_setting("timelimit", channel))

    def rules_of(self, table: ChannelFight) -> ChannelRules:
        """The rules of ``table``'s channel, read once for a command: how its dice are
        rolled and its time to decide (as :meth:`rolls_mode` and :meth:`turn_seconds`)."""
        return ChannelRules(self._rolls(self._key("rolls", table)) == "auto",
                            self._seconds(self._key("timelimit", table)))

    def _rolls(self, key: str) -> str:
        return str(self.setting(key, self.config.rolls))

    def _seconds(self, key: str) -> float:
        minutes = self.setting(key, None)
        return float(minutes if minutes is not None else self.config.turn_timeout_minutes) * 60

    def odds_for(self, channel: str) -> str:
        """Who may ask ``!odds`` in ``channel``: ``everyone`` or only the ``fighters``."""
        return str(self.setting(self.channel_setting("odds", channel), "everyone"))

    def fairy_open(self) -> bool:
        return bool(self.setting("fairy_folk_open", self.config.fairy_folk_open))
