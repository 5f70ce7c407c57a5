"""IRC casemapping: how a network folds nicks and account names before comparing them.

The network names its mapping in ISUPPORT (``CASEMAPPING=`` in 005); the transport tells
the referee, which assumes ``rfc1459`` until told: A-Z and ``[]\\~`` fold to a-z and
``{}|^``. ``rfc1459-strict`` leaves ``~`` alone; ``ascii`` folds A-Z only. A mask's nick
is folded by the mapping and its host without regard to case; its user is kept as is.
``Folded`` is a dict keyed that way, re-folded when the network names its mapping.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator, MutableMapping
from typing import TypeVar

__all__ = ["DEFAULT", "Folded", "fold", "fold_mask", "glob_match"]

V = TypeVar("V")

DEFAULT = "rfc1459"
_ASCII = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_TABLES = {
    "ascii": _ASCII,
    "rfc1459-strict": str.maketrans(string.ascii_uppercase + "[]\\",
                                    string.ascii_lowercase + "{}|"),
    "rfc1459": str.maketrans(string.ascii_uppercase + "[]\\~",
                             string.ascii_lowercase + "{}|^"),
}


def fold(name: str, casemapping: str = DEFAULT) -> str:
    """``name`` folded by ``casemapping`` (an unknown mapping folds as rfc1459)."""
    return name.translate(_TABLES.get(casemapping.lower(), _TABLES[DEFAULT]))


def fold_mask(mask: str, casemapping: str = DEFAULT) -> str:
    """``nick!user@host`` with the nick folded by ``casemapping`` and the host lowered."""
    nick, bang, rest = mask.partition("!")
    user, at, host = rest.rpartition("@") if bang else ("", "", "")
    return fold(nick, casemapping) + bang + user + at + host.translate(_ASCII)


def glob_match(pattern: str, text: str, casemapping: str = DEFAULT) -> bool:
    """Whether ``text`` matches ``pattern`` (``*`` any run, ``?`` one character), both
    folded by ``casemapping`` whole."""
    parts = (re.escape(c) if c not in "*?" else "." + "*" * (c == "*")
             for c in fold(pattern, casemapping))
    return re.fullmatch("".join(parts), fold(text, casemapping), re.DOTALL) is not None


class Folded(MutableMapping[str, V]):
    """A dict keyed by nicks or channels compared by ``casemapping``: ``Nick[a]`` and
    ``nick{a}`` are one key under rfc1459. It keeps each key as last written, so
    ``remap`` can fold them again by another mapping (and iterating gives them)."""

    def __init__(self, casemapping: str = DEFAULT) -> None:
        self.casemapping = casemapping
        self._items: dict[str, tuple[str, V]] = {}

    def __getitem__(self, name: str) -> V:
        return self._items[fold(name, self.casemapping)][1]

    def __setitem__(self, name: str, value: V) -> None:
        self._items[fold(name, self.casemapping)] = (name, value)

    def __delitem__(self, name: str) -> None:
        del self._items[fold(name, self.casemapping)]

    def __iter__(self) -> Iterator[str]:
        return iter([name for name, _ in self._items.values()])

    def __len__(self) -> int:
        return len(self._items)

    def remap(self, casemapping: str) -> None:
        """Compare by ``casemapping`` from now on; keys that now fold alike keep the
        value written last."""
        items, self._items, self.casemapping = list(self._items.values()), {}, casemapping
        for name, value in items:
            self[name] = value
