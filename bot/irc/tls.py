"""TLS for the IRC link: the client context and certificate pinning.

Without a pin the server's certificate and host name are checked against the system's
certificate authorities, or only against ``tls_ca_file`` when it is set. With a pin
(``tls_fingerprint``, the SHA-256 of the server's DER certificate) the chain and the
name are not checked: the certificate is accepted if and only if its fingerprint
matches, which ``connector`` checks right after the handshake, before the library can
send a byte (PASS, NICK and USER go out only once the connector has returned).
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import ssl
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["TlsRefused", "connector", "context", "fingerprint", "parse_fingerprint"]

_HEX64 = re.compile(r"[0-9a-f]{64}")


class TlsRefused(Exception):
    """The server's certificate was refused; the message says why."""


def parse_fingerprint(text: str) -> str:
    """A SHA-256 fingerprint as 64 lower-case hex digits (colons and case ignored)."""
    digits = text.strip().replace(":", "").lower()
    if not _HEX64.fullmatch(digits):
        raise ValueError(f"{text!r} is not a SHA-256 fingerprint (64 hex digits, colons "
                         "allowed)")
    return digits


def fingerprint(der: bytes) -> str:
    """The SHA-256 fingerprint of a DER certificate, as ``parse_fingerprint`` gives it."""
    return hashlib.sha256(der).hexdigest()


def context(*, ca_file: str | None = None, pinned: bool = False,
            client_cert: str | None = None, client_key: str | None = None) -> ssl.SSLContext:
    """The client context: verifying (system CAs or ``ca_file`` only), or with
    ``pinned`` none of that (the caller checks the fingerprint); with the client
    certificate when given. Raises ``OSError`` or ``ssl.SSLError`` for unusable files."""
    if pinned:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    else:
        ctx = ssl.create_default_context(cafile=ca_file)
    if client_cert:
        ctx.load_cert_chain(client_cert, client_key)
    return ctx


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
