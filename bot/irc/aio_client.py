"""One connection through the ``irc`` package's asyncio client (``irc.client_aio``), with
the defaults that break a bot fixed (docs/irc-notes.md#the-irc-package): a decoder that
survives a byte that is not UTF-8, every handler guarded so one failure never drops the
link, the reactor built inside the running loop, ``CAP LS 302`` written before NICK and
USER, and the library's own PING answer off (the session answers, bot/irc/session.py).
Of the library only the connection, its raw lines and its disconnect are used; the
supervisor (bot/irc/supervisor.py) keeps the timers, pacing and reconnects it lacks.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Mapping
from typing import Any

from irc.client import Event, ServerConnection, _ping_ponger
from irc.client_aio import AioReactor
from irc.connection import AioFactory
from jaraco.stream.buffer import LenientDecodingLineBuffer

from bot.config import IrcConfig
from bot.irc import tls
from bot.irc.line import Line

__all__ = ["Handler", "connect", "new_connection"]

log = logging.getLogger("ancath.irc")

Handler = Callable[[ServerConnection, Event], None]
_OPEN_CAPS = (Line("CAP", ["LS", "302"]).format() + "\r\n").encode()


def new_connection(handlers: Mapping[str, Handler]) -> ServerConnection:
    """A connection not yet open, each of ``handlers`` (by the library's event name:
    ``all_raw_messages``, ``disconnect``) guarded; called inside the running loop."""
    reactor = AioReactor(loop=asyncio.get_running_loop(), on_connect=_open_caps)
    conn = reactor.server()
    conn.buffer_class = LenientDecodingLineBuffer
    reactor.remove_global_handler("ping", _ping_ponger)  # the session answers PING
    for name, handler in handlers.items():
        reactor.add_global_handler(name, _guarded(handler))
    return conn


async def connect(conn: ServerConnection, config: IrcConfig, nick: str) -> None:
    """Open ``conn`` to the configured server as ``nick``, within ``connect_timeout``;
    TLS as bot/irc/tls.py makes it (a refused certificate raises ``TlsRefused`` before a
    byte is sent)."""
    factory: Any = AioFactory()
    if config.tls:  # the files are read again at each connect: renewals apply
        factory = tls.connector(config.tls_context(), config.server, config.tls_fingerprint)
    password = None
    if config.server_password_env:
        password = os.environ.get(config.server_password_env)
    log.info("connecting to %s:%s%s", config.server, config.port,
             " (TLS)" if config.tls else "")
    await asyncio.wait_for(
        conn.connect(config.server, config.port, nick, password=password,
                     username=config.username, ircname=config.realname,
                     connect_factory=factory),
        config.connect_timeout,
    )
    log.info("connected to %s:%s", config.server, config.port)


def _open_caps(_protocol: Any, transport: Any) -> None:
    """Before NICK/USER go out: open capability negotiation
    (docs/irc-notes.md#the-irc-package)."""
    transport.write(_OPEN_CAPS)


def _guarded(handler: Handler) -> Callable[..., None]:
    """``handler``, whose failure is logged, never raised into the library (where it
    would drop the connection)."""

    def guarded(conn: ServerConnection, event: Event) -> None:
        try:
            handler(conn, event)
        except Exception:
            log.exception("handler %s failed on %s", handler.__name__, event.type)

    return guarded
