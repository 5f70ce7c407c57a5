"""SASL over CAP (IRCv3 sasl-3.1 and 3.2), with no I/O: part of the session
(bot/irc/session.py), which hands it the capabilities on offer and the replies.

With a login configured the session requests ``sasl`` whenever the server offers it,
whatever mechanisms it lists (``sasl=EXTERNAL``), as Sopel and Limnoria do. After the
ACK comes ``AUTHENTICATE`` with the mechanism (PLAIN in 400-byte chunks, or EXTERNAL's
``+``), unless the server listed mechanisms without ours. A server that cannot do ours
(no ``sasl`` on offer, a list without it, or 908 naming its mechanisms before the 904)
is ``SaslUnavailable``: with ``required`` (``irc.sasl_required``, the default) the bot
QUITs rather than register without its account, else it ends negotiation and goes on.
So is a server that welcomes the bot (001) with no answer to ``CAP LS`` (it offers no
capabilities at all): the bot QUITs then rather than join, or goes on.
A refused login (904-906) still ends negotiation and goes on.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.irc.events import Action, LoggedIn, SaslFailed, SaslNoPassword, SaslUnavailable, Send
from bot.irc.line import Line

__all__ = ["SASL_NUMERICS", "Sasl", "SaslLogin"]

_FAILURES = {"904": "saslfail", "905": "sasltoolong", "906": "saslaborted"}
SASL_NUMERICS = ("903", "904", "905", "906", "907", "908")
_CHUNK = 400
_END = Send(Line("CAP", ["END"]))


@dataclass(frozen=True, slots=True)
class SaslLogin:
    mechanism: str
    """``PLAIN`` or ``EXTERNAL``."""
    account: str = ""
    password: str | None = None
    """PLAIN's password; None or empty aborts the login."""
    required: bool = True
    """Quit rather than register without it when the server cannot do ``mechanism``."""


class Sasl:
    """One connection's SASL login, or nothing to do when ``login`` is None."""

    def __init__(self, login: SaslLogin | None) -> None:
        self.login = login
        self._listed: str | None = None
        """The mechanisms the server offers (``PLAIN,EXTERNAL``; empty: not listed)."""
        self._answered = False
        """Whether the server answered ``CAP LS``."""

    def request(self, offered: Mapping[str, str], wanted: list[str]) -> list[Action]:
        """The end of CAP LS: request ``wanted``, and ``sasl`` when a login is
        configured and ``sasl`` is on offer."""
        self._answered = True
        ask: list[Action] = [_request(wanted) if wanted else _END]
        if self.login is None:
            return ask
        if "sasl" not in offered:
            return self._unavailable(None, ask)
        self._listed = offered["sasl"]
        return [_request([*wanted, "sasl"])]

    def acknowledged(self, caps: set[str]) -> list[Action]:
        """The server acknowledged ``caps``: authenticate, or end negotiation."""
        if self.login is None or "sasl" not in caps:
            return [_END]
        if self._listed and not self._lists(self._listed):
            return self._unavailable(self._listed, [_END])
        return [_authenticate_line(self.login.mechanism)]

    def unanswered(self) -> list[Action]:
        """The welcome (001): a login configured and ``CAP LS`` never answered is
        ``SaslUnavailable`` (and the QUIT when ``required``); else nothing."""
        if self.login is None or self._answered:
            return []
        return self._unavailable(None, [], caps=False)

    @staticmethod
    def quits(actions: list[Action]) -> bool:
        """Whether ``actions`` end the connection (a QUIT)."""
        return any(isinstance(a, Send) and a.line.command == "QUIT" for a in actions)

    def refused(self, caps: str) -> list[Action]:
        """The server refused the request (NAK) of ``caps``."""
        if self.login is not None and "sasl" in caps.split():
            return self._unavailable(None, [_END])
        return [_END]

    def receive(self, line: Line) -> list[Action]:
        """``AUTHENTICATE``, or one of ``SASL_NUMERICS``."""
        return self._authenticate(line) if line.command == "AUTHENTICATE" else \
            self._numeric(line)

    def _authenticate(self, line: Line) -> list[Action]:
        """``AUTHENTICATE +``: the server waits for the login."""
        login = self.login
        if "+" not in line.params[:2] or login is None:
            return []
        if login.mechanism == "EXTERNAL":  # the certificate says who: no authzid
            return [_authenticate_line("+")]
        if not login.password:
            return [SaslNoPassword(), _authenticate_line("*")]
        token = base64.b64encode(
            f"{login.account}\0{login.account}\0{login.password}".encode()).decode()
        out: list[Action] = [_authenticate_line(token[start:start + _CHUNK])
                             for start in range(0, len(token), _CHUNK)]
        if len(token) % _CHUNK == 0:
            out.append(_authenticate_line("+"))
        return out

    def _numeric(self, line: Line) -> list[Action]:
        """903 or 907 (logged in), 904-906 (refused), 908 (the mechanisms on offer)."""
        if self.login is None:
            return []
        if line.command in ("903", "907"):
            return [LoggedIn(), _END]
        if line.command == "908":
            self._listed = line.param(1)
            return []
        if line.command == "904" and self._listed and not self._lists(self._listed):
            return self._unavailable(self._listed, [_END])
        return [SaslFailed(_FAILURES[line.command]), _END]

    def _lists(self, listed: str) -> bool:
        """Whether ``listed`` names the configured mechanism."""
        assert self.login is not None
        return self.login.mechanism in listed.upper().split(",")

    def _unavailable(self, listed: str | None, go_on: Sequence[Action],
                     caps: bool = True) -> list[Action]:
        """The server cannot do the configured mechanism: quit, or ``go_on`` without
        (``caps``: it answered ``CAP LS``)."""
        assert self.login is not None
        mechanism, required = self.login.mechanism, self.login.required
        said = SaslUnavailable(mechanism, listed or None, required, caps)
        if required:
            bye = Line("QUIT", [f"SASL {mechanism} is not available"], trailing=True)
            return [said, Send(bye)]
        return [said, *go_on]


def _request(caps: list[str]) -> Send:
    """``CAP REQ :<caps>``."""
    return Send(Line("CAP", ["REQ", " ".join(caps)], trailing=True))


def _authenticate_line(what: str) -> Send:
    """``AUTHENTICATE <what>``: a mechanism, a chunk of the login, ``+`` or ``*``."""
    return Send(Line("AUTHENTICATE", [what]))
