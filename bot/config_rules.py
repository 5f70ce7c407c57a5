"""What the configuration's models cannot say by types alone, each refused in one line
naming the fix: the bot's nicks, the moderators' entries, and ``ANCATH_*`` variables
that set nothing.

A nick follows RFC 2812 as servers still read it: a letter or one of ``[]\\`_^{|}``
first, then those, digits and ``-``; at most :data:`NICK_MAX` characters (a server
with a shorter ``NICKLEN`` cuts it, and the bot falls back to its ``alt_nicks``).

A moderator entry is a services account (or a name that logs in by password), or an
exact ``nick!user@host`` mask: never a wildcard (R8.2). Moderators are matched exactly
(:meth:`bot.referee.Referee.names`), so ``bob!*@*.example``, ``bob@host``, ``bob!bob``
or ``al ice`` could never match anyone; they are refused rather than kept silently.

An ``ANCATH_*`` variable names a key (``ANCATH_IRC__PORT``), or is one of
:data:`READ_ELSEWHERE`, or a secret the configuration names, or one it lists in
``other_processes_env`` (another process's, in a shared environment): any other is a
mistake (``ANCATH_DATABSE`` would leave the bot on the default database, a second club).
The refusal of a secret's name (``ANCATH_OFTC_SASL``) names ``other_processes_env``.
"""

from __future__ import annotations

import difflib
import fnmatch
import re
import typing
from collections.abc import Iterable, Iterator, Mapping

from pydantic import BaseModel

__all__ = ["ENV_NESTING", "ENV_PREFIX", "NICK_MAX", "READ_ELSEWHERE", "moderator_problem",
           "moderators_problem", "nick_problem", "others_problem", "refuse", "stray_variable"]

ENV_PREFIX = "ANCATH_"
ENV_NESTING = "__"
READ_ELSEWHERE = ("ANCATH_LEDGER_KEY", "ANCATH_SASL_PASSWORD", "ANCATH_WEB_TOKEN",
                  "ANCATH_TEST_*", "ANCATH_BENCH_*")
"""The ``ANCATH_*`` variables that are no configuration keys: the secrets' default names
(storage/keys.py, ``irc.sasl_password_env``, ``web.token_env``), the tests' and the
benchmarks'. The one list: a new variable read elsewhere is added here."""
NICK_MAX = 30
_NICK = re.compile(rf"[A-Za-z\[\]\\`_^{{|}}][A-Za-z0-9\[\]\\`_^{{|}}-]{{0,{NICK_MAX - 1}}}")
_MASK = re.compile(r"[^!@]+![^!@]+@[^!@]+")
_SECRET = re.compile(r"_(PASSWORD|PASSWD|PASS|SASL|TOKEN|KEY|SECRET)$", re.IGNORECASE)
"""A variable's name that looks like a secret's: maybe another process's to read."""


def refuse(problem: str | None) -> None:
    """A validator's ``ValueError`` for ``problem``, when there is one."""
    if problem:
        raise ValueError(problem)


def nick_problem(nick: str) -> str | None:
    """Why ``nick`` is no IRC nick, or None when it is one."""
    if _NICK.fullmatch(nick):
        return None
    return (f"{nick[:40]!r} is not a nick: 1 to {NICK_MAX} letters, digits or "
            "[]\\`_^{|}-, not starting with a digit or '-' (AnCath, Ref_2)")


def moderator_problem(entry: str, network: str) -> str | None:
    """Why ``entry`` could never name a moderator, or None; a ``<network>:`` before it
    (``network``: the pattern of a network's name) is left aside."""
    shown = repr(entry[:60])
    entry = re.sub(f"^{network}:", "", entry)
    if not entry or any(c.isspace() or not c.isprintable() for c in entry):
        return f"{shown}: a moderator is one word: a services account, or nick!user@host"
    if any(c in entry for c in "*?"):
        return (f"{shown}: a moderator mask is exact, no * or ? (R8.2): the one "
                "nick!user@host /whois shows, or a services account")
    if "," in entry:
        return f"{shown}: one moderator an entry: list them as a YAML list"
    if ("!" in entry or "@" in entry) and not _MASK.fullmatch(entry):
        return (f"{shown}: a mask is the whole nick!user@host /whois shows "
                "(bob!bob@staff.example.org), or write a services account")
    return None


def moderators_problem(entries: Iterable[str], network: str) -> str | None:
    """The first entry's :func:`moderator_problem`, naming every other bad entry."""
    bad = [(m, p) for m in entries if (p := moderator_problem(m, network))]
    if not bad:
        return None
    others = f" (also {', '.join(repr(m[:60]) for m, _ in bad[1:])})" if bad[1:] else ""
    return bad[0][1] + others


def others_problem(model: type[BaseModel], names: Iterable[str]) -> str | None:
    """Why one of ``names`` is no variable another process reads alone
    (``other_processes_env``), or None: each is an ``ANCATH_*`` one that sets no key of
    ``model`` here."""
    for name in names:
        key = name.upper().removeprefix(ENV_PREFIX).split(ENV_NESTING)[0].lower()
        if not name.upper().startswith(ENV_PREFIX):
            return f"{name[:60]!r}: only ANCATH_* variables are checked, so only they are " \
                "listed here"
        if key in model.model_fields:
            return (f"{name[:60]!r} sets {key} here: another process's value of it needs an "
                    "environment of its own")
    return None


def _variables(model: type[BaseModel], prefix: str = ENV_PREFIX) -> Iterator[str]:
    """Every variable that sets a key of ``model``, sections and what is in them."""
    for key, field in model.model_fields.items():
        name = prefix + key.upper()
        yield name
        for inner in (field.annotation, *typing.get_args(field.annotation)):
            if isinstance(inner, type) and issubclass(inner, BaseModel):
                yield from _variables(inner, name + ENV_NESTING)


def stray_variable(model: type[BaseModel], environ: Mapping[str, str],
                   secrets: Iterable[str | None]) -> str | None:
    """The first ``ANCATH_*`` variable of ``environ`` that sets no top-level key of
    ``model`` (a name inside a section is the model's to refuse), is not in
    :data:`READ_ELSEWHERE` and is none of ``secrets`` (the variables the configuration
    names, its own or other processes'), in one line with the nearest good name (and
    ``other_processes_env`` for a secret's name); None when there is none."""
    keys = {key.upper() for key in model.model_fields}
    named = {s for s in secrets if s}
    for name in sorted(environ):
        upper = name.upper()
        if not upper.startswith(ENV_PREFIX) or name in named or \
                upper.removeprefix(ENV_PREFIX).split(ENV_NESTING)[0] in keys or \
                any(fnmatch.fnmatchcase(name, pattern) for pattern in READ_ELSEWHERE):
            continue
        names = [n.removeprefix(ENV_PREFIX) for n in (*_variables(model), *named, *READ_ELSEWHERE)
                 if n.startswith(ENV_PREFIX) and "*" not in n]
        near = difflib.get_close_matches(upper.removeprefix(ENV_PREFIX), names, 1, 0.75)
        secret = bool(_SECRET.search(name)) and near != [upper.removeprefix(ENV_PREFIX)]
        if near:
            return f"${name} sets nothing: correct it (${ENV_PREFIX}{near[0]}?) or unset it" + (
                ", or list it in other_processes_env: if another process reads it"
                if secret else "")
        if secret:
            return (f"${name} sets nothing: if another process reads it (a shared env_file), "
                    "list it in other_processes_env:, else correct it or unset it")
        return (f"${name} sets nothing: correct it or unset it (ANCATH_<key>, ANCATH_"
                "<section>__<key>, or a secret's variable)")
    return None
