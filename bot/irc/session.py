"""The IRC protocol of one connection, with no I/O: fed the server's lines, it answers
with lines to send and events (bot/irc/events.py). No socket, clock or asyncio: the
transport (bot/irc/supervisor.py) carries the actions out and owns every timer.

Theory of operation. The transport writes ``CAP LS 302``, then NICK and USER. The
session gathers the capabilities on offer (a multi-line LS ends without ``*``), requests
the wanted ones it sees and ``sasl`` for a login (bot/irc/sasl.py; a welcome with no
answer to ``CAP LS`` is a server with no SASL), then ``CAP END``. A taken nick before
the welcome tries the alternatives, then the nick with three random digits; after it
the transport calls ``regain`` now and then. On the welcome (001) it
JOINs its channels one at a time, and asks WHO (WHOX ``%tnuhact,42`` where ISUPPORT says
so) of each channel it joined, one at a time (bot/irc/joins.py, which reads refusals too;
the transport calls ``joins.timed_out`` and ``who_timed_out`` when an answer is late).

What it sees of who is who (JOIN, WHO, NAMES, NICK, ACCOUNT, PART, KICK, QUIT) goes
into ``accounts`` and ``members`` and out as ``Seen``, ``Gone`` and ``Renamed``, by the
rule of ``sender``: the services account if known, else ``user@host``; on a network
that is not the club's home (``foreign_network``, the network's name) each is written
``<network>:<account>`` (and masks ``<network>:nick!user@host``), since an account is its
network's own: ``alice`` there is not the club's ``alice``. Nicks and
channels compare by the network's CASEMAPPING (bot/casemap.py), and what it keeps
by nick or channel is folded again when ISUPPORT names the mapping.

What people say comes out as ``Message`` (with the channel as the bot spells it; a
STATUSMSG target such as ``@#arena``, to the channel's ops, is that channel) and
``CtcpRequest`` (VERSION with its answer); a NOTICE is never answered, nor a CTCP
ACTION (``/me``) taken as a command. A PING is answered with its PONG at once.

No line raises: one from nobody where someone must speak (a JOIN, PRIVMSG or QUIT with
no nick in its source) changes nothing, and should a rule still fail on a line, the
session answers ``Unreadable`` for the transport to log and goes on.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping

from bot import casemap
from bot.irc.accounts import Accounts, Members, logged_in
from bot.irc.events import (
    Action,
    CapsRefused,
    Casemapping,
    CtcpRequest,
    Farewell,
    Gone,
    Joined,
    Kicked,
    Left,
    Message,
    Prefix,
    Registered,
    Renamed,
    Seen,
    Send,
    Unreadable,
)
from bot.irc.joins import REFUSALS, Joins, Whos
from bot.irc.line import Line, ctcp_parts, middle, nick_of, parse, user_host_of
from bot.irc.sasl import SASL_NUMERICS, Sasl, SaslLogin
from bot.messages import Sender
from bot.safe_text import clean

__all__ = ["WANTED_CAPS", "IrcSession", "SaslLogin"]

WANTED_CAPS = ("account-tag", "extended-join", "account-notify", "message-tags")
_CHANNEL_TYPES = "#&+!"
_FROM_SOMEONE = {"ACCOUNT", "JOIN", "KICK", "NICK", "PART", "PRIVMSG", "QUIT"}
"""Commands that mean nothing without a nick in their source."""

_Handler = Callable[["IrcSession", Line], list[Action]]
_HANDLERS: dict[str, _Handler] = {}


def _on(*commands: str) -> Callable[[_Handler], _Handler]:
    """Register the decorated method as the handler of ``commands``."""

    def register(handler: _Handler) -> _Handler:
        for command in commands:
            _HANDLERS[command] = handler
        return handler

    return register


class IrcSession:
    """One connection's protocol state; ``receive`` each line, carry out what it says."""

    def __init__(self, nick: str, alt_nicks: Iterable[str] = (),
                 channels: Iterable[str] = (), sasl: SaslLogin | None = None,
                 rng: random.Random | None = None, version: str | None = None,
                 foreign_network: str | None = None) -> None:
        self.wanted_nick = nick
        self.nick = nick
        """The nick the bot has, or asked for while registering."""
        self.alt_nicks = list(alt_nicks)
        self.channels = list(channels)
        self.login = Sasl(sasl)
        self.version = version
        """The answer to CTCP VERSION; None answers nothing."""
        self.foreign_network = foreign_network
        """This network's name when it is not the club's home network: the prefix of
        every identity and mask it hands on (``<network>:alice``)."""
        self.registered = False
        self.caps: set[str] = set()
        """Capabilities the server acknowledged."""
        self.offered: dict[str, str] = {}
        """Capabilities on offer, with their values (``sasl`` -> ``PLAIN,EXTERNAL``)."""
        self.whox = False
        self.casemapping = casemap.DEFAULT
        self.prefixes = "@+"
        """The status characters NAMES puts before a nick (ISUPPORT ``PREFIX``)."""
        self.statusmsg = ""
        """The status characters a message may put before a channel to reach only its
        ops or voiced (ISUPPORT ``STATUSMSG``; none unless the server names them)."""
        self.accounts = Accounts()
        self.members = Members()
        self.joined: casemap.Folded[str] = casemap.Folded()
        """The channels the bot is in, each as it spells it (as configured, else as the
        server echoed the JOIN)."""
        self.joins = Joins(self.channels)
        """The configured channels joined one at a time, and why the bot is not in one."""
        self.whos = Whos()
        self._rng = rng or random.Random()

    def receive(self, raw: str | Line) -> list[Action]:
        """What to do about one line from the server."""
        command = ""
        try:
            line = parse(raw) if isinstance(raw, str) else raw
            command = line.command
            handler = _HANDLERS.get(command) or (
                _HANDLERS["FAIL"] if command[:1] in "45" and command.isdigit() else None)
            if handler is None or (command in _FROM_SOMEONE and not line.nick):
                return []
            return handler(self, line)
        except Exception as error:  # a last guard: one odd line never stops the session
            return [Unreadable(command[:32], type(error).__name__)]

    def is_me(self, nick: str) -> bool:
        return self._same(nick, self.nick)

    def _same(self, one: str, other: str) -> bool:
        return casemap.fold(one, self.casemapping) == casemap.fold(other, self.casemapping)

    def sender(self, source: str, tags: Mapping[str, str | None]) -> Sender:
        """Who sent a line: only its own ``account`` tag says who is logged in (a line
        without it is from someone who is not, whatever nick they use)."""
        account = logged_in(tags.get("account")) if "account-tag" in self.caps else None
        host = user_host_of(source)
        return Sender(nick=nick_of(source)[:64], account=self._own(account),
                      mask=self._own(source), host=self._own(host))

    def _own(self, name: str | None) -> str | None:
        """An account, ``user@host`` or mask as the club names it; none (or empty) is
        None."""
        return self._club_name(name) if name else None

    def _club_name(self, name: str) -> str:
        """On a network that is not the club's home, ``name`` with this network's name
        before it."""
        return f"{self.foreign_network}:{name}" if self.foreign_network else name

    # -- capabilities and SASL ----------------------------------------------------------

    @_on("CAP")
    def _cap(self, line: Line) -> list[Action]:
        sub = line.param(1).upper()
        caps = line.params[-1] if line.params else ""
        if sub == "LS":
            self.offered |= dict(c.partition("=")[::2] for c in caps.split())
            if len(line.params) > 3 and line.params[2] == "*":
                return []  # more to come
            return self.login.request(self.offered,
                                      [c for c in WANTED_CAPS if c in self.offered])
        if sub == "ACK":
            self.caps |= set(caps.split())
            return self.login.acknowledged(self.caps)
        if sub == "NAK":
            return [CapsRefused(caps), *self.login.refused(caps)]
        return []

    @_on("AUTHENTICATE", *SASL_NUMERICS)
    def _sasl(self, line: Line) -> list[Action]:
        return self.login.receive(line)

    # -- registration and nicks ---------------------------------------------------------

    @_on("001")
    def _welcome(self, line: Line) -> list[Action]:
        if self.login.quits(unanswered := self.login.unanswered()):  # no CAP LS answer
            return unanswered
        self.registered = True
        self.nick = line.param(0) or self.nick
        return [*unanswered, Registered(self.nick), *self.joins.start()]

    @_on("005")
    def _isupport(self, line: Line) -> list[Action]:
        tokens = dict(token.partition("=")[::2] for token in line.params[1:])
        if "WHOX" in tokens:
            self.whox = True
        if "PREFIX" in tokens and ")" in tokens["PREFIX"]:
            self.prefixes = tokens["PREFIX"].split(")", 1)[1]
        if "STATUSMSG" in tokens:
            self.statusmsg = tokens["STATUSMSG"]
        if tokens.get("CASEMAPPING"):
            self.casemapping = tokens["CASEMAPPING"]
            for folded in (self.accounts, self.members, self.joined, self.joins.not_in):
                folded.remap(self.casemapping)
            return [Casemapping(self.casemapping)]
        return []

    @_on("432", "433", "437")
    def _nick_taken(self, line: Line) -> list[Action]:
        if line.command == "437" and line.param(1)[:1] in _CHANNEL_TYPES:
            return self._join_refused(line)  # a channel temporarily unavailable
        if self.registered:
            return []  # a regain attempt failed; the transport tries again later
        options = [self.wanted_nick, *self.alt_nicks]
        tried = line.param(1, self.nick)
        self.nick = options[options.index(tried) + 1] if tried in options[:-1] else (
            f"{self.wanted_nick[:20]}{self._rng.randint(100, 999)}")
        return [Send(Line("NICK", [self.nick]))]

    @property
    def wants_nick(self) -> bool:
        """Whether the bot has another nick than the one configured."""
        return not self._same(self.nick, self.wanted_nick)

    def regain(self) -> list[Action]:
        """Ask for the configured nick again (the transport calls this now and then)."""
        if not (self.registered and self.wants_nick):
            return []
        return [Send(Line("NICK", [self.wanted_nick]))]

    @_on("NICK")
    def _nick(self, line: Line) -> list[Action]:
        old, new = line.nick, line.param(0)
        self.accounts.renamed(old, new)
        self.members.renamed(old, new)
        out: list[Action] = [Renamed(old, new)]
        if self.is_me(old):
            self.nick = new
            out.append(Prefix(f"{new}!{(line.source or '').split('!', 1)[-1]}"))
        return out

    # -- channels and WHO ---------------------------------------------------------------

    @_on("JOIN")
    def _join(self, line: Line) -> list[Action]:
        channel = line.param(0)
        if self.is_me(line.nick):
            if not middle(channel):
                return []  # no channel to ask WHO of
            channel = self.joins.configured(channel) or channel
            self.joined[channel] = channel
            return [Prefix(line.source or ""), Joined(channel),
                    *self.whos.ask(channel, self.whox), *self.joins.joined(channel)]
        if "extended-join" in self.caps and len(line.params) > 1:
            self.accounts.set(line.nick, line.params[1])
        return self._seen(line.nick, channel, self.sender(line.source or "",
                                                          line.tags).identity)

    @_on("FAIL", *(numeric for numeric in REFUSALS if numeric != "437"))
    def _join_refused(self, line: Line) -> list[Action]:
        """A refusal of a JOIN (also any 4xx or 5xx numeric with no handler)."""
        return self.joins.error(line, self.joined)

    @property
    def waiting_who(self) -> str | None:
        """The WHO line that waits for its end of WHO."""
        return self.whos.waiting

    def who_timed_out(self) -> list[Action]:
        """The transport waited long enough for the end of ``waiting_who``."""
        return self.whos.done(self.whox)

    @_on("315")
    def _end_of_who(self, line: Line) -> list[Action]:
        if self.waiting_who is not None and self._same(self.whos.channel, line.param(1)):
            return self.who_timed_out()
        return []

    @_on("352", "354")
    def _who_reply(self, line: Line) -> list[Action]:
        if line.command == "352" and len(line.params) >= 6:
            # 352 me #chan user host server nick flags :hops realname
            channel, user, host, _server, nick = line.params[1:6]
        elif len(line.params) >= 7 and line.params[1] == "42":
            # WHOX replies in the fixed order t c u i h s n f d l a o r, whatever order
            # the request names; ours (%tnuhact): 354 me 42 #chan user host nick account
            channel, user, host, nick, account = line.params[2:7]
            self.accounts.set(nick, account)
        else:
            return []
        return self._seen(nick, channel, self._club_name(self.accounts.get(nick)
                                                          or f"{user}@{host}"))

    @_on("353")
    def _names(self, line: Line) -> list[Action]:
        # 353 me = #chan :@op +voiced plain
        if len(line.params) >= 4:
            for name in line.params[3].split():
                nick = name.lstrip(self.prefixes)
                if nick and not self.is_me(nick):
                    self.members.joined(nick, line.params[2])
        return []

    # -- who is who ---------------------------------------------------------------------

    def _seen(self, nick: str, channel: str, identity: str) -> list[Action]:
        """``nick`` is in ``channel`` and is ``identity`` (as the club names it)."""
        if self.is_me(nick):
            return []
        self.members.joined(nick, channel)
        return [Seen(nick, identity)]

    def _gone(self, nick: str) -> list[Action]:
        self.accounts.forget(nick)
        return [Gone(nick)]

    def _left(self, nick: str, channel: str) -> list[Action]:
        if self.is_me(nick):
            return [action for other in self.members.channel_gone(channel)
                    for action in self._gone(other)]
        return self._gone(nick) if self.members.left(nick, channel) else []

    def _spelt(self, channel: str) -> str:
        """``channel`` as the bot spells it, if it is in it."""
        return self.joined.get(channel, channel)

    @_on("PART")
    def _part(self, line: Line) -> list[Action]:
        channel = self._spelt(line.param(0))
        mine: list[Action] = []
        if self.is_me(line.nick):
            self.joined.pop(channel, None)
            self.joins.left(channel, "parted")
            mine.append(Left(channel))
        return [*mine, *self._left(line.nick, channel)]

    @_on("KICK")
    def _kick(self, line: Line) -> list[Action]:
        channel, nick = self._spelt(line.param(0)), line.param(1)
        mine: list[Action] = []
        if self.is_me(nick):
            self.joined.pop(channel, None)
            self.joins.left(channel, f"kicked by {line.nick}")
            mine.append(Kicked(channel, line.nick, line.param(2)))
        return [*mine, *self._left(nick, channel)]

    @_on("QUIT")
    def _quit(self, line: Line) -> list[Action]:
        if self.is_me(line.nick):
            return [Farewell(line.param(0) or None)]
        self.members.quit(line.nick)
        return self._gone(line.nick)

    @_on("ACCOUNT")
    def _account(self, line: Line) -> list[Action]:
        self.accounts.set(line.nick, line.param(0))
        return [Seen(line.nick, self.sender(line.source or "", line.tags).identity)]

    @_on("ERROR")
    def _error(self, line: Line) -> list[Action]:
        return [Farewell(line.param(0) or " ".join(line.params[1:]) or None)]

    # -- what people say ----------------------------------------------------------------

    @_on("PRIVMSG")
    def _privmsg(self, line: Line) -> list[Action]:
        if not line.source or len(line.params) < 2:
            return []
        target = line.params[0]
        channel = self._channel_of(target)
        sender = self.sender(line.source, line.tags)
        out: list[Action] = []
        for part in ctcp_parts(line.params[1]):
            if isinstance(part, str):
                out.append(Message(sender, target, part, channel, dict(line.tags)))
            elif part[0].upper() != "ACTION":
                command = part[0].upper()
                answer = (f"\x01VERSION {self.version}\x01"
                          if command == "VERSION" and self.version else None)
                out.append(CtcpRequest(sender, command, answer))
        return out

    def _channel_of(self, target: str) -> str | None:
        """The channel a message to ``target`` is said in, as the bot spells it; None
        for a private message. ``@#arena`` (STATUSMSG) reaches the ops of #arena, in
        #arena: never a private message."""
        for name in (target.lstrip(self.statusmsg), target):
            if name[:1] and name[0] in _CHANNEL_TYPES:
                return self._spelt(name)
        return None

    @_on("PING")
    def _ping(self, line: Line) -> list[Action]:
        return [Send(Line("PONG", [clean(line.param(0))], trailing=True), at_once=True)]
