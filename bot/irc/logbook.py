"""What the log says of the IRC session's news (bot/irc/events.py): registration, each
channel joined, refused or lost, capabilities refused, the SASL result, and a line the
session failed on. Each is one line naming what to do where the operator can act."""

from __future__ import annotations

import logging

from bot.config import IrcConfig
from bot.irc.events import (
    Action,
    CapsRefused,
    Joined,
    JoinRefused,
    Kicked,
    Left,
    LoggedIn,
    Registered,
    SaslFailed,
    SaslNoPassword,
    SaslUnavailable,
    Unreadable,
)

__all__ = ["note"]

log = logging.getLogger("ancath.irc")


def note(action: Action, config: IrcConfig) -> None:
    """Log ``action`` if the log says anything of it."""
    match action:
        case Registered(nick):
            log.info("registered as %s", nick)
        case Joined(channel):
            log.info("joined %s", channel)
        case JoinRefused(channel, why, numeric, reason) if why == reason[:80]:
            log.warning("cannot join %s: %s (%s)", channel, reason, numeric)
        case JoinRefused(channel, why, numeric, reason):
            log.warning("cannot join %s: %s (%s %s)", channel, why, numeric, reason)
        case Left(channel):
            log.warning("left %s", channel)
        case Kicked(channel, by, reason):
            log.warning("kicked from %s by %s: %s", channel, by, reason)
        case Unreadable(command, error):
            log.warning("ignored a %s line the session failed on (%s)", command or "blank",
                        error)
        case CapsRefused(caps):
            log.warning("capabilities refused: %s", caps)
        case SaslUnavailable(mechanism, offered, quits, caps):
            log.log(logging.ERROR if quits else logging.WARNING,
                    "SASL %s is configured but %s %s: %s", mechanism, config.server,
                    f"offers only {offered}" if offered else "does not offer SASL"
                    if caps else "offers no capabilities (no answer to CAP LS), so no SASL",
                    "quitting, to try again later (set irc.sasl_mechanism to one it "
                    "offers, or irc.sasl_required: false to go on without SASL)" if quits
                    else "going on without SASL (irc.sasl_required: false)")
        case SaslNoPassword():
            log.error("SASL: the environment variable %s is empty", config.sasl_password_env)
        case LoggedIn():
            log.info("SASL: logged in as %s", config.sasl_account or "the certificate's account")
        case SaslFailed(reason) if config.sasl() == "EXTERNAL":
            log.error("SASL EXTERNAL failed (%s): is the fingerprint of %s registered "
                      "with services?", reason, config.tls_client_cert)
        case SaslFailed(reason):
            log.error("SASL login as %s failed (%s): check the account and $%s",
                      config.sasl_account, reason, config.sasl_password_env)
