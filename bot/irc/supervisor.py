"""The IRC transport: a supervisor around ``irc.client_aio`` that survives a real
network (docs/irc-notes.md#the-irc-package lists the library defaults this works around;
bot/irc/aio_client.py opens each connection with them fixed).

One connection is: connect with a timeout (TLS as bot/irc/tls.py makes it: a refused
certificate ends the attempt before a byte is sent), write ``CAP LS 302``, then read until
the link drops, PINGing when idle and dropping the link when it stays silent. The
supervisor then reconnects with capped, jittered exponential backoff. The send queue
(``Outbox``) and every fight (in storage) outlive a connection.

The protocol itself (CAP, SASL, nick fallback, ISUPPORT, JOIN and WHO, who is who) is a
sans-I/O ``IrcSession`` (bot/irc/session.py), one per connection: every raw line goes to
it and this module carries out what it answers, keeping the timers (ANSWER_TIMEOUT,
JOIN_TIMEOUT, nick regain) and passing who is who on to the referee's ``People`` book,
what people say to the referee (commands within each sender's pace, bot/irc/admission.py),
and the channels it is not in to the tables' ``not_in`` (a moderator's ``!status``). A line
for a channel the bot is not in waits for its JOIN (bot/irc/held.py). Only what must
precede registration goes out directly (CAP, AUTHENTICATE, and the library's NICK and
USER), and PONG; everything after it, JOINs, WHOs, PINGs, NICK regains and CTCP replies
included, goes through the outbox's pacing (bot/irc/outbox.py).
"""

from __future__ import annotations

import asyncio
import logging
import random
import ssl
import time
from collections.abc import Callable

from irc.client import Event, ServerConnection

from bot import resuming
from bot.chat.lanes import Lanes
from bot.config import IrcConfig
from bot.irc import aio_client, logbook, tls
from bot.irc.accounts import Accounts
from bot.irc.admission import Admission
from bot.irc.events import (
    Action,
    Casemapping,
    CtcpRequest,
    Farewell,
    Gone,
    Joined,
    JoinRefused,
    Kicked,
    Left,
    Message,
    Prefix,
    Registered,
    Renamed,
    Seen,
    Send,
    WhoDone,
)
from bot.irc.fair import owed
from bot.irc.held import Held
from bot.irc.home_network import foreign_network
from bot.irc.joins import JOIN_TIMEOUT
from bot.irc.line import Line
from bot.irc.outbox import CONTROL, Outbox
from bot.irc.pacing import Pace
from bot.irc.session import IrcSession, SaslLogin
from bot.messages import Incoming, Outgoing, Priority
from bot.referee import Referee
from bot.safe_text import clean

__all__ = ["VERSION", "IrcBot"]

log = logging.getLogger("ancath.irc")

VERSION = "ancath-bot 0.1 (An Cath referee)"
USER_BURST, USER_RATE = 5, 0.5
"""Per-player command pacing (bot/irc/pacing.py): 5 at once, then one every 2 s; the
benchmarks lift it before they build a bot."""
ANSWER_TIMEOUT = 30.0
"""Seconds after a WHO went out to wait for its end before going on with the next (a
JOIN waits ``JOIN_TIMEOUT``, bot/irc/joins.py)."""


class IrcBot:
    """The referee on one IRC network."""

    def __init__(self, config: IrcConfig, referee: Referee) -> None:
        self.config = config
        self.referee = referee
        self.foreign_network = foreign_network(referee, config)
        """This network's name when it is not the club's home: the prefix of every
        identity here (bot/irc/session.py), and of names typed here."""
        referee.services.identity.foreign_network = self.foreign_network
        self.outbox = Outbox(config.flood)
        self.session = self._new_session()
        """The protocol state (bot/irc/session.py) of the current connection; ``_session``
        runs one connection with a new one."""
        referee.services.identity.shares_channel = lambda nick: self.session.members.shares(nick)
        self.connected = asyncio.Event()
        """Set while registered: the outbox sends only then."""
        self.connection: ServerConnection | None = None
        self.sessions = 0
        self.pace = Pace(USER_BURST, USER_RATE)
        """Per-player command pacing (bot/irc/pacing.py)."""
        self.admission = Admission(self.outbox, self.pace,
                                   lambda sender: referee.services.identity.is_ignored(sender),
                                   config.flood.reply_seconds)
        """What people say that goes on (bot/irc/admission.py)."""
        self._deadlines: dict[str, float] = {}
        """The session's waiting WHO and JOIN -> when it went out, plus its timeout."""
        self.held = Held(config.flood.max_backlog)
        """Lines for channels the bot is not in yet (bot/irc/held.py)."""
        self._farewell: str | None = None
        """The server's ERROR (or our own QUIT) reason, for the log when the link drops."""
        self._dropped = "connection lost"
        """Why the last link ended, for the reconnect line."""
        self._last_rx = time.monotonic()
        self._pinged = False
        self._closed: asyncio.Event | None = None
        self._stopping = False
        self.lanes = Lanes(referee.config.group_commit_ms / 1000)
        """The referee's work runs there, never on the event loop."""
        self._ticking: asyncio.Future[list[Outgoing] | None] | None = None

    def _new_session(self) -> IrcSession:
        config = self.config
        mechanism = config.sasl()
        sasl = None if mechanism is None else SaslLogin(
            mechanism, config.sasl_account or "",
            config.sasl_password() if mechanism == "PLAIN" else None, config.sasl_required)
        return IrcSession(config.nick, config.alt_nicks, config.channels, sasl,
                          version=VERSION, foreign_network=self.foreign_network)

    @property
    def nick(self) -> str:
        return self.session.nick

    @property
    def accounts(self) -> Accounts:
        return self.session.accounts

    @property
    def _caps(self) -> set[str]:
        """The capabilities the server acknowledged on this connection."""
        return self.session.caps

    # -- supervisor ---------------------------------------------------------------------

    async def run(self) -> None:
        """Connect, serve, reconnect: until ``stop``."""
        loop = asyncio.get_running_loop()

        def later(out: list[Outgoing]) -> None:
            loop.call_soon_threadsafe(self._deliver, out)

        self.referee.services.odds.deliver_answers = later
        sender = asyncio.create_task(self.outbox.run(self._send_line, self.connected))
        ticker = asyncio.create_task(self._tick())
        backoff = 1.0
        try:
            while not self._stopping:
                registered = False
                try:
                    registered = await self._session()
                except tls.TlsRefused as error:
                    log.error("TLS: refused the certificate of %s:%s (nothing sent): %s",
                              self.config.server, self.config.port, error)
                except (TimeoutError, OSError, ssl.SSLError) as error:
                    log.warning("connection to %s:%s failed: %s", self.config.server,
                                self.config.port, error)
                    self._dropped = f"connection failed: {error}"
                if self._stopping:
                    break
                backoff = 1.0 if registered else min(self.config.reconnect_max_seconds,
                                                     backoff * 2)
                delay = backoff * random.uniform(0.5, 1.0)  # jitter: not dice, R1.4
                log.info("reconnecting in %.1f s (%s)", delay, self._dropped)
                await asyncio.sleep(delay)
        finally:
            sender.cancel()
            ticker.cancel()
            self.lanes.close()

    def stop(self) -> None:
        self._stopping = True
        if self.connection is not None and self.connection.is_connected():
            self.connection.disconnect("referee stopping")

    async def _session(self) -> bool:
        """One connection, until it closes; True when it got as far as registering."""
        self._closed = asyncio.Event()
        self.session = self._new_session()
        self._deadlines, self._farewell, self.referee.services.tables.not_in = {}, None, {}
        self.outbox.new_session()
        self.referee.services.identity.new_session()
        conn = self.connection = aio_client.new_connection(
            {"all_raw_messages": self._on_raw, "disconnect": self._on_disconnect})
        await aio_client.connect(conn, self.config, self.nick)
        self._last_rx, self._pinged = time.monotonic(), False
        self.sessions += 1
        keepalive = asyncio.create_task(self._keepalive(conn))
        try:
            await self._closed.wait()
        finally:
            keepalive.cancel()
            self.connected.clear()
        return self.session.registered

    async def _keepalive(self, conn: ServerConnection) -> None:
        """PING when the link is idle; drop it when it stays silent; give up on a
        registration that never completes."""
        started = time.monotonic()
        while True:
            await asyncio.sleep(min(5.0, self.config.ping_idle_seconds / 3))
            now = time.monotonic()
            idle = now - self._last_rx
            if not self.session.registered and now - started > self.config.connect_timeout:
                log.warning("registration timed out")
                self._drop(conn, "registration timed out")
                return
            if idle > self.config.ping_idle_seconds + self.config.ping_timeout_seconds:
                log.warning("no answer for %.0f s, dropping the link", idle)
                self._drop(conn, "ping timeout")
                return
            if idle > self.config.ping_idle_seconds and not self._pinged and \
                    self.session.registered:
                self._pinged = True
                self.outbox.raw(Line("PING", [str(int(now))], trailing=True))

    def _drop(self, conn: ServerConnection, reason: str) -> None:
        try:
            conn.disconnect(reason)
        except Exception:  # the transport may already be gone
            log.debug("disconnect failed", exc_info=True)
        if self._closed is not None:
            self._closed.set()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            if self._ticking is None or self._ticking.done():  # never a pile of ticks
                self._ticking = self.lanes.run(True, lambda: self._guard(self.referee.tick),
                                               self._deliver)
            self._late()

    def _late(self) -> None:
        """Go on past a WHO or JOIN whose answer is late."""
        session, now = self.session, time.monotonic()
        for line, deadline in list(self._deadlines.items()):
            if line not in (session.waiting_who, session.joins.line):
                del self._deadlines[line]  # answered
            elif now > deadline:
                del self._deadlines[line]
                log.warning("no answer in %.0f s to %s", self._timeout(line), line)
                if line == session.waiting_who:
                    self._act(session.who_timed_out())
                else:
                    self._act(session.joins.timed_out())
                    self._not_in()

    # -- sending ------------------------------------------------------------------------

    def _send_line(self, line: Line) -> bool:
        """One line to the server now (the outbox's sender, and the session's before
        registration), written here and only here (``Line.format``); False when there
        is no link to send it on."""
        conn = self.connection
        if conn is None or not conn.is_connected():
            return False
        try:
            text = line.format()
            conn.send_raw(clean(text))
        except Exception:
            log.warning("send failed: %s", line, exc_info=True)
            return False
        if text in (self.session.waiting_who, self.session.joins.line):
            self._deadlines[text] = time.monotonic() + self._timeout(text)
        return True

    def _timeout(self, line: str) -> float:
        """How long the waiting WHO or JOIN ``line`` waits for its answer."""
        return ANSWER_TIMEOUT if line == self.session.waiting_who else JOIN_TIMEOUT

    def _deliver(self, out: list[Outgoing]) -> None:
        """Queue what the referee said, each line owed to whom it answers (a line for
        a channel the bot is not in waits for its JOIN, bot/irc/held.py). A chatter line
        is worth sending only within ``reply_seconds`` (the outbox keeps a fight's lines
        and anchors whatever that says)."""
        within, session = self.config.flood.reply_seconds, self.session
        for item in out:
            if item.target[:1] in "#&" and not (self.connected.is_set()
                                                 and item.target in session.joined):
                self.held.hold(item, session.joins.not_in.get(item.target))
                continue
            asker = None if item.asker is None else owed(item.asker)
            self.outbox.message(item.target, item.text, item.priority, fit=item.fit,
                                owed=asker, within=within,
                                nick=item.asker.nick if item.asker else "")

    # -- receiving ----------------------------------------------------------------------

    def _guard(self, call: Callable[[], list[Outgoing]]) -> list[Outgoing] | None:
        try:
            return call()
        except Exception:
            log.exception("referee failed")
            return None

    def _on_raw(self, _conn: ServerConnection, event: Event) -> None:
        """Every line from the server: it is alive, and the session decides."""
        self._last_rx, self._pinged = time.monotonic(), False
        self._act(self.session.receive(event.arguments[0]))

    def _act(self, actions: list[Action]) -> None:
        """Carry out what the session asked, in its order."""
        for action in actions:
            match action:  # what people say first: the most frequent by far
                case Message(sender, _target, text, channel):
                    msg = Incoming(sender=sender, text=text, channel=channel)
                    if self.admission.command(msg, self.referee.config.command_prefix):
                        self.lanes.line(self.referee, msg, self._guard, self._deliver)
                case Send(line, in_turn, at_once):
                    if at_once or not self.session.registered:
                        self._send_line(line)
                    else:
                        self.outbox.raw(line, Priority.FIGHT if in_turn else CONTROL)
                case Seen(nick, identity):
                    self.referee.services.identity.people.saw(nick, identity)
                case Gone(nick):
                    self.referee.services.identity.gone(nick)
                case Renamed(old, new):
                    self.referee.services.identity.renamed(old, new)
                case Prefix(mask):
                    self.outbox.prefix = mask
                case WhoDone(channel):
                    self._resume(channel)
                case CtcpRequest():
                    self.admission.ctcp(action)
                case _:
                    self._news(action)

    def _news(self, action: Action) -> None:
        """The session's events that the supervisor logs (bot/irc/logbook.py) or keeps."""
        logbook.note(action, self.config)
        match action:
            case Registered():
                self.connected.set()
                if self.session.wants_nick:
                    asyncio.get_running_loop().call_later(self.config.nick_regain_seconds,
                                                          self._regain_nick)
            case Joined(channel):
                self._deliver(self.held.release(channel, self.session.casemapping))
            case Casemapping(name):
                self.referee.casemapping = name
            case Farewell(reason):
                self._farewell = reason
        if isinstance(action, Joined | JoinRefused | Left | Kicked):
            self._not_in()

    def _not_in(self) -> None:
        """Tell the referee the channels the bot is not in now (read by another thread:
        a new dict each time); the chatter held for them goes (bot/irc/held.py)."""
        tables = self.referee.services.tables
        tables.not_in = dict(self.session.joins.not_in.items())
        self.held.out_of(tables.not_in, self.session.casemapping)

    def _regain_nick(self) -> None:
        if self.connected.is_set() and self.session.wants_nick:
            self._act(self.session.regain())
            asyncio.get_running_loop().call_later(self.config.nick_regain_seconds,
                                                  self._regain_nick)

    def _resume(self, channel: str) -> None:
        """The channel's people are known, so the resume line can name them
        (``Brenna (alice) to act``)."""

        def resumed() -> list[Outgoing]:
            line = resuming.resume_line(self.referee.services, channel)
            return [line] if line is not None else []

        self.lanes.run(True, lambda: self._guard(resumed), self._deliver)

    # -- messages -----------------------------------------------------------------------

    # -- the link -----------------------------------------------------------------------

    def _on_disconnect(self, _conn: ServerConnection, event: Event) -> None:
        self.connected.clear()
        said = event.arguments[0] if event.arguments else ""
        reason = self._farewell or said or "connection lost"
        self._dropped = reason
        level = logging.INFO if self._stopping else logging.WARNING
        log.log(level, "disconnected from %s:%s: %s", self.config.server, self.config.port,
                reason)
        if self._closed is not None:
            self._closed.set()
