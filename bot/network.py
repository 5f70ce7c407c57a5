"""The IRC transport: a supervisor around ``irc.client_aio`` that survives a real
network (shared/IRC-NOTES.md lists the library defaults this works around).

One session is: connect with a timeout (TLS as bot/tls.py makes it: a refused
certificate ends the attempt before a byte is sent), ``CAP LS 302`` and the IRCv3
capabilities on offer, SASL PLAIN or EXTERNAL when configured,
register, join, then read until the link drops, PINGing when idle and dropping the link
when it stays silent. The supervisor then reconnects with capped, jittered exponential
backoff. The send queue (``Outbox``) and every fight (in storage) outlive a session.

Only what must precede registration goes out directly (CAP, AUTHENTICATE, and the
library's NICK, USER and PONG); everything after it, JOINs, WHOs, PINGs, NICK regains
and CTCP replies included, goes through the outbox's pacing (bot/outbox.py). After the
JOINs the bot asks WHO of one channel at a time (WHOX where the server has it), the next
after the previous one's end of WHO or ``WHO_TIMEOUT``. What it sees of who is who
(JOIN, WHO, NICK, ACCOUNT, PART, KICK, QUIT) goes into ``Accounts`` and the referee's
``People`` book, by the rule of ``_sender``: the services account if known, else
``user@host``.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import random
import ssl
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from irc.client import Event, NickMask, ServerConnection
from irc.client_aio import AioReactor
from irc.connection import AioFactory
from jaraco.stream.buffer import LenientDecodingLineBuffer

from bot import tls
from bot.accounts import Accounts, Members
from bot.config import IrcConfig
from bot.lanes import Lanes
from bot.messages import Incoming, Outgoing, Priority, Sender
from bot.outbox import Outbox
from bot.pacing import Pace
from bot.referee import Referee
from bot.text import clean

__all__ = ["VERSION", "IrcBot"]

log = logging.getLogger("ancath.irc")

VERSION = "ancath-bot 0.1 (An Cath referee)"
WANTED_CAPS = ("account-tag", "extended-join", "account-notify", "message-tags")
USER_BURST, USER_RATE = 5, 0.5
"""Per-player command pacing (bot/pacing.py): 5 at once, then one every 2 s; the
benchmarks lift it before they build a bot."""
WHO_TIMEOUT = 30.0
"""Seconds after a WHO went out to wait for its end (315) before asking the next one."""


class IrcBot:
    """The referee on one IRC network."""

    def __init__(self, config: IrcConfig, referee: Referee) -> None:
        self.config = config
        self.referee = referee
        self.outbox = Outbox(config.flood)
        self.accounts = Accounts()
        self.members = Members()
        self.connected = asyncio.Event()
        """Set while registered: the outbox sends only then."""
        self.connection: ServerConnection | None = None
        self.nick = config.nick
        self.sessions = 0
        self.pace = Pace(USER_BURST, USER_RATE)
        """Per-player command pacing (bot/pacing.py)."""
        self._caps: set[str] = set()
        self._offered: dict[str, str] = {}
        """Capabilities on offer, with their values (``sasl`` -> ``PLAIN,EXTERNAL``)."""
        self._whox = False
        self._who_todo: deque[str] = deque()
        self._who_line: str | None = None
        """The WHO that waits for its end of WHO."""
        self._who_deadline: float | None = None
        self._farewell: str | None = None
        self._dropped = "connection lost"
        """Why the last link ended, for the reconnect line."""
        """The server's ERROR (or our own QUIT) reason, for the log when the link drops."""
        self._last_rx = time.monotonic()
        self._pinged = False
        self._closed: asyncio.Event | None = None
        self._stopping = False
        self._welcomed = False
        self.lanes = Lanes()
        """The referee's work runs there, never on the event loop."""
        self._ticking: asyncio.Future[list[Outgoing] | None] | None = None

    # -- supervisor ---------------------------------------------------------------------

    async def run(self) -> None:
        """Connect, serve, reconnect: until ``stop``."""
        loop = asyncio.get_running_loop()

        def later(out: list[Outgoing]) -> None:
            loop.call_soon_threadsafe(self._deliver, out)

        self.referee.later = later
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
        loop = asyncio.get_running_loop()
        self._closed = asyncio.Event()
        self._caps, self._offered = set(), {}
        self._welcomed = self._whox = False
        self._who_todo.clear()
        self._who_line = self._who_deadline = self._farewell = None
        self.outbox.new_session()
        self.accounts.clear()
        self.members.clear()
        self.referee.new_session()
        self.nick = self.config.nick
        reactor = AioReactor(loop=loop, on_connect=self._on_transport)
        conn = reactor.server()
        conn.buffer_class = LenientDecodingLineBuffer
        self._register_handlers(reactor)
        factory: Any = AioFactory()
        if self.config.tls:  # the files are read again at each connect: renewals apply
            factory = tls.connector(self.config.tls_context(), self.config.server,
                                    self.config.tls_fingerprint)
        password = None
        if self.config.server_password_env:
            password = os.environ.get(self.config.server_password_env)
        self.connection = conn
        log.info("connecting to %s:%s%s", self.config.server, self.config.port,
                 " (TLS)" if self.config.tls else "")
        await asyncio.wait_for(
            conn.connect(self.config.server, self.config.port, self.nick, password=password,
                         username=self.config.username, ircname=self.config.realname,
                         connect_factory=factory),
            self.config.connect_timeout,
        )
        log.info("connected to %s:%s", self.config.server, self.config.port)
        self._last_rx, self._pinged = time.monotonic(), False
        self.sessions += 1
        keepalive = asyncio.create_task(self._keepalive(conn))
        try:
            await self._closed.wait()
        finally:
            keepalive.cancel()
            self.connected.clear()
        return self._welcomed

    def _on_transport(self, _protocol: Any, transport: Any) -> None:
        """Before NICK/USER go out: open capability negotiation (IRC-NOTES)."""
        transport.write(b"CAP LS 302\r\n")

    async def _keepalive(self, conn: ServerConnection) -> None:
        """PING when the link is idle; drop it when it stays silent; give up on a
        registration that never completes."""
        started = time.monotonic()
        while True:
            await asyncio.sleep(min(5.0, self.config.ping_idle_seconds / 3))
            now = time.monotonic()
            idle = now - self._last_rx
            if not self._welcomed and now - started > self.config.connect_timeout:
                log.warning("registration timed out")
                self._drop(conn, "registration timed out")
                return
            if idle > self.config.ping_idle_seconds + self.config.ping_timeout_seconds:
                log.warning("no answer for %.0f s, dropping the link", idle)
                self._drop(conn, "ping timeout")
                return
            if idle > self.config.ping_idle_seconds and not self._pinged and self._welcomed:
                self._pinged = True
                self.outbox.raw(f"PING :{int(now)}")

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
            if self._who_deadline is not None and time.monotonic() > self._who_deadline:
                log.warning("no end of WHO in %.0f s: %s", WHO_TIMEOUT, self._who_line)
                self._who_done()

    # -- sending ------------------------------------------------------------------------

    def _send_line(self, line: str) -> bool:
        """One line to the server now (the outbox's sender, and ``_control``'s before
        registration); False when there is no link to send it on."""
        conn = self.connection
        if conn is None or not conn.is_connected():
            return False
        try:
            conn.send_raw(clean(line))
        except Exception:
            log.warning("send failed: %s", line, exc_info=True)
            return False
        if line == self._who_line:
            self._who_deadline = time.monotonic() + WHO_TIMEOUT
        return True

    def _control(self, line: str) -> None:
        """A protocol line: straight out while registering, paced after."""
        if self._welcomed:
            self.outbox.raw(line)
        else:
            self._send_line(line)

    def _deliver(self, out: list[Outgoing]) -> None:
        for item in out:
            self.outbox.message(item.target, item.text, item.priority)

    # -- receiving ----------------------------------------------------------------------

    def _register_handlers(self, reactor: AioReactor) -> None:
        handlers: dict[str, Callable[[ServerConnection, Event], None]] = {
            "all_raw_messages": self._on_raw,
            "cap": self._on_cap,
            "authenticate": self._on_authenticate,
            "saslsuccess": self._on_sasl_done,
            "saslfail": self._on_sasl_failed,
            "sasltoolong": self._on_sasl_failed,
            "saslaborted": self._on_sasl_failed,
            "saslalready": self._on_sasl_done,
            "welcome": self._on_welcome,
            "nicknameinuse": self._on_nick_taken,
            "erroneusnickname": self._on_nick_taken,
            "unavailresource": self._on_nick_taken,
            "featurelist": self._on_featurelist,
            "join": self._on_join,
            "namreply": self._on_namreply,
            "nick": self._on_nick,
            "part": self._on_part,
            "kick": self._on_kick,
            "quit": self._on_quit,
            "account": self._on_account,
            "whospcrpl": self._on_whox,
            "whoreply": self._on_whoreply,
            "endofwho": self._on_endofwho,
            "pubmsg": self._on_pubmsg,
            "privmsg": self._on_privmsg,
            "ctcp": self._on_ctcp,
            "error": self._on_error,
            "disconnect": self._on_disconnect,
        }
        for name, handler in handlers.items():
            reactor.add_global_handler(name, self._wrap(handler))

    def _wrap(self, handler: Callable[[ServerConnection, Event], None]) -> Callable[..., None]:
        """One failing handler never takes the connection down (IRC-NOTES)."""

        def guarded(conn: ServerConnection, event: Event) -> None:
            try:
                handler(conn, event)
            except Exception:
                log.exception("handler %s failed on %s", handler.__name__, event.type)

        return guarded

    def _guard(self, call: Callable[[], list[Outgoing]]) -> list[Outgoing] | None:
        try:
            return call()
        except Exception:
            log.exception("referee failed")
            return None

    def _on_raw(self, _conn: ServerConnection, _event: Event) -> None:
        self._last_rx, self._pinged = time.monotonic(), False

    def _on_cap(self, _conn: ServerConnection, event: Event) -> None:
        args = list(event.arguments)
        sub = args[0].upper() if args else ""
        if sub == "LS":
            more = len(args) > 2 and args[1] == "*"
            self._offered |= dict(c.partition("=")[::2] for c in args[-1].split())
            if more:
                return
            wanted = [c for c in WANTED_CAPS if c in self._offered]
            if self._sasl_offered():
                wanted.append("sasl")
            if wanted:
                self._control("CAP REQ :" + " ".join(wanted))
            else:
                self._control("CAP END")
        elif sub == "ACK":
            self._caps |= set(args[-1].split())
            mechanism = self.config.sasl()
            if "sasl" in self._caps and mechanism:
                self._control(f"AUTHENTICATE {mechanism}")
            else:
                self._control("CAP END")
        elif sub == "NAK":
            log.warning("capabilities refused: %s", args[-1])
            self._control("CAP END")

    def _sasl_offered(self) -> bool:
        """Whether to request ``sasl``: configured, offered, and (where the server lists
        its mechanisms, ``sasl=PLAIN,EXTERNAL``) with ours among them."""
        mechanism = self.config.sasl()
        if not mechanism:
            return False
        if "sasl" not in self._offered:
            log.error("SASL %s is configured but %s does not offer SASL", mechanism,
                      self.config.server)
            return False
        listed = self._offered["sasl"]
        if listed and mechanism not in listed.upper().split(","):
            log.error("SASL %s is configured but %s offers only %s", mechanism,
                      self.config.server, listed)
            return False
        return True

    def _on_authenticate(self, _conn: ServerConnection, event: Event) -> None:
        if event.target != "+" and list(event.arguments)[:1] != ["+"]:
            return
        if self.config.sasl() == "EXTERNAL":  # the certificate says who: no authzid
            self._control("AUTHENTICATE +")
            return
        password = self.config.sasl_password()
        if not password:
            log.error("SASL: the environment variable %s is empty",
                      self.config.sasl_password_env)
            self._control("AUTHENTICATE *")
            return
        account = self.config.sasl_account or ""
        token = base64.b64encode(f"{account}\0{account}\0{password}".encode()).decode()
        for start in range(0, len(token), 400):
            self._control(f"AUTHENTICATE {token[start:start + 400]}")
        if len(token) % 400 == 0:
            self._control("AUTHENTICATE +")

    def _on_sasl_done(self, _conn: ServerConnection, _event: Event) -> None:
        log.info("SASL: logged in as %s",
                 self.config.sasl_account or "the certificate's account")
        self._control("CAP END")

    def _on_sasl_failed(self, _conn: ServerConnection, event: Event) -> None:
        if self.config.sasl() == "EXTERNAL":
            log.error("SASL EXTERNAL failed (%s): is the fingerprint of %s registered "
                      "with services?", event.type, self.config.tls_client_cert)
        else:
            log.error("SASL login as %s failed (%s): check the account and $%s",
                      self.config.sasl_account, event.type, self.config.sasl_password_env)
        self._control("CAP END")

    def _on_welcome(self, conn: ServerConnection, event: Event) -> None:
        self._welcomed = True
        self.nick = event.target or conn.get_nickname()
        log.info("registered as %s", self.nick)
        self.connected.set()
        for channel in self.config.channels:
            self.outbox.raw(f"JOIN {channel}")
        if self.nick.casefold() != self.config.nick.casefold():
            asyncio.get_running_loop().call_later(self.config.nick_regain_seconds,
                                                  self._regain_nick)

    def _on_featurelist(self, _conn: ServerConnection, event: Event) -> None:
        # the library drops ISUPPORT tokens without a value, WHOX among them
        tokens = dict(token.partition("=")[::2] for token in event.arguments)
        if "WHOX" in tokens:
            self._whox = True
        if tokens.get("CASEMAPPING"):
            self.referee.casemapping = tokens["CASEMAPPING"]

    def _regain_nick(self) -> None:
        if self.connected.is_set() and self.nick.casefold() != self.config.nick.casefold():
            self._control(f"NICK {self.config.nick}")
            asyncio.get_running_loop().call_later(self.config.nick_regain_seconds,
                                                  self._regain_nick)

    def _on_nick_taken(self, _conn: ServerConnection, event: Event) -> None:
        if self._welcomed:
            return  # a regain attempt failed; try again later
        options = [self.config.nick, *self.config.alt_nicks]
        tried = event.arguments[0] if event.arguments else self.nick
        following = options[options.index(tried) + 1] if tried in options[:-1] else (
            f"{self.config.nick[:20]}{random.randint(100, 999)}")
        self.nick = following
        self._control(f"NICK {following}")

    # -- who is who ---------------------------------------------------------------------

    def _is_me(self, nick: str) -> bool:
        return nick.casefold() == self.nick.casefold()

    def _seen(self, nick: str, channel: str, identity: str) -> None:
        """``nick`` is in ``channel`` and is ``identity``: into the members and the book."""
        if self._is_me(nick):
            return
        self.members.joined(nick, channel)
        self.referee.people.saw(nick, identity)

    def _gone(self, nick: str) -> None:
        """The bot no longer sees ``nick`` anywhere: forget what it knew."""
        self.accounts.forget(nick)
        self.referee.gone(nick)

    def _left(self, nick: str, channel: str) -> None:
        if self._is_me(nick):
            for other in self.members.channel_gone(channel):
                self._gone(other)
        elif self.members.left(nick, channel):
            self._gone(nick)

    def _on_join(self, _conn: ServerConnection, event: Event) -> None:
        source = NickMask(event.source)
        channel = event.target
        if self._is_me(source.nick):
            self.outbox.prefix = str(source)
            log.info("joined %s", channel)
            self._who_todo.append(channel)
            self._who_next()
            return
        if "extended-join" in self._caps and event.arguments:
            self.accounts.set(source.nick, event.arguments[0])
        self._seen(source.nick, channel, self._sender(event).identity)

    def _resumed(self, channel: str) -> list[Outgoing]:
        line = self.referee.resume_line(channel)
        return [line] if line is not None else []

    def _who_next(self) -> None:
        """Ask WHO of the next channel, unless a WHO still waits for its end."""
        if self._who_line is not None or not self._who_todo:
            return
        channel = self._who_todo.popleft()
        # WHOX: who is logged in as whom; a plain WHO still gives user@host
        self._who_line = f"WHO {channel} %tnuhact,42" if self._whox else f"WHO {channel}"
        self._who_deadline = None  # set when it goes out
        self.outbox.raw(self._who_line, Priority.FIGHT)  # in turn with fight output

    def _who_done(self) -> None:
        """The channel's WHO is over: its people are known, so the resume line can name
        them (``Brenna (alice) to act``); then the next channel's WHO."""
        if self._who_line is not None:
            channel = self._who_line.split()[1]
            self.lanes.run(True, lambda: self._guard(lambda: self._resumed(channel)),
                           self._deliver)
        self._who_line = self._who_deadline = None
        self._who_next()

    def _on_endofwho(self, _conn: ServerConnection, event: Event) -> None:
        mask = event.arguments[0] if event.arguments else ""
        if self._who_line is not None and self._who_line.split()[1].casefold() == \
                mask.casefold():
            self._who_done()

    def _on_whox(self, _conn: ServerConnection, event: Event) -> None:
        # WHOX replies in the fixed order t c u i h s n f d l a o r, whatever order the
        # request names them in; ours (%tnuhact) gives: 354 me 42 #chan user host nick account
        args = list(event.arguments)
        if len(args) >= 6 and args[0] == "42":
            _token, channel, user, host, nick, account = args[:6]
            self.accounts.set(nick, account)
            self._seen(nick, channel, self.accounts.get(nick) or f"{user}@{host}")

    def _on_whoreply(self, _conn: ServerConnection, event: Event) -> None:
        # 352 me #chan user host server nick flags :hops realname
        args = list(event.arguments)
        if len(args) >= 5:
            channel, user, host, _server, nick = args[:5]
            self._seen(nick, channel, self.accounts.get(nick) or f"{user}@{host}")

    def _on_namreply(self, conn: ServerConnection, event: Event) -> None:
        # 353 me = #chan :@op +voiced plain
        args = list(event.arguments)
        if len(args) >= 3:
            prefixes = "".join(conn.features.prefix)
            for name in args[2].split():
                nick = name.lstrip(prefixes)
                if nick and not self._is_me(nick):
                    self.members.joined(nick, args[1])

    def _on_nick(self, _conn: ServerConnection, event: Event) -> None:
        old, new = NickMask(event.source).nick, event.target
        self.accounts.renamed(old, new)
        self.members.renamed(old, new)
        self.referee.renamed(old, new)
        if self._is_me(old):
            self.nick = new
            user_host = str(NickMask(event.source)).split("!", 1)[-1]
            self.outbox.prefix = f"{new}!{user_host}"

    def _on_part(self, _conn: ServerConnection, event: Event) -> None:
        nick = NickMask(event.source).nick
        if self._is_me(nick):
            log.warning("left %s", event.target)
        self._left(nick, event.target)

    def _on_kick(self, _conn: ServerConnection, event: Event) -> None:
        nick = event.arguments[0] if event.arguments else ""
        if self._is_me(nick):
            log.warning("kicked from %s by %s: %s", event.target, NickMask(event.source).nick,
                        event.arguments[1] if len(event.arguments) > 1 else "")
        self._left(nick, event.target)

    def _on_quit(self, _conn: ServerConnection, event: Event) -> None:
        nick = NickMask(event.source).nick
        if self._is_me(nick):
            self._farewell = event.arguments[0] if event.arguments else None
            return
        self.members.quit(nick)
        self._gone(nick)

    def _on_account(self, _conn: ServerConnection, event: Event) -> None:
        nick = NickMask(event.source).nick
        self.accounts.set(nick, event.target)
        self.referee.people.saw(nick, self._sender(event).identity)

    # -- messages -----------------------------------------------------------------------

    def _sender(self, event: Event) -> Sender:
        source = NickMask(event.source)
        tags = {t["key"]: t.get("value") for t in (event.tags or [])}
        # only the tag on this very line says who is logged in: a line without it is from
        # someone who is not, whatever nick they use (the map is for naming people only)
        account = tags.get("account") if "account-tag" in self._caps else None
        user_host = f"{source.user}@{source.host}"
        return Sender(nick=source.nick[:64], account=account, mask=str(source), host=user_host)

    def _allowed(self, sender: Sender, what: str) -> bool:
        """Whether a command (or CTCP request) from ``sender`` goes on: not from someone
        the bot ignores, and within the pace; the first one dropped in a minute earns
        one slow-down notice."""
        if self.referee.is_ignored(sender):
            return False
        if self.pace.allowed(sender.identity):
            return True
        log.warning("rate limit: dropped %r from %s", what[:40], sender.identity)
        if self.pace.tell(sender.identity):
            self.outbox.message(sender.nick, self.pace.notice, Priority.CHATTER, "NOTICE")
        return False

    def _incoming(self, event: Event, channel: str | None) -> None:
        text = event.arguments[0] if event.arguments else ""
        sender = self._sender(event)
        msg = Incoming(sender=sender, text=text, channel=channel)
        if not (msg.text.startswith((self.referee.config.command_prefix, "/rol"))):
            return
        shown = "!mod login ..." if msg.text.lower().startswith("!mod login") else msg.text
        if not self._allowed(sender, shown):
            return
        self.lanes.run(self.referee.writes(msg), lambda: self._guard(
            lambda: self.referee.handle(msg)), self._deliver)

    def _on_pubmsg(self, _conn: ServerConnection, event: Event) -> None:
        self._incoming(event, event.target)

    def _on_privmsg(self, _conn: ServerConnection, event: Event) -> None:
        self._incoming(event, None)

    def _on_ctcp(self, _conn: ServerConnection, event: Event) -> None:
        if not event.arguments or event.arguments[0].upper() != "VERSION":
            return
        sender = self._sender(event)
        if not self._allowed(sender, "CTCP VERSION"):  # the budget of their commands
            return
        self.outbox.message(sender.nick, f"\x01VERSION {VERSION}\x01", Priority.CHATTER,
                            "NOTICE")

    # -- the link -----------------------------------------------------------------------

    def _on_error(self, _conn: ServerConnection, event: Event) -> None:
        self._farewell = event.target or " ".join(event.arguments) or None

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
