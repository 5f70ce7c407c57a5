"""One IRC line as a value: ``Line(command, params, source, tags)``.

``parse`` reads what the server sent (without CR LF): IRCv3 tags with their values
unescaped, the source, the command upper-cased, and the parameters (separated by
spaces) with the trailing one as the last. ``Line.format`` is its inverse, the one way
the bot writes a line: ``parse(line.format()) == line``, and ``parse(text).format()``
gives ``text`` back when it was written as ``format`` writes (one space between parts,
tag values escaped as IRCv3 says). What cannot be one line (CR, LF or NUL anywhere, a
middle parameter that is empty, holds a space or starts with ``:``) is refused with
``LineError``. ``ctcp_parts`` splits a message's text into plain text and CTCP
requests, as the CTCP specification quotes them. No socket anywhere: bot/irc/session.py
is fed these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Line", "LineError", "ctcp_parts", "middle", "nick_of", "parse", "user_host_of"]

_TAG_ESCAPES = {":": ";", "s": " ", "r": "\r", "n": "\n", "\\": "\\"}
_TAG_QUOTES = str.maketrans({plain: "\\" + code for code, plain in _TAG_ESCAPES.items()})
_COMMAND = re.compile(r"[A-Z]+|[0-9]{3}")
_NEVER = ("\r", "\n", "\0")
"""What ends or forges a line: never in any part of one."""
_NEVER_IN = re.compile("[\r\n\0]").search
_NOT_MIDDLE = re.compile("[ \r\n\0]").search
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
    trailing: bool = field(default=False, compare=False)
    """The last parameter is written after `` :`` even where it need not be (``PONG
    :x``); how the line is written, not what it says, so lines compare without it."""
    _wire: str | None = field(default=None, init=False, repr=False, compare=False)
    """What ``format`` wrote, kept: a line is a value (its parts never change), costed
    by the send queue and then written on the socket."""

    @property
    def nick(self) -> str:
        """The source's nick (the whole source when it is a server)."""
        return nick_of(self.source or "")

    def param(self, index: int, default: str = "") -> str:
        return self.params[index] if len(self.params) > index else default

    def format(self) -> str:
        """The line as written on the wire, without CR LF (``parse``'s inverse); raises
        ``LineError`` naming what cannot be one line."""
        if self._wire is not None:
            return self._wire
        if not _COMMAND.fullmatch(self.command):
            raise LineError(f"{self.command!r} is not a command")
        parts = [f"@{_tags(self.tags)}"] if self.tags else []
        if self.source is not None:
            if not middle(self.source):
                raise LineError(f"source {self.source!r} is not one word")
            parts.append(f":{self.source}")
        parts.append(self.command)
        *middles, last = self.params or [""]
        for param in middles:
            if not middle(param):
                raise LineError(f"middle parameter {param!r} is empty, holds a space or "
                                "starts with ':'")
        if _NEVER_IN(last):
            raise LineError(f"parameter {last!r} holds CR, LF or NUL")
        parts += middles
        if self.params:
            parts.append(f":{last}" if self.trailing or not middle(last) else last)
        wire = " ".join(parts)
        object.__setattr__(self, "_wire", wire)
        return wire


class LineError(ValueError):
    """What cannot be written as one IRC line; the message names the part."""


def middle(param: str) -> bool:
    """Whether ``param`` can be written as a middle parameter (or the source): not
    empty, no space, CR, LF or NUL, not starting with ``:``."""
    return bool(param) and param[0] != ":" and not _NOT_MIDDLE(param)


def _tags(tags: dict[str, str | None]) -> str:
    """``tags`` as written after ``@``, values escaped."""
    written = []
    for key, value in tags.items():
        if not key or any(char in key for char in (" ", ";", "=", *_NEVER)):
            raise LineError(f"tag name {key!r} is empty or holds ' ', ';', '=', CR, LF "
                            "or NUL")
        if value is not None and "\0" in value:
            raise LineError(f"tag {key!r}'s value holds NUL")
        written.append(key if value is None else f"{key}={value.translate(_TAG_QUOTES)}")
    return ";".join(written)


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
    params = [param for param in head.split(" ") if param]
    command = params.pop(0).upper() if params else ""
    if colon:
        params.append(trailing)
    return Line(command, params, source, tags, trailing=bool(colon))


def ctcp_parts(text: str) -> list[str | tuple[str, str]]:
    """A message's text (low-level quoting undone) as its plain pieces and its CTCP
    requests, ``(command, argument)``, in order; a lone trailing ``\x01`` is text."""
    if "\x01" not in text and "\x10" not in text:
        return [text]  # plain text, nothing quoted: most lines
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
