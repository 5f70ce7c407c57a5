"""IRC casemapping: how a network folds nicks and account names before comparing them.

The network names its mapping in ISUPPORT (``CASEMAPPING=`` in 005); the transport tells
the referee, which assumes ``rfc1459`` until told: A-Z and ``[]\\~`` fold to a-z and
``{}|^``. ``rfc1459-strict`` leaves ``~`` alone; ``ascii`` folds A-Z only. A mask's nick
is folded by the mapping and its host without regard to case; its user is kept as is.
"""

from __future__ import annotations

import re
import string

__all__ = ["DEFAULT", "fold", "fold_mask", "glob_match"]

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
