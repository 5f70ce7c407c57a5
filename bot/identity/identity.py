"""Who is who: the moderators (by the config file, by ``!mod add``, by a password login),
how a ruling names its moderator in the records, the names typed in chat as the club
writes them, the ignore list, and the people behind the nicks (for naming only, never
for rights: R8.2). Names are compared by the network's casemapping."""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.casemap import DEFAULT, fold, fold_mask, glob_match
from bot.club_settings import ClubSettings
from bot.config import NETWORK, BotConfig
from bot.identity.logins import Logins
from bot.identity.people import People
from bot.messages import Sender

__all__ = ["Identity"]

_NETWORK_NAMED = re.compile(f"{NETWORK}:")
"""A name typed with its network before it (``oftc:bob``), as the club writes them."""


class Identity:
    """Moderators, names and the ignore list of one referee."""

    def __init__(self, config: BotConfig, settings: ClubSettings) -> None:
        self.config, self.settings = config, settings
        self.casemapping = DEFAULT
        """How the network folds nicks and accounts (:meth:`remap`)."""
        self.people = People()
        """Who is behind which nick: for naming people in the channel, never for rights."""
        self.logins = Logins()
        """Moderators logged in by password (R8.2)."""
        self.shares_channel: Callable[[str], bool] | None = None
        """Whether the bot shares a channel with a nick now (the IRC transport sets it):
        a password login needs one, since only there the bot sees the nick quit or
        change. None (the console): no such check."""
        self.foreign_network: str | None = None
        """This network's name when it is not the club's home network (the transport
        sets it): the names it hands over carry it (``oftc:alice``), and so do the
        names typed here (:meth:`club_name`)."""

    def remap(self, casemapping: str) -> None:
        """The network's casemapping, told by the transport: what is kept by nick is
        folded again."""
        self.casemapping = casemapping
        self.people.remap(casemapping)
        self.logins.remap(casemapping)

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
            (name for name in self.settings.chat_moderators if self.names(sender, name)),
            None)

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
               for name in [*self.config.moderators, *self.settings.chat_moderators]):
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
        network = self.foreign_network
        return f"{network}:{typed}" if network and not named else typed

    def is_ignored(self, sender: Sender) -> bool:
        """Whether the bot takes nothing from ``sender``; a moderator never is ignored."""
        return any(self._ignores(entry, sender) for entry in self.settings.ignore_list()) \
            and not self.is_moderator(sender)

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
