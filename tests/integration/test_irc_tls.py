"""TLS to a club's own server with a certificate no system CA signed: Debian's ngircd
with TLS on a second port, a throwaway CA and server certificate (tests/integration/
certs.py), and InspIRCd 3 with fake services for SASL EXTERNAL.

The bot connects when it trusts the CA (``tls_ca_file``) or pins the certificate
(``tls_fingerprint``); with neither, or a wrong pin, it logs why, never registers and
sends nothing. Every wait is on an event or the bot's state, never a sleep.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from certs import Certs, have_openssl, make_certs, openssl_fingerprint
from inspircd import InspircdServer
from ircbot import BOT_NICK, bot_on, player, until
from ircserver import NgircdServer

pytestmark = pytest.mark.skipif(not have_openssl(), reason="needs the openssl CLI")


@pytest.fixture
def certs(tmp_path: Path) -> Certs:
    return make_certs(tmp_path / "certs")


@pytest.fixture
def tls_ngircd(ngircd_binary: str, certs: Certs) -> Iterator[NgircdServer]:
    server = NgircdServer(binary=ngircd_binary, tls_cert=certs.server_cert,
                          tls_key=certs.server_key)
    server.start()
    try:
        yield server
    finally:
        server.close()


def tls_of(server: NgircdServer | InspircdServer, **irc: object) -> dict[str, object]:
    assert server.tls_port is not None
    return {"port": server.tls_port, "tls": True, **irc}


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize("trust", ["ca_file", "fingerprint"])
def test_the_bot_connects_trusting_the_ca_or_pinning_the_certificate(
    tls_ngircd: NgircdServer, certs: Certs, tmp_path: Path, trust: str,
) -> None:
    pin = openssl_fingerprint(certs.server_cert)  # AB:CD:... as openssl prints it
    irc = ({"tls_ca_file": str(certs.ca)} if trust == "ca_file"
           else {"tls_fingerprint": pin})

    async def scenario() -> None:
        async with bot_on(tls_ngircd, tmp_path, **tls_of(tls_ngircd, **irc)) as run:
            ann = await player(tls_ngircd, "ann")  # plain port: the same network
            run.dice.push(1)
            await ann.say("#arena", "!roll 1d1")
            line = await ann.expect(lambda x: x.command == "PRIVMSG" and x.nick == BOT_NICK)
            assert "ann rolls 1d1" in line.text
            assert run.bot.connection is not None
            tls = run.bot.connection.transport.get_extra_info("ssl_object")
            assert isinstance(tls, ssl.SSLObject) and tls.version() is not None
            await ann.quit()
    asyncio.run(scenario())
    assert f'User "{BOT_NICK}!' in tls_ngircd.log_text()


@pytest.mark.parametrize("trust", ["system_cas", "wrong_fingerprint"])
def test_an_untrusted_certificate_is_refused_before_anything_is_sent(
    tls_ngircd: NgircdServer, certs: Certs, tmp_path: Path, trust: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    right = openssl_fingerprint(certs.server_cert).replace(":", "").lower()
    wrong = ("0" if right[0] != "0" else "1") + right[1:]
    irc = {"tls_fingerprint": wrong} if trust == "wrong_fingerprint" else {}
    reason = (f"certificate fingerprint is {right}, expected {wrong}"
              if trust == "wrong_fingerprint"
              else "certificate not trusted: unable to get local issuer certificate")
    caplog.set_level(logging.INFO, logger="ancath.irc")

    async def scenario() -> None:
        async with bot_on(tls_ngircd, tmp_path, joined=False,
                          **tls_of(tls_ngircd, **irc)) as run:
            # refused, then refused again on the reconnect: it keeps trying, never sends
            await until(lambda: len(errors(caplog)) >= 2)
            assert run.bot.sessions == 0 and not run.bot.connected.is_set()
    asyncio.run(scenario())
    expected = (f"TLS: refused the certificate of 127.0.0.1:{tls_ngircd.tls_port} "
                f"(nothing sent): {reason}")
    assert errors(caplog)[:2] == [expected, expected]
    log = tls_ngircd.log_text()
    assert f'User "{BOT_NICK}!' not in log, log
    # a pin is checked after the handshake; the system CAs fail it
    assert ("initialized TLS" in log) == (trust == "wrong_fingerprint"), log


def test_a_pin_mismatch_sends_not_one_byte(certs: Certs, tmp_path: Path,
                                           caplog: pytest.LogCaptureFixture) -> None:
    """Byte-exact: a TLS listener with the same certificate counts what arrives."""
    caplog.set_level(logging.INFO, logger="ancath.irc")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certs.server_cert, certs.server_key)
    received: list[bytes] = []

    async def scenario() -> None:
        done = asyncio.Event()

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            data = b""
            with contextlib.suppress(ConnectionError):  # the bot aborts the link
                while chunk := await reader.read(4096):
                    data += chunk
            received.append(data)
            writer.close()
            done.set()

        listener = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=context)
        address = SimpleNamespace(host="127.0.0.1", port=listener.sockets[0].getsockname()[1])
        async with listener, bot_on(address, tmp_path, joined=False, tls=True,
                                    tls_fingerprint="ab" * 32):
            await asyncio.wait_for(done.wait(), 10)
            await until(lambda: bool(errors(caplog)))
    asyncio.run(scenario())
    assert received[0] == b""
    assert "expected " + "ab" * 32 in errors(caplog)[0]


# -- SASL EXTERNAL on InspIRCd 3 (m_sasl, ssl_gnutls, sslinfo) ------------------------


@pytest.fixture
def tls_inspircd(inspircd_binary: str, certs: Certs) -> Iterator[InspircdServer]:
    server = InspircdServer(binary=inspircd_binary, tls_cert=certs.server_cert,
                            tls_key=certs.server_key)
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.mark.parametrize("registered", [True, False], ids=["known-cert", "unknown-cert"])
def test_sasl_external_logs_in_with_the_client_certificate(
    tls_inspircd: InspircdServer, certs: Certs, tmp_path: Path, registered: bool,
    caplog: pytest.LogCaptureFixture,
) -> None:
    services = tls_inspircd.services
    assert services is not None
    fingerprint = openssl_fingerprint(certs.client_cert).replace(":", "").lower()
    if registered:
        services.certfps[fingerprint] = "RefAcct"
    caplog.set_level(logging.INFO, logger="ancath.irc")
    irc = tls_of(tls_inspircd, tls_ca_file=str(certs.ca), sasl_mechanism="EXTERNAL",
                 tls_client_cert=str(certs.client_cert),
                 tls_client_key=str(certs.client_key))

    async def scenario() -> None:
        ann_joining = asyncio.create_task(player(tls_inspircd, "ann"))
        async with bot_on(tls_inspircd, tmp_path, **irc) as run:
            assert run.bot.connected.is_set() and run.bot.nick == BOT_NICK
            ann = await ann_joining
            await ann.send_raw(f"WHOIS {BOT_NICK}")
            end = await ann.expect(lambda x: x.command in {"330", "318"})
            assert (end.params[2] if end.command == "330" else None) == (
                "RefAcct" if registered else None)
    asyncio.run(scenario())
    attempts = [(a.account, a.ok, a.mechanism) for a in services.sasl_attempts]
    assert attempts == [("RefAcct" if registered else "", registered, "EXTERNAL")]
    if registered:
        assert "SASL: logged in as the certificate's account" in caplog.text
    else:
        assert errors(caplog) == [
            f"SASL EXTERNAL failed (saslfail): is the fingerprint of {certs.client_cert} "
            "registered with services?"]


def test_sasl_external_is_not_tried_where_the_server_lists_only_plain(
    tls_inspircd: InspircdServer, certs: Certs, tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``sasl`` is requested, then the bot quits before it registers (issue 32, item
    11: ``irc.sasl_required``, the default) and tries again later."""
    services = tls_inspircd.services
    assert services is not None
    services.offer_mechanisms("PLAIN")
    caplog.set_level(logging.INFO, logger="ancath.irc")
    irc = tls_of(tls_inspircd, tls_ca_file=str(certs.ca), sasl_mechanism="EXTERNAL",
                 tls_client_cert=str(certs.client_cert),
                 tls_client_key=str(certs.client_key))

    async def scenario() -> None:
        async with bot_on(tls_inspircd, tmp_path, joined=False, **irc) as run:
            await until(lambda: "sasl" in run.bot._caps)
            await until(lambda: run.bot.sessions >= 2)
            assert not run.bot.connected.is_set() and not run.bot.session.registered
    asyncio.run(scenario())
    assert services.sasl_attempts == []
    assert errors(caplog)[0] == (
        "SASL EXTERNAL is configured but 127.0.0.1 offers only PLAIN: quitting, to try "
        "again later (set irc.sasl_mechanism to one it offers, or irc.sasl_required: "
        "false to go on without SASL)")
