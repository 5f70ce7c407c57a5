"""TLS for the IRC link: the connection, and the pin checked right after the handshake.

The context and the pin are the configuration's (bot/tls_settings.py). With a pin the
certificate is accepted if and only if its fingerprint matches, which ``connector``
checks right after the handshake, before the library can send a byte (PASS, NICK and
USER go out only once the connector has returned).
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable
from typing import Any

from bot.tls_settings import fingerprint

__all__ = ["TlsRefused", "connector"]


class TlsRefused(Exception):
    """The server's certificate was refused; the message says why."""


Connector = Callable[[Any, tuple[str, int]], Awaitable[tuple[Any, Any]]]
"""What ``irc.client_aio.AioConnection.connect`` takes as ``connect_factory``."""


def connector(ctx: ssl.SSLContext, server_hostname: str, pin: str | None) -> Connector:
    """A connect factory for the ``irc`` package: the TLS handshake, then the pin check.

    A refused certificate raises ``TlsRefused``: a failed verification with OpenSSL's
    reason, a pin mismatch with both fingerprints (the link is closed first)."""

    async def connect(protocol: Any, address: tuple[str, int]) -> tuple[Any, Any]:
        loop = asyncio.get_running_loop()
        try:
            transport, proto = await loop.create_connection(
                lambda: protocol, *address, ssl=ctx, server_hostname=server_hostname)
        except ssl.SSLCertVerificationError as error:
            raise TlsRefused(f"certificate not trusted: {error.verify_message}") from error
        if pin is not None:
            tls = transport.get_extra_info("ssl_object")
            der = tls.getpeercert(binary_form=True) if tls is not None else None
            got = fingerprint(der) if der else "no certificate"
            if got != pin:
                transport.abort()
                raise TlsRefused(f"certificate fingerprint is {got}, expected {pin}")
        return transport, proto

    return connect
