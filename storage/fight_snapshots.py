"""Checked snapshots of open fights: a fight's state as of command ``seq``, so that a
restart replays only the commands after it instead of every one.

A snapshot is the state's canonical JSON and a seal: HMAC-SHA256, under a key derived
from the ledger's signing key, over the fight's record (id, network, channel, system,
kind, setup, accounts), ``seq``, the state's text, the running digests of its command
and event logs up to ``seq`` (:mod:`storage.log_digests`, over the rows as stored) and
the rules engines' fingerprint (their source). A restart uses one only when the seal
it computes from the stored rows is the one kept: a log, a snapshot or a setup edited
by whoever has no key, a new engine or another key, and the fight is replayed whole,
with every check the replay makes (``storage.fight_rebuild``). Snapshots are written
only from states a replay at a start or a clean stop (``Store.open_fights``) has just
checked against the event log, never from a chat line (no cost on the hot path);
they are a cache, and a fight without one is replayed whole.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import types
import typing
from collections import abc
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

import rules
from storage.keys import Keyring, KeyringError
from storage.ledger import canonical
from storage.models import Fight, FightSnapshot

__all__ = ["engine_print", "keep", "seal", "snapshot_key", "state_from", "state_text"]

FORMAT = 1
"""The snapshot's layout, sealed with it: a new layout makes every old one unused."""
_CONTEXT = b"ancath-bot fight snapshot\0"


@cache
def engine_print() -> str:
    """SHA-256 of the rules engines' source: a snapshot made by other rules is not used
    (the replay would tell whether they still give the logged events)."""
    root = Path(rules.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(f"{path.relative_to(root).as_posix()}\0".encode())
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def snapshot_key(keyring: Callable[[], Keyring]) -> bytes | None:
    """The key snapshots are sealed with, from the ledger's signing key; None without
    one (then no snapshot is written or used)."""
    try:
        ring = keyring()
        if not ring.keys:
            return None
        return hashlib.sha256(_CONTEXT + ring.signing()[1]).digest()
    except KeyringError:
        return None


def seal(key: bytes, record: Sequence[Any], seq: int, state: str,
         logs: Mapping[str, str]) -> str:
    """The seal of ``state`` (its text) as of command ``seq`` of the fight ``record``
    (``[id, network, channel, system, kind, setup, accounts]``), whose logs up to ``seq``
    have the digests ``logs``."""
    message = canonical([FORMAT, engine_print(), *record, seq, state, logs["commands"],
                         logs["events"]])
    return hmac.new(key, message.encode(), "sha256").hexdigest()


def _plain(value: Any) -> Any:
    """``rules.codec.encode``, with a frozenset as a list in its members' JSON order."""
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"type": type(value).__name__,
                **{f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if isinstance(value, Mapping):
        return {str(_plain(k)): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, frozenset):
        return sorted((_plain(v) for v in value), key=canonical)
    return value


def state_text(state: Any) -> str | None:
    """The state's canonical JSON; None when it does not decode back to an equal state
    (then the fight gets no snapshot)."""
    text = canonical(_plain(state))
    try:
        same = state_from(text, type(state)) == state
    except (KeyError, TypeError, ValueError, AttributeError):
        same = False
    return text if same else None


def state_from(text: str, cls: type) -> Any:
    """The state of class ``cls`` a snapshot's text holds (what ``rules.codec`` would
    decode, by a reader built once per class from its type hints)."""
    return _reader(cls)(json.loads(text))


Reader = Callable[[Any], Any]


def _same(data: Any) -> Any:
    return data


@cache
def _reader(hint: Any) -> Reader:
    """How a JSON value of type ``hint`` is read back: the hints are looked at once."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        read = _reader(options[0]) if len(options) == 1 else _by_name(tuple(options))
        return lambda data: None if data is None else read(data)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        fields = [(f.name, _reader(hints[f.name])) for f in dataclasses.fields(hint)]
        return lambda data: hint(**{name: read(data[name]) for name, read in fields
                                    if name in data})
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _reader(args[0])
            return lambda data: tuple(item(v) for v in data)
        items = [_reader(a) for a in args]
        return lambda data: tuple(read(v) for read, v in zip(items, data, strict=True))
    if origin in (dict, abc.Mapping):
        key, value = _reader(args[0]), _reader(args[1])
        return lambda data: {key(k): value(v) for k, v in data.items()}
    if origin is frozenset:
        member = _reader(args[0])
        return lambda data: frozenset(member(v) for v in data)
    return _same


def _by_name(options: tuple[type, ...]) -> Reader:
    """A union of dataclasses, read by the ``type`` name each value carries."""
    readers = {cls.__name__: _reader(cls) for cls in options}
    return lambda data: readers[data["type"]](data)


def keep(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Replace the snapshots of ``rows``' fights (``fight_id``, ``seq``, ``state``,
    ``seal``) by them, and drop those of ended fights."""
    ids = [row["fight_id"] for row in rows]
    session.execute(delete(FightSnapshot).where(FightSnapshot.fight_id.in_(ids)))
    session.execute(delete(FightSnapshot).where(~select(Fight.id).where(   # by the few kept
        Fight.id == FightSnapshot.fight_id, Fight.active).exists()))
    session.execute(insert(FightSnapshot), list(rows))
