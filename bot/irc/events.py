"""What the IRC session (bot/irc/session.py) asks of its transport: lines to send and
events to act on, all frozen values.

``Send`` is the one action that writes; the transport sends it straight out while
registering (and a PONG always) and through the paced outbox after. Every other value
is news for the transport to log or to pass on to the referee: ``Message`` and
``CtcpRequest`` are what people say to the bot.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.irc.line import Line
from bot.messages import Sender

__all__ = ["Action", "CapsRefused", "Casemapping", "CtcpRequest", "Farewell", "Gone",
           "JoinRefused", "Joined", "Kicked", "Left", "LoggedIn", "Message", "Prefix",
           "Registered", "Renamed", "SaslFailed", "SaslNoPassword", "SaslUnavailable",
           "Seen", "Send", "Unreadable", "WhoDone"]


@dataclass(frozen=True, slots=True)
class Send:
    line: Line
    """Written as ``line.format()`` only where it goes on the socket."""
    in_turn: bool = False
    """Paced in turn with fight output (a WHO), not ahead of it like protocol lines."""
    at_once: bool = False
    """Written now, around the pacing: a PONG, for the server waits for it."""


@dataclass(frozen=True, slots=True)
class Message:
    """A PRIVMSG (its text outside any CTCP part): ``sender`` says who by the line's
    own ``account`` tag; ``channel`` is the joined channel as the bot spells it, None
    for a private message."""

    sender: Sender
    target: str
    text: str
    channel: str | None
    tags: dict[str, str | None] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CtcpRequest:
    """A CTCP request other than ACTION (``\x01VERSION\x01``) with the NOTICE text that
    answers it, None when the bot does not; the transport paces it per sender."""

    sender: Sender
    command: str
    answer: str | None


@dataclass(frozen=True, slots=True)
class Registered:
    """The server's welcome (001): the bot is on the network as ``nick``."""

    nick: str


@dataclass(frozen=True, slots=True)
class CapsRefused:
    caps: str


@dataclass(frozen=True, slots=True)
class SaslUnavailable:
    """SASL is configured but not tried: the server offers no SASL (``offered`` None)
    or lists only other mechanisms (``offered``, as it lists them)."""

    mechanism: str
    offered: str | None
    quits: bool
    """The bot quits (``irc.sasl_required``) rather than register without it."""
    caps: bool = True
    """False: the server welcomed the bot with no answer to ``CAP LS`` (no capabilities,
    so no SASL)."""


@dataclass(frozen=True, slots=True)
class SaslNoPassword:
    """SASL PLAIN is configured without a password: the login is aborted."""


@dataclass(frozen=True, slots=True)
class LoggedIn:
    """SASL succeeded (903) or the bot was logged in already (907)."""


@dataclass(frozen=True, slots=True)
class SaslFailed:
    reason: str
    """``saslfail`` (904), ``sasltoolong`` (905) or ``saslaborted`` (906)."""


@dataclass(frozen=True, slots=True)
class Casemapping:
    """ISUPPORT ``CASEMAPPING=``: how the network folds nicks (bot/casemap.py)."""

    name: str


@dataclass(frozen=True, slots=True)
class Prefix:
    """The bot's own ``nick!user@host``, from its JOIN or NICK: it sets the text budget."""

    mask: str


@dataclass(frozen=True, slots=True)
class Joined:
    channel: str


@dataclass(frozen=True, slots=True)
class JoinRefused:
    """The server refused the bot's JOIN of ``channel``: ``why`` in words (``too many
    channels``), and its ``numeric`` and ``reason`` as it said them."""

    channel: str
    why: str
    numeric: str
    reason: str


@dataclass(frozen=True, slots=True)
class Left:
    """The bot PARTed ``channel``."""

    channel: str


@dataclass(frozen=True, slots=True)
class Kicked:
    channel: str
    by: str
    reason: str


@dataclass(frozen=True, slots=True)
class WhoDone:
    """The WHO of ``channel`` ended (315, or the transport's timeout): its people are
    known."""

    channel: str


@dataclass(frozen=True, slots=True)
class Seen:
    """``nick`` is ``identity`` (the services account, else ``user@host``)."""

    nick: str
    identity: str


@dataclass(frozen=True, slots=True)
class Gone:
    """The bot no longer sees ``nick`` in any channel: forget what it knew."""

    nick: str


@dataclass(frozen=True, slots=True)
class Renamed:
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class Farewell:
    """Why the server is about to drop the link (ERROR, or the bot's own QUIT)."""

    reason: str | None


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A line the session failed on and ignored: its ``command`` and the ``error``'s
    type, never its text (it may hold a password)."""

    command: str
    error: str


Action = (Send | Message | CtcpRequest | Registered | CapsRefused | SaslUnavailable
          | SaslNoPassword | LoggedIn | SaslFailed | Casemapping | Prefix | Joined
          | JoinRefused | Left | Kicked | WhoDone | Seen | Gone | Renamed | Farewell | Unreadable)
