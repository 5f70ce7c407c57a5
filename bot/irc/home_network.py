"""Whose names a network's bot writes as they are: the club's home network's; on any
other, its ``foreign_network`` name goes before each.

Accounts are a network's own, so one network is the club's home (``home_network:``,
else the first an IRC bot starts on, ``storage.club.Club.home_network``); on any other,
unless its accounts are shared with the home (``irc.shared_accounts``), every name the
session hands on, and every name typed there, carries the network's (``oftc:alice``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from bot.config import ConfigError, IrcConfig

if TYPE_CHECKING:
    from bot.referee import Referee

__all__ = ["foreign_network"]

log = logging.getLogger("ancath.irc")


def foreign_network(referee: Referee, config: IrcConfig) -> str | None:
    """This network's name when another is the club's home and its accounts are not
    shared with it, else None; the home is claimed when the club has none. A config
    naming another home than the club's is a ``ConfigError`` naming the fix."""
    network, named = referee.config.network, referee.config.home_network
    home = referee.store.home_network(named or network)
    if named is not None and home != named:
        raise ConfigError(f"home_network: {named}, but the club's home network is {home}: "
                          "give every process the same home_network, or make "
                          f"{named} the home with 'ancath-bot db home-network {named}'")
    if home == network or config.shared_accounts:
        return None
    log.warning("network %s is not the club's home network (%s): its players are named "
                "%s:<account> and own none of %s's warriors; if this is the club's only "
                "network, see 'ancath-bot db home-network'", network, home, network, home)
    return network
