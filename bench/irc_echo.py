"""A bare echo bot on the referee's own IRC library: the baseline of the IRC benchmark.

    python bench/irc_echo.py [--host H] [--port P] [--nick N] [--channel C]

It is built the way ``bot/irc/supervisor.py`` builds the referee's session, minus the referee:
an ``irc.client_aio`` ``AioReactor`` and ``AioConnection`` inside the running asyncio
loop, ``LenientDecodingLineBuffer`` for input, the plain ``AioFactory`` connection. It
skips everything else: no CAP negotiation, no SASL, no keepalive, no send queue or
pacing, no per-player limit, no referee. On the welcome it JOINs its one channel; when a
channel message is exactly the trigger (``!roll 1d6``), it answers at once with a fixed
PRIVMSG through ``conn.privmsg`` from inside the library's event handler.

``bench/irc_latency.py`` times it next to the referee; the ratio of the two is the
referee's own overhead over what the library and the server cost anyway.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib

from irc.client import Event, NickMask, ServerConnection
from irc.client_aio import AioReactor
from irc.connection import AioFactory
from jaraco.stream.buffer import LenientDecodingLineBuffer

__all__ = ["TRIGGER", "EchoBot"]

TRIGGER = "!roll 1d6"


class EchoBot:
    """Answers ``trigger`` in ``channel`` with ``reply``; nothing else."""

    def __init__(self, host: str, port: int, *, nick: str = "Echo", channel: str = "#bench",
                 trigger: str = TRIGGER, reply: str = "rolls 1d6 = [3] = 3") -> None:
        self.host, self.port, self.nick = host, port, nick
        self.channel, self.trigger, self.reply = channel, trigger, reply
        self.connection: ServerConnection | None = None
        self.joined = asyncio.Event()
        """Set once the server echoed our own JOIN: from then on we answer."""
        self.closed = asyncio.Event()
        self.answered = 0

    async def start(self, timeout: float = 10.0) -> EchoBot:
        """Connect, register and join; returns once in the channel."""
        reactor = AioReactor(loop=asyncio.get_running_loop())
        conn = reactor.server()
        conn.buffer_class = LenientDecodingLineBuffer
        reactor.add_global_handler("welcome", self._on_welcome)
        reactor.add_global_handler("join", self._on_join)
        reactor.add_global_handler("pubmsg", self._on_pubmsg)
        reactor.add_global_handler("disconnect", self._on_disconnect)
        self.connection = conn
        await asyncio.wait_for(
            conn.connect(self.host, self.port, self.nick, username=self.nick.lower(),
                         ircname="echo baseline", connect_factory=AioFactory()),
            timeout)
        await asyncio.wait_for(self.joined.wait(), timeout)
        return self

    def stop(self) -> None:
        conn = self.connection
        if conn is not None and conn.is_connected():
            with contextlib.suppress(Exception):  # the transport may already be gone
                conn.disconnect("echo stopping")
        self.closed.set()

    async def __aenter__(self) -> EchoBot:
        return await self.start()

    async def __aexit__(self, *_exc: object) -> None:
        self.stop()

    # -- handlers (called by the reactor from the protocol's data_received)

    def _on_welcome(self, conn: ServerConnection, _event: Event) -> None:
        conn.join(self.channel)

    def _on_join(self, conn: ServerConnection, event: Event) -> None:
        if NickMask(event.source).nick == conn.get_nickname():
            self.joined.set()

    def _on_pubmsg(self, conn: ServerConnection, event: Event) -> None:
        if event.arguments and event.arguments[0] == self.trigger:
            conn.privmsg(event.target, self.reply)
            self.answered += 1

    def _on_disconnect(self, _conn: ServerConnection, _event: Event) -> None:
        self.closed.set()


async def _serve(args: argparse.Namespace) -> None:
    bot = await EchoBot(args.host, args.port, nick=args.nick, channel=args.channel).start()
    try:
        await bot.closed.wait()
    finally:
        bot.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=6667)
    parser.add_argument("--nick", default="Echo")
    parser.add_argument("--channel", default="#bench")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(parser.parse_args(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
