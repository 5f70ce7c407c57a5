"""TLS settings of the IRC link, as the configuration reads them: the client context
(checked when the configuration is loaded) and the server certificate's pin.

Without a pin the server's certificate and host name are checked against the system's
certificate authorities, or only against ``tls_ca_file`` when it is set. With a pin
(``tls_fingerprint``, the SHA-256 of the server's DER certificate) the chain and the
name are not checked: the transport accepts the certificate if and only if its
fingerprint matches (bot/irc/tls.py).
"""

from __future__ import annotations

import hashlib
import re
import ssl

__all__ = ["context", "fingerprint", "parse_fingerprint"]

_HEX64 = re.compile(r"[0-9a-f]{64}")


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
