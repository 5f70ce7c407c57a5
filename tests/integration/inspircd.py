"""InspIRCd 3 with a fake services server, for the IRCv3 account tests (not a test).

``InspircdServer`` runs Debian's InspIRCd 3 (``apt-get install inspircd``) on two free
ports of 127.0.0.1 with a throwaway config: a client port, and a server port where
``FakeServices`` links as the U-lined ``services.test``. The config loads ``cap``,
``ircv3`` (account-notify, extended-join), ``ircv3_accounttag``, ``services_account``
and ``sasl``, so a client can be logged into a services account without a services
daemon: ``server.services.login("alice", "AliceAcct")``. Flood limits are lifted by
default (the identity tests are about identity, not pacing); ``lift_flood_limits=False``
keeps InspIRCd's default connect class: recvq 4096 bytes, softsendq 4096, threshold 10
penalty units, commandrate 1000 (one unit a second), fakelag on. With ``tls_cert`` and
``tls_key`` it also has a TLS client port (``tls_port``, ssl_gnutls and sslinfo) that
asks for client certificates, for SASL EXTERNAL.

InspIRCd refuses to run as root: started by root it runs as ``nobody`` (the temporary
directory is handed to that user), started by anyone else it runs as them. The process
is InspIRCd itself (``--nofork``), so ``stop`` signals the server, not a wrapper.

Two things InspIRCd does differently from ngircd, seen in the probe:

* A client's 001 may come about a second after NICK and USER (InspIRCd completes some
  registrations in its once-a-second housekeeping): connect clients concurrently.
* A login set by services (METADATA) reaches the user as a 900 numeric and the users
  sharing a channel as ACCOUNT (account-notify); ``login`` does not watch for either but
  waits for a PING/PONG round trip on the link, after which the ircd has applied it.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

from ircserver import SERVER_NAME, free_port

INSPIRCD_ENV = "ANCATH_TEST_INSPIRCD"
"""Optional path of the inspircd binary; otherwise ``PATH`` and the usual sbin dirs."""

MODULE_DIR = "/usr/lib/inspircd/modules"
SERVICES_NAME = "services.test"
SERVICES_SID = "0SV"
LINK_PASSWORD = "linkpass"
PROTOCOL = 1205  # InspIRCd 3's spanningtree protocol
_SBIN_DIRS = ("/usr/sbin", "/usr/local/sbin", "/sbin")
_UNPRIVILEGED = "nobody"


def find_inspircd() -> str | None:
    """The inspircd binary (Debian installs it in /usr/sbin, often not on a user's PATH)."""
    configured = os.environ.get(INSPIRCD_ENV)
    if configured:  # only this one then; a wrong path counts as "not installed"
        return configured if os.access(configured, os.X_OK) else None
    found = shutil.which("inspircd")
    if found:
        return found
    for directory in _SBIN_DIRS:
        candidate = Path(directory) / "inspircd"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def _accepts(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


# --------------------------------------------------------------------------- services


class FakeServicesError(RuntimeError):
    pass


@dataclass(frozen=True)
class SaslAttempt:
    """One SASL exchange the fake services answered (EXTERNAL: ``account`` is the one
    the certificate's fingerprint maps to, or '')."""

    uuid: str
    account: str
    ok: bool
    mechanism: str = "PLAIN"


class FakeServices:
    """A services server that speaks just enough of spanningtree protocol 1205.

    It links as a U-lined server, learns nick -> UUID from the ircd's burst and later
    UID/NICK/QUIT lines, sets or clears accounts with ``METADATA <uuid> accountname``,
    and answers SASL PLAIN (m_sasl forwards ``AUTHENTICATE`` as ``ENCAP <sid> SASL``)
    against ``passwords`` and EXTERNAL (m_sasl adds the client certificate's
    fingerprint from m_sslinfo) against ``certfps``. It runs a reader thread, so its
    methods are blocking: call them from async tests with ``asyncio.to_thread``.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        name: str = SERVICES_NAME,
        sid: str = SERVICES_SID,
        password: str = LINK_PASSWORD,
    ) -> None:
        self.host, self.port = host, port
        self.name, self.sid, self.password = name, sid, password
        self.passwords: dict[str, str] = {}
        """SASL PLAIN: account -> password."""
        self.certfps: dict[str, str] = {}
        """SASL EXTERNAL: client certificate SHA-256 (lower-case hex) -> account."""
        self.sasl_attempts: list[SaslAttempt] = []
        self.log: list[str] = []
        """Every line, ``>> `` sent and ``<< `` received (for failure messages)."""
        self.ircd_sid = "001"
        """The linked ircd's server id (from its SERVER line)."""
        self.linked = threading.Event()
        self.closed = threading.Event()
        self._uuids: dict[str, str] = {}  # lower-case nick -> UUID
        self._sasl: dict[str, str] = {}  # UUID -> mechanism in progress
        self._sasl_fp: dict[str, str] = {}  # UUID -> certificate fingerprint (EXTERNAL)
        self._pongs = 0
        self._changed = threading.Condition()  # guards _uuids, _pongs, sasl_attempts
        self._sync_lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._reader: threading.Thread | None = None

    # -- link

    def start(self, timeout: float = 5.0) -> Self:
        """Connect, introduce ourselves and return once both bursts are over."""
        self._sock = socket.create_connection((self.host, self.port), timeout=timeout)
        self._sock.settimeout(None)
        self._send(f"CAPAB START {PROTOCOL}")
        self._send("CAPAB CAPABILITIES :CASEMAPPING=rfc1459")
        self._send("CAPAB END")
        self._send(f"SERVER {self.name} {self.password} 0 {self.sid} :Fake services")
        self._reader = threading.Thread(target=self._read, name="fake-services", daemon=True)
        self._reader.start()
        if not self.linked.wait(timeout):
            self.close()
            raise FakeServicesError(f"the link did not come up:\n{self.recent()}")
        return self

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=5)
        self.closed.set()

    def recent(self, count: int = 30) -> str:
        return "\n".join(self.log[-count:]) or "(nothing)"

    def _send(self, line: str) -> None:
        sock = self._sock
        if sock is None:
            raise FakeServicesError("not linked")
        with self._send_lock:
            self.log.append(">> " + line)
            sock.sendall(line.encode() + b"\r\n")

    def _read(self) -> None:
        buffer = b""
        sock = self._sock
        try:
            while sock is not None:
                data = sock.recv(65536)
                if not data:
                    break
                buffer += data
                while b"\n" in buffer:
                    raw, _, buffer = buffer.partition(b"\n")
                    self._handle(raw.rstrip(b"\r").decode("utf-8", "replace"))
        except OSError:
            pass
        finally:
            self.log.append("-- closed")
            self.closed.set()
            with self._changed:
                self._changed.notify_all()

    def _handle(self, line: str) -> None:
        self.log.append("<< " + line)
        words = line.split(" ")
        if words and words[0].startswith("@"):  # tags on relayed lines
            words.pop(0)
        source = words.pop(0)[1:] if words and words[0].startswith(":") else None
        if not words:
            return
        command, args = words[0].upper(), words[1:]
        if command == "SERVER" and source is None:
            # the ircd's answer: SERVER <name> <password> 0 <sid> :<description>;
            # now burst our (empty) side of the network
            self.ircd_sid = args[3] if len(args) >= 4 else self.ircd_sid
            self._send(f":{self.sid} BURST {int(time.time())}")
            self._send(f":{self.sid} ENDBURST")
        elif command == "ENDBURST":
            self.linked.set()
        elif command == "PING" and source:
            self._send(f":{self.sid} PONG {source}")  # :<sid> PING <us> -> :<us> PONG <sid>
        elif command == "PONG":
            with self._changed:
                self._pongs += 1
                self._changed.notify_all()
        elif command == "UID" and len(args) >= 3:
            # :<sid> UID <uuid> <nickts> <nick> <host> <dhost> <ident> <ip> <signon> ...
            with self._changed:
                self._uuids[args[2].lower()] = args[0]
                self._changed.notify_all()
        elif command == "NICK" and source and args:
            with self._changed:
                self._drop_uuid(source)
                self._uuids[args[0].lower()] = source
                self._changed.notify_all()
        elif command == "QUIT" and source:
            with self._changed:
                self._drop_uuid(source)
        elif command == "ENCAP" and len(args) >= 5 and args[1] == "SASL":
            # :<ircd sid> ENCAP <us> SASL <uuid> <target> <mode> <data...>
            self._sasl_step(source or "*", args[2], args[4], args[5:])

    def _drop_uuid(self, uuid: str) -> None:
        for nick in [n for n, u in self._uuids.items() if u == uuid]:
            del self._uuids[nick]

    def _sasl_step(self, origin: str, uuid: str, mode: str, data: list[str]) -> None:
        reply = f":{self.sid} ENCAP {origin} SASL {self.sid} {uuid}"
        if mode == "S":  # start, with the mechanism
            if data[:1] == ["PLAIN"]:
                self._sasl[uuid] = "PLAIN"
                self._send(f"{reply} C +")
            elif data[:1] == ["EXTERNAL"] and len(data) > 1:  # m_sslinfo's fingerprint
                self._sasl[uuid], self._sasl_fp[uuid] = "EXTERNAL", data[1]
                self._send(f"{reply} C +")
            else:
                self._send(f"{reply} M PLAIN,EXTERNAL")
                self._send(f"{reply} D F")
        elif mode == "C" and self._sasl.get(uuid) == "EXTERNAL":  # authzid, or + for none
            account = self.certfps.get(self._sasl_fp.get(uuid, ""), "")
            ok = bool(account) and data[:1] == ["+"]
            self._finish(reply, SaslAttempt(uuid, account, ok, "EXTERNAL"))
        elif mode == "C" and self._sasl.get(uuid) == "PLAIN":  # the client's response
            try:
                authzid, authcid, password = (
                    base64.b64decode(data[0], validate=True).decode().split("\0"))
            except (IndexError, ValueError, binascii.Error):
                self._send(f"{reply} D F")
                return
            account = authcid or authzid
            ok = self.passwords.get(account) == password
            self._finish(reply, SaslAttempt(uuid, account, ok))
        elif mode == "D":  # done: the ircd ends the exchange (abort included)
            self._sasl.pop(uuid, None)
            self._sasl_fp.pop(uuid, None)

    def _finish(self, reply: str, attempt: SaslAttempt) -> None:
        with self._changed:
            self.sasl_attempts.append(attempt)
            self._changed.notify_all()
        if attempt.ok:
            self._send(f":{self.sid} METADATA {attempt.uuid} accountname :{attempt.account}")
            self._send(f"{reply} D S")
        else:
            self._send(f"{reply} D F")

    # -- what tests call

    def wait_for(self, condition: Callable[[], bool], timeout: float = 5.0) -> None:
        """Block until ``condition()`` (checked under the lock, after each change)."""
        with self._changed:
            if not self._changed.wait_for(lambda: condition() or self.closed.is_set(),
                                          timeout):
                raise TimeoutError(f"fake services: condition not met:\n{self.recent()}")
            if not condition():
                raise FakeServicesError(f"the link closed:\n{self.recent()}")

    def uuid(self, nick: str, timeout: float = 5.0) -> str:
        """The UUID of a user the ircd introduced (waits for its UID line)."""
        key = nick.lower()
        self.wait_for(lambda: key in self._uuids, timeout)
        with self._changed:
            return self._uuids[key]

    def sync(self, timeout: float = 5.0) -> None:
        """A PING/PONG round trip: whatever we sent before it has been applied."""
        with self._sync_lock:
            with self._changed:
                seen = self._pongs
            self._send(f":{self.sid} PING {self.ircd_sid}")
            self.wait_for(lambda: self._pongs > seen, timeout)

    def login(self, nick: str, account: str, timeout: float = 5.0) -> None:
        """Log ``nick`` into ``account``, as services would after IDENTIFY; returns once
        the ircd has applied it (sent ACCOUNT to account-notify users, tags lines)."""
        self._send(f":{self.sid} METADATA {self.uuid(nick, timeout)} accountname :{account}")
        self.sync(timeout)

    def offer_mechanisms(self, *mechanisms: str, timeout: float = 5.0) -> None:
        """Tell the ircd which SASL mechanisms we take: clients see ``sasl=A,B``."""
        self._send(f":{self.sid} METADATA * saslmechlist :{','.join(mechanisms)}")
        self.sync(timeout)

    def logout(self, nick: str, timeout: float = 5.0) -> None:
        self._send(f":{self.sid} METADATA {self.uuid(nick, timeout)} accountname :")
        self.sync(timeout)


# --------------------------------------------------------------------------- server


class InspircdError(RuntimeError):
    pass


class InspircdServer:
    """One InspIRCd on ``host:port`` with ``services`` linked on ``link_port``.

    ``start()`` returns once the client port accepts and (unless ``link_services`` is
    False) the fake services' link is up. ``log_text()`` gives InspIRCd's output and
    log file for failure messages.
    """

    def __init__(
        self,
        *,
        binary: str | None = None,
        host: str = "127.0.0.1",
        name: str = SERVER_NAME,
        link_services: bool = True,
        lift_flood_limits: bool = True,
        tls_cert: Path | None = None,
        tls_key: Path | None = None,
    ) -> None:
        found = binary or find_inspircd()
        if found is None:
            raise InspircdError("inspircd is not installed (apt-get install inspircd)")
        self.binary = found
        self.host = host
        self.port = free_port(host)
        self.link_port = free_port(host)
        self.name = name
        self.link_services = link_services
        self.lift_flood_limits = lift_flood_limits
        self.services: FakeServices | None = None
        self.directory = Path(tempfile.mkdtemp(prefix="ancath-inspircd-"))
        self.config_path = self.directory / "inspircd.conf"
        self.log_path = self.directory / "inspircd.log"
        self.output_path = self.directory / "output.log"
        self._process: subprocess.Popen[bytes] | None = None
        self._user: pwd.struct_passwd | None = None
        if os.geteuid() == 0:  # InspIRCd will not run as root
            self._user = pwd.getpwnam(_UNPRIVILEGED)
            os.chown(self.directory, self._user.pw_uid, self._user.pw_gid)
        self.tls_port: int | None = None
        """With a certificate and key: a TLS client port (ssl_gnutls), whose client
        certificates' SHA-256 fingerprints m_sslinfo hands to SASL EXTERNAL."""
        if tls_cert and tls_key:
            self.tls_port = free_port(host)
            self._write(self.directory / "tls.pem", tls_cert.read_text())
            self._write(self.directory / "tls.key", tls_key.read_text())

    # -- config

    def config_text(self) -> str:
        d = self.directory
        # Only the flood limits differ: many clients from 127.0.0.1 are allowed either way.
        limits = ('hardsendq="1048576" softsendq="65536" recvq="65536"\n         '
                  'threshold="100" commandrate="100000"' if self.lift_flood_limits
                  else "")
        return f"""\
# ancath test server: IRCv3 accounts set by a fake services server ({SERVICES_NAME})
<server name="{self.name}" description="ancath test server" network="TestNet" id="001">
<admin name="test" nick="test" email="tests@irc.test">
<bind address="{self.host}" port="{self.port}" type="clients">
<bind address="{self.host}" port="{self.link_port}" type="servers">
<path moduledir="{MODULE_DIR}" configdir="{d}" datadir="{d}" logdir="{d}" runtimedir="{d}">
<pid file="{d}/inspircd.pid">
<files motd="{d}/motd.txt">
<connect name="main" allow="*" timeout="60" pingfreq="120"
         localmax="1000" globalmax="1000" useident="no" resolvehostnames="no" limit="5000"
         {limits}>
<dns server="127.0.0.1" timeout="1">
<options prefixquit="Quit: " announcets="yes" hostintopic="yes">
<security hideserver="" userstats="Pu" flatlinks="no" hidesplits="no" hideulines="no"
          hidebans="no" maxtargets="20">
<performance quietbursts="yes" softlimit="1024" somaxconn="128">
<log method="file" type="* -USERINPUT -USEROUTPUT" level="default" target="{self.log_path}">

<module name="cap">
<module name="ircv3">
<ircv3 accountnotify="yes" awaynotify="yes" extendedjoin="yes">
<module name="ircv3_accounttag">
<module name="ircv3_servertime">
<module name="ircv3_capnotify">
<module name="services_account">
<module name="spanningtree">
<link name="{SERVICES_NAME}" ipaddr="{self.host}" port="{self.link_port}"
      allowmask="127.0.0.0/8" sendpass="{LINK_PASSWORD}" recvpass="{LINK_PASSWORD}"
      hidden="no">
<uline server="{SERVICES_NAME}" silent="yes">
<module name="sasl">
<sasl target="{SERVICES_NAME}" requiressl="no">
""" + (self._tls_config() if self.tls_port else "")

    def _tls_config(self) -> str:
        d = self.directory
        return f"""\
<module name="ssl_gnutls">
<module name="sslinfo">
<sslprofile name="clients" provider="gnutls" certfile="{d}/tls.pem" keyfile="{d}/tls.key"
            hash="sha256" requestclientcert="yes">
<bind address="{self.host}" port="{self.tls_port}" type="clients" sslprofile="clients">
"""

    def _write(self, path: Path, text: str) -> None:
        path.write_text(text)
        if self._user is not None:
            os.chown(path, self._user.pw_uid, self._user.pw_gid)

    # -- lifecycle

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def log_text(self) -> str:
        parts = []
        for path in (self.output_path, self.log_path):
            with contextlib.suppress(FileNotFoundError):
                parts.append(f"---- {path.name}\n" + path.read_text(errors="replace"))
        return "\n".join(parts)

    def start(self, timeout: float = 10.0) -> Self:
        """Start InspIRCd (new free ports if a chosen one was taken meanwhile), then
        link the fake services."""
        if self.running:
            raise InspircdError(f"inspircd is already running on port {self.port}")
        for attempt in range(3):
            try:
                self._start_once(timeout)
                break
            except InspircdError:
                if attempt == 2:
                    raise
                self.port, self.link_port = free_port(self.host), free_port(self.host)
                if self.tls_port is not None:
                    self.tls_port = free_port(self.host)
        if self.link_services:
            self.services = FakeServices(self.host, self.link_port)
            try:
                self.services.start(timeout)
            except (OSError, FakeServicesError) as error:
                self.stop()
                raise InspircdError(f"{error}\n{self.log_text()}") from error
        return self

    def _start_once(self, timeout: float) -> None:
        self._write(self.config_path, self.config_text())
        self._write(self.directory / "motd.txt", "ancath test server\n")
        with self.output_path.open("ab") as output:
            output.write(f"==== start on {self.host}:{self.port}/{self.link_port}\n".encode())
            output.flush()
            user = self._user
            self._process = subprocess.Popen(
                [self.binary, "--config", str(self.config_path), "--nofork", "--nopid"],
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C in pytest does not reach it first
                # as root: exec as nobody, so the PID is InspIRCd's own (no wrapper)
                user=user.pw_uid if user else None,
                group=user.pw_gid if user else None,
                extra_groups=[] if user else None,
            )
        deadline = time.monotonic() + timeout
        delay = 0.001
        while True:
            assert self._process is not None
            if self._process.poll() is not None:
                code = self._process.returncode
                self._process = None
                raise InspircdError(
                    f"inspircd exited with {code} before listening on {self.port}:\n"
                    + self.log_text())
            ports = (self.port, self.link_port, self.tls_port)
            if all(_accepts(self.host, port) for port in ports if port is not None):
                return
            if time.monotonic() >= deadline:
                self.stop()
                raise InspircdError(
                    f"inspircd did not listen on {self.host}:{self.port} within "
                    f"{timeout}s:\n" + self.log_text())
            time.sleep(delay)  # polling the ports, not waiting for a guessed time
            delay = min(delay * 2, 0.05)

    def stop(self, timeout: float = 10.0) -> None:
        """Unlink the services, then stop InspIRCd (SIGTERM, then SIGKILL)."""
        services, self.services = self.services, None
        if services is not None:
            services.close()
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout)

    def close(self) -> None:
        """Stop the server and remove its temporary directory."""
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> Self:
        return self.start() if not self.running else self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<InspircdServer {self.host}:{self.port} link {self.link_port} {state}>"
