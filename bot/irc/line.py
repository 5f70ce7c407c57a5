"""One IRC line from the server as a value: ``Line(tags, source, command, params)``.

``parse`` reads what the server sent (without CR LF): IRCv3 tags with their values
unescaped, the source, the command upper-cased, and the parameters with the trailing
one as the last. ``ctcp_parts`` splits a message's text into plain text and CTCP
requests, as the CTCP specification quotes them. No socket anywhere: bot/irc/session.py
is fed these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Line", "ctcp_parts", "nick_of", "parse", "user_host_of"]

_TAG_ESCAPES = {":": ";", "s": " ", "r": "\r", "n": "\n", "\\": "\\"}
_LOW_QUOTE = re.compile("\x10(.)", re.DOTALL)
_LOW_ESCAPES = {"0": "\0", "n": "\n", "r": "\r"}


@dataclass(frozen=True, slots=True)
class Line:
    command: str
    params: list[str] = field(default_factory=list)
    source: str | None = None
    """``nick!user@host`` or a server name; None when the server sent no prefix."""
    tags: dict[str, str | None] = field(default_factory=dict)
    """IRCv3 message tags; a tag without ``=`` has the value None."""

    @property
    def nick(self) -> str:
        """The source's nick (the whole source when it is a server)."""
        return nick_of(self.source or "")

    def param(self, index: int, default: str = "") -> str:
        return self.params[index] if len(self.params) > index else default


def nick_of(source: str) -> str:
    """The nick of ``nick!user@host``."""
    return source.partition("!")[0]


def user_host_of(source: str) -> str:
    """``user@host`` of ``nick!user@host``, ``None`` standing in for a missing part (as
    the ``irc`` package's ``NickMask`` gives them)."""
    user, _, host = source.partition("!")[2].partition("@")
    return f"{user or None}@{host or None}"


def _unescape(value: str) -> str:
    out, chars = [], iter(value)
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            out.append(_TAG_ESCAPES.get(following, following))
        else:
            out.append(char)
    return "".join(out)


def parse(raw: str) -> Line:
    """The line ``raw`` (CR LF already cut off) as a ``Line``."""
    rest = raw.lstrip(" ")
    tags: dict[str, str | None] = {}
    if rest.startswith("@"):
        written, _, rest = rest[1:].partition(" ")
        for tag in filter(None, written.split(";")):
            key, equals, value = tag.partition("=")
            tags[key] = _unescape(value) if equals else None
        rest = rest.lstrip(" ")
    source = None
    if rest.startswith(":"):
        source, _, rest = rest[1:].partition(" ")
    head, colon, trailing = rest.partition(" :")
    params = head.split()
    command = params.pop(0).upper() if params else ""
    if colon:
        params.append(trailing)
    return Line(command, params, source, tags)


def ctcp_parts(text: str) -> list[str | tuple[str, str]]:
    """A message's text (low-level quoting undone) as its plain pieces and its CTCP
    requests, ``(command, argument)``, in order; a lone trailing ``\x01`` is text."""
    text = _LOW_QUOTE.sub(lambda m: _LOW_ESCAPES.get(m[1], m[1]), text)
    chunks = text.split("\x01")
    parts: list[str | tuple[str, str]] = []
    for index in range(0, len(chunks) - 1, 2):
        if chunks[index]:
            parts.append(chunks[index])
        if index + 2 < len(chunks):
            command, _, argument = chunks[index + 1].partition(" ")
            parts.append((command, argument))
    if len(chunks) % 2:
        if chunks[-1] or len(chunks) == 1:
            parts.append(chunks[-1])
    else:
        parts.append("\x01" + chunks[-1])
    return parts
