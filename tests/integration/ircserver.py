"""A real IRC server and a plain asyncio IRC client for integration tests (not a test).

``NgircdServer`` runs Debian's ngircd on a free port of 127.0.0.1 with a throwaway
config: no DNS, Ident or PAM lookups, unlimited connections per IP, nicknames up to 30
characters, and ngircd's real penalties (about 3 lines/s per client, 2 s per error
reply, a disconnect for a line over 512 bytes). It splits lines at a lone CR, so a test
that smuggles ``\\r`` into a message sees what a real network would do.

``IrcClient`` is a test user: it registers, answers PING by itself, and keeps every line
it receives (``lines``) plus a queue of lines not yet consumed by ``expect``.

Tests are synchronous and drive the client with ``asyncio.run(...)``; every wait is on
an event with a timeout, never a fixed sleep.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self

NGIRCD_ENV = "ANCATH_TEST_NGIRCD"
"""Optional path of the ngircd binary; otherwise ``PATH`` and the usual sbin dirs."""

SERVER_NAME = "irc.test"
_SBIN_DIRS = ("/usr/sbin", "/usr/local/sbin", "/sbin")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() == "true"


def find_ngircd() -> str | None:
    """The ngircd binary (Debian installs it in /usr/sbin, often not on a user's PATH)."""
    configured = os.environ.get(NGIRCD_ENV)
    if configured:  # only this one then; a wrong path counts as "not installed"
        return configured if os.access(configured, os.X_OK) else None
    found = shutil.which("ngircd")
    if found:
        return found
    for directory in _SBIN_DIRS:
        candidate = Path(directory) / "ngircd"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


# --------------------------------------------------------------------------- server


class NgircdError(RuntimeError):
    pass


class NgircdServer:
    """One ngircd process on ``host:port``; ``stop()`` then ``start()`` reuses the port.

    ngircd started as root switches to ``nobody`` by itself; its config is read before
    that, so the private temporary directory is fine. Its log (stderr, ``--nodaemon``)
    goes to ``log_path``; ``log_text()`` returns it for failure messages.
    """

    def __init__(
        self,
        *,
        binary: str | None = None,
        host: str = "127.0.0.1",
        port: int | None = None,
        name: str = SERVER_NAME,
        max_nick_length: int = 30,
        max_penalty_time: int = -1,
        max_joins: int = 0,
        extra_options: dict[str, str] | None = None,
        tls_cert: Path | None = None,
        tls_key: Path | None = None,
    ) -> None:
        found = binary or find_ngircd()
        if found is None:
            raise NgircdError("ngircd is not installed (apt-get install ngircd)")
        self.binary = found
        self.host = host
        self.port = port if port is not None else free_port(host)
        self._port_fixed = port is not None
        self.name = name
        self.max_nick_length = max_nick_length
        self.max_penalty_time = max_penalty_time
        self.max_joins = max_joins
        """Channels a client may be in (ngircd's own default is 10); 0: no limit."""
        self.extra_options = dict(extra_options or {})
        self.tls = (tls_cert, tls_key) if tls_cert and tls_key else None
        """With a certificate and key, TLS on ``tls_port`` beside the plain port."""
        self.tls_port = free_port(host) if self.tls else None
        self.directory = Path(tempfile.mkdtemp(prefix="ancath-ngircd-"))
        self.config_path = self.directory / "ngircd.conf"
        self.log_path = self.directory / "ngircd.log"
        (self.directory / "conf.d").mkdir()
        self._process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    # -- config

    def config_text(self) -> str:
        options = {
            "DNS": "no",
            "Ident": "no",
            "PAM": "no",
            # an empty directory: never pick up /etc/ngircd/conf.d snippets
            "IncludeDir": str(self.directory / "conf.d"),
            **self.extra_options,
        }
        lines = [
            "[Global]",
            f"\tName = {self.name}",
            "\tInfo = ancath test server",
            "\tAdminInfo1 = ancath tests",
            "\tAdminInfo2 = localhost",
            "\tAdminEMail = tests@irc.test",
            f"\tListen = {self.host}",
            f"\tPorts = {self.port}",
            '\tMotdPhrase = "ancath test server"',
            "[Limits]",
            "\tMaxConnections = 0",
            "\tMaxConnectionsIP = 0",
            f"\tMaxJoins = {self.max_joins}",
            f"\tMaxNickLength = {self.max_nick_length}",
            f"\tMaxPenaltyTime = {self.max_penalty_time}",
            "[Options]",
            *(f"\t{key} = {value}" for key, value in options.items()),
        ]
        if self.tls:  # read at start, before ngircd drops root
            lines += ["[SSL]", f"\tCertFile = {self.tls[0]}", f"\tKeyFile = {self.tls[1]}",
                      f"\tPorts = {self.tls_port}"]
        return "\n".join(lines) + "\n"

    # -- lifecycle

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def start(self, timeout: float = 10.0) -> Self:
        """Start ngircd and return once its port accepts connections.

        The first start picks another free port if the chosen one was taken meanwhile;
        a restart keeps the port (ngircd binds with SO_REUSEADDR).
        """
        if self.running:
            raise NgircdError(f"ngircd is already running on port {self.port}")
        attempts = 1 if (self.starts or self._port_fixed) else 3
        for attempt in range(attempts):
            try:
                self._start_once(timeout)
            except NgircdError:
                if attempt + 1 == attempts:
                    raise
                self.port = free_port(self.host)
            else:
                self.starts += 1
                return self
        raise AssertionError("unreachable")

    def _start_once(self, timeout: float) -> None:
        self.config_path.write_text(self.config_text())
        with self.log_path.open("ab") as log:
            log.write(f"==== start on {self.host}:{self.port}\n".encode())
            log.flush()
            self._process = subprocess.Popen(
                [self.binary, "--nodaemon", "--passive", "--config", str(self.config_path)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C in pytest does not reach it first
            )
        deadline = time.monotonic() + timeout
        delay = 0.001
        while True:
            if self._process.poll() is not None:
                code = self._process.returncode
                self._process = None
                raise NgircdError(
                    f"ngircd exited with {code} before listening on {self.port}:\n"
                    + self.log_text()
                )
            if self._accepts():
                return
            if time.monotonic() >= deadline:
                self.stop()
                raise NgircdError(
                    f"ngircd did not listen on {self.host}:{self.port} within {timeout}s:\n"
                    + self.log_text()
                )
            time.sleep(delay)  # polling the port, not waiting for a guessed time
            delay = min(delay * 2, 0.05)

    def _accepts(self) -> bool:
        try:
            for port in (self.port, self.tls_port):
                if port is not None:
                    with socket.create_connection((self.host, port), timeout=0.5):
                        pass
        except OSError:
            return False
        return True

    def stop(self, timeout: float = 10.0) -> None:
        """Stop ngircd (SIGTERM, then SIGKILL); clients see their connection close."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout)

    def restart(self) -> Self:
        self.stop()
        return self.start()

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
        return f"<NgircdServer {self.host}:{self.port} {state}>"


# --------------------------------------------------------------------------- lines


def _unescape_tag(value: str) -> str:
    escapes = {":": ";", "s": " ", "\\": "\\", "r": "\r", "n": "\n"}
    out: list[str] = []
    chars = iter(value)
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            out.append(escapes.get(following, following))
        else:
            out.append(char)
    return "".join(out)


@dataclass(frozen=True)
class IrcLine:
    """One received line. ``raw`` is the decoded line without its CR LF."""

    prefix: str | None
    nick: str | None
    command: str
    params: tuple[str, ...]
    raw: str
    tags: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def user(self) -> str | None:
        if self.prefix is None or "!" not in self.prefix:
            return None
        return self.prefix.split("!", 1)[1].split("@", 1)[0]

    @property
    def host(self) -> str | None:
        if self.prefix is None or "@" not in self.prefix:
            return None
        return self.prefix.rsplit("@", 1)[1]

    @property
    def target(self) -> str | None:
        return self.params[0] if self.params else None

    @property
    def text(self) -> str:
        """The last parameter (the message of a PRIVMSG or NOTICE), or ''."""
        return self.params[-1] if self.params else ""

    @classmethod
    def parse(cls, raw: str) -> IrcLine:
        rest = raw
        tags: dict[str, str] = {}
        if rest.startswith("@"):
            tag_text, _, rest = rest[1:].partition(" ")
            for item in tag_text.split(";"):
                key, _, value = item.partition("=")
                if key:
                    tags[key] = _unescape_tag(value)
            rest = rest.lstrip(" ")
        prefix: str | None = None
        nick: str | None = None
        if rest.startswith(":"):
            prefix, _, rest = rest[1:].partition(" ")
            rest = rest.lstrip(" ")
            nick = prefix.split("!", 1)[0].split("@", 1)[0]
        trailing: str | None = None
        if " :" in rest:
            rest, trailing = rest.split(" :", 1)
        elif rest.startswith(":"):
            rest, trailing = "", rest[1:]
        words = rest.split()
        command = words[0].upper() if words else ""
        params = words[1:]
        if trailing is not None:
            params.append(trailing)
        return cls(prefix, nick, command, tuple(params), raw, tags)

    def __str__(self) -> str:
        return self.raw


Matcher = Callable[[IrcLine], bool] | str | re.Pattern[str]
"""A predicate on a line, or a regular expression searched in its raw text."""


def _as_predicate(matcher: Matcher) -> Callable[[IrcLine], bool]:
    if isinstance(matcher, str | re.Pattern):
        pattern = re.compile(matcher) if isinstance(matcher, str) else matcher
        return lambda line: pattern.search(line.raw) is not None
    return matcher


def _describe(matcher: Matcher) -> str:
    if isinstance(matcher, re.Pattern):
        return f"/{matcher.pattern}/"
    if isinstance(matcher, str):
        return f"/{matcher}/"
    return getattr(matcher, "__name__", repr(matcher))


def _irc_lower(text: str) -> str:
    return text.lower()  # ngircd announces CASEMAPPING=ascii


# --------------------------------------------------------------------------- client


class IrcClosedError(ConnectionError):
    pass


class IrcClient:
    """A plain-socket IRC user for tests.

    ``expect`` works like pexpect: it consumes queued lines in arrival order and returns
    the first that matches; the lines it skipped are gone from the queue (they stay in
    ``lines``). So ``expect(A)`` then ``expect(B)`` also asserts that B came after A.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        nick: str,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self.nickname = nick
        """Our current nick; follows every NICK of ours the server echoes."""
        self.mask: str | None = None
        """``nick!user@host`` as the server announced it in 001, e.g. ``al!~al@127.0.0.1``."""
        self.lines: list[IrcLine] = []
        self.sent: list[bytes] = []
        self._pending: collections.deque[IrcLine] = collections.deque()
        self._own_nick_changes: set[int] = set()  # id() of lines kept alive in self.lines
        self._arrived = asyncio.Event()
        self.closed = asyncio.Event()
        self._reader_task = asyncio.create_task(self._read_loop(), name=f"irc-reader-{nick}")

    # -- connecting

    @classmethod
    async def connect(
        cls,
        port: int,
        nick: str,
        user: str | None = None,
        *,
        host: str = "127.0.0.1",
        realname: str | None = None,
        timeout: float = 10.0,
    ) -> IrcClient:
        """Connect and register; returns after the server's 001 welcome."""
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        client = cls(reader, writer, nick)
        try:
            await client.send_raw(f"NICK {nick}")
            await client.send_raw(f"USER {user or nick} 0 * :{realname or nick}")
            welcome = await client.expect(
                lambda line: line.command in {"001", "432", "433", "436", "ERROR"},
                timeout=timeout,
            )
            if welcome.command != "001":
                raise IrcClosedError(f"registration of {nick!r} refused: {welcome.raw}")
            client.nickname = welcome.params[0]
            last_word = welcome.text.rsplit(" ", 1)[-1]
            client.mask = last_word if "!" in last_word else None
        except BaseException:
            await client.close()
            raise
        return client

    @property
    def user_host(self) -> str | None:
        """``user@host`` from the welcome mask (``~name@127.0.0.1`` on ngircd without ident)."""
        if self.mask is None:
            return None
        return self.mask.split("!", 1)[1]

    # -- reading

    async def _read_loop(self) -> None:
        try:
            while True:
                try:
                    data = await self._reader.readuntil(b"\n")
                except asyncio.IncompleteReadError as partial:
                    if partial.partial:
                        self._receive(partial.partial)
                    break
                self._receive(data)
                line = self.lines[-1]
                if line.command == "PING":
                    token = line.params[-1] if line.params else ""
                    await self._write(f"PONG :{token}\r\n".encode())
        except (ConnectionError, OSError):
            pass
        finally:
            self.closed.set()
            self._arrived.set()

    def _receive(self, data: bytes) -> None:
        text = data.rstrip(b"\n").removesuffix(b"\r").decode("utf-8", errors="replace")
        line = IrcLine.parse(text)
        if (
            line.command == "NICK"
            and line.nick is not None
            and line.params
            and _irc_lower(line.nick) == _irc_lower(self.nickname)
        ):
            self.nickname = line.params[0]  # ours, whoever asked for it (see the CR tests)
            self._own_nick_changes.add(id(line))
            if self.mask is not None:
                self.mask = self.nickname + "!" + self.mask.split("!", 1)[1]
        self.lines.append(line)
        self._pending.append(line)
        self._arrived.set()

    async def expect(self, matcher: Matcher, timeout: float = 10.0) -> IrcLine:
        """The first queued or arriving line that matches; raises TimeoutError or
        IrcClosedError (with the recent lines) if none does."""
        predicate = _as_predicate(matcher)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            while self._pending:
                line = self._pending.popleft()
                if predicate(line):
                    return line
            if self.closed.is_set():
                raise IrcClosedError(
                    f"{self.nickname}: connection closed while waiting for "
                    f"{_describe(matcher)}; last lines:\n{self._recent()}"
                )
            self._arrived.clear()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(
                    f"{self.nickname}: no line matching {_describe(matcher)} within "
                    f"{timeout}s; last lines:\n{self._recent()}"
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), remaining)

    async def expect_none(self, matcher: Matcher, within: float) -> None:
        """Assert that no matching line arrives within ``within`` seconds (consumes
        the lines it looked at). For "the bot did not say X"; prefer a positive expect
        of a later line where one exists."""
        try:
            line = await self.expect(matcher, timeout=within)
        except TimeoutError:
            return
        raise AssertionError(f"{self.nickname}: unexpected line {line.raw!r}")

    def drain(self) -> list[IrcLine]:
        """Drop and return the queued lines (they stay in ``lines``)."""
        drained = list(self._pending)
        self._pending.clear()
        return drained

    def _recent(self, count: int = 15) -> str:
        return "\n".join(f"  {line.raw}" for line in self.lines[-count:]) or "  (none)"

    # -- writing

    async def _write(self, data: bytes) -> None:
        if self._writer.is_closing():
            raise IrcClosedError(f"{self.nickname}: connection is closed")
        self.sent.append(data)
        self._writer.write(data)
        await self._writer.drain()

    async def send_raw(self, data: bytes | str) -> None:
        """Send bytes as they are; CR LF is appended unless ``data`` ends with LF.

        Nothing is checked: ``send_raw("PRIVMSG #a :hi\\rNICK x")`` sends the lone CR.
        """
        raw = data.encode() if isinstance(data, str) else data
        if not raw.endswith(b"\n"):
            raw += b"\r\n"
        await self._write(raw)

    async def say(self, target: str, text: str) -> None:
        """PRIVMSG ``target`` (refuses CR, LF and NUL: use ``send_raw`` to inject)."""
        if any(char in text for char in "\r\n\0"):
            raise ValueError(f"CR, LF or NUL in {text!r}: use send_raw to send it raw")
        await self.send_raw(f"PRIVMSG {target} :{text}")

    async def notice(self, target: str, text: str) -> None:
        if any(char in text for char in "\r\n\0"):
            raise ValueError(f"CR, LF or NUL in {text!r}: use send_raw to send it raw")
        await self.send_raw(f"NOTICE {target} :{text}")

    async def join(self, channel: str, timeout: float = 10.0) -> IrcLine:
        """JOIN and wait for the server's echo of our own JOIN (the names list follows)."""
        await self.send_raw(f"JOIN {channel}")
        wanted = _irc_lower(channel)
        refusals = {"403", "405", "471", "473", "474", "475", "476"}

        def answer(line: IrcLine) -> bool:
            if line.command == "JOIN":
                return (
                    line.nick is not None
                    and _irc_lower(line.nick) == _irc_lower(self.nickname)
                    and bool(line.params)
                    and _irc_lower(line.params[0]) == wanted
                )
            return (
                line.command in refusals
                and len(line.params) > 1
                and _irc_lower(line.params[1]) == wanted
            )

        line = await self.expect(answer, timeout=timeout)
        if line.command != "JOIN":
            raise AssertionError(f"{self.nickname}: JOIN {channel} refused: {line.raw}")
        return line

    async def part(self, channel: str, reason: str = "", timeout: float = 10.0) -> IrcLine:
        await self.send_raw(f"PART {channel} :{reason}" if reason else f"PART {channel}")
        me = _irc_lower(self.nickname)
        return await self.expect(
            lambda line: line.command == "PART"
            and line.nick is not None
            and _irc_lower(line.nick) == me
            and _irc_lower(line.target or "") == _irc_lower(channel),
            timeout=timeout,
        )

    async def nick(self, new_nick: str, timeout: float = 10.0) -> IrcLine:
        """Change nick and wait for the server's NICK echo (self.nickname follows it)."""
        old = self.nickname
        await self.send_raw(f"NICK {new_nick}")

        def answer(line: IrcLine) -> bool:
            if line.command == "NICK":
                # ours even if a NICK we have not consumed yet renamed us meanwhile
                return id(line) in self._own_nick_changes and _irc_lower(
                    line.params[0]
                ) == _irc_lower(new_nick)
            return line.command in {"431", "432", "433", "436", "437"}

        line = await self.expect(answer, timeout=timeout)
        if line.command != "NICK":
            raise AssertionError(f"{old}: NICK {new_nick} refused: {line.raw}")
        return line

    # -- closing

    async def quit(self, message: str = "bye", timeout: float = 5.0) -> None:
        """QUIT and wait for the server to close the connection; then clean up."""
        if not self.closed.is_set() and not self._writer.is_closing():
            with contextlib.suppress(ConnectionError, OSError):
                await self.send_raw(f"QUIT :{message}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.closed.wait(), timeout)
        await self.close()

    async def close(self) -> None:
        """Drop the connection without QUIT."""
        if not self._reader_task.done():
            self._reader_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader_task
        self.closed.set()
        if not self._writer.is_closing():
            self._writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self._writer.wait_closed()

    async def wait_closed(self, timeout: float = 10.0) -> None:
        """Wait until the server closes the connection (e.g. it was stopped)."""
        await asyncio.wait_for(self.closed.wait(), timeout)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.quit()

    def __repr__(self) -> str:
        state = "closed" if self.closed.is_set() else "open"
        return f"<IrcClient {self.mask or self.nickname} {state}>"
