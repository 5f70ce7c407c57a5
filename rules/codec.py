"""Frozen dataclasses to JSON-ready values and back, guided by their type hints.

Storage keeps commands, events and sheets as JSON; replays decode them into the same
values, so ``decode(encode(x), ...) == x`` for every command, event and sheet.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections import abc
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from functools import cache
from typing import Any

__all__ = ["Codec", "encode"]

JSON = Any


def encode(value: object) -> JSON:
    """A value made of dataclasses, enums, tuples, mappings and scalars, as JSON data."""
    encoder = _ENCODERS.get(type(value))
    return _slow(value) if encoder is None else encoder(value)


def _slow(value: object) -> JSON:
    """:func:`encode` by the value's kind; a type met for the first time gets its own
    encoder, when it is one :func:`_encoder` makes."""
    made = _encoder(type(value))
    if made is not None:
        _ENCODERS[type(value)] = made
        return made(value)
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {"type": type(value).__name__}
        for f in dataclasses.fields(value):
            data[f.name] = encode(getattr(value, f.name))
        return data
    if isinstance(value, Mapping):
        return {str(encode(k)): encode(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    return value


def _same(value: JSON) -> JSON:
    return value


def _enum(value: Enum) -> JSON:
    return value.value


def _sequence(value: tuple[Any, ...] | list[Any]) -> JSON:
    return [encode(v) for v in value]


def _dict(value: dict[Any, Any]) -> JSON:
    return {str(encode(k)): encode(v) for k, v in value.items()}


_SCALARS = frozenset({str, int, float, bool, type(None)})
"""Types that :func:`encode` gives back as they are."""


def _encoder(cls: type) -> Callable[[Any], JSON] | None:
    """The encoder of values of exactly ``cls``, kept by type (the hot path: a move's
    events are encoded as each is written): what :func:`_slow` does to them, in the
    same order; a dataclass's fields of a scalar type taken as they are. None: a type
    left to :func:`_slow` each time."""
    if cls in _SCALARS:
        return _same
    if issubclass(cls, Enum):
        return _enum
    if dataclasses.is_dataclass(cls) and not issubclass(cls, type):
        name, names = cls.__name__, tuple(f.name for f in dataclasses.fields(cls))

        def _fields(value: Any) -> JSON:
            data: dict[str, JSON] = {"type": name}
            for field in names:
                item = getattr(value, field)
                data[field] = item if type(item) in _SCALARS else encode(item)
            return data
        return _fields
    if cls in (tuple, list):
        return _sequence
    if cls is dict:
        return _dict
    return None


_ENCODERS: dict[type, Callable[[Any], JSON]] = {}
"""Each type's encoder, made when it is first met (:func:`_encoder`)."""


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


class Codec:
    """Decodes the dataclasses it was given by their ``type`` names."""

    def __init__(self, classes: Iterable[type]) -> None:
        self._classes = {cls.__name__: cls for cls in classes}

    def decode(self, data: JSON) -> Any:
        """The dataclass that ``data["type"]`` names, rebuilt field by field."""
        cls = self._classes.get(data.get("type", ""))
        if cls is None:
            raise ValueError(f"unknown record type {data.get('type')!r}")
        return self._build(cls, data)

    def _build(self, cls: type, data: Mapping[str, JSON]) -> Any:
        hints = _hints(cls)
        kwargs = {
            f.name: self._value(hints[f.name], data[f.name])
            for f in dataclasses.fields(cls)
            if f.name in data
        }
        return cls(**kwargs)

    def _value(self, hint: Any, data: JSON) -> Any:
        origin = typing.get_origin(hint)
        args = typing.get_args(hint)
        if origin in (typing.Union, types.UnionType):
            if data is None and type(None) in args:
                return None
            options = [a for a in args if a is not type(None)]
            if len(options) == 1:
                return self._value(options[0], data)
            return self.decode(data)
        if isinstance(hint, type) and issubclass(hint, Enum):
            return hint(data)
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            return self._build(hint, data)
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return tuple(self._value(args[0], v) for v in data)
            return tuple(self._value(a, v) for a, v in zip(args, data, strict=True))
        if origin in (dict, abc.Mapping):
            key, val = args
            return {self._value(key, k): self._value(val, v) for k, v in data.items()}
        if origin is frozenset:
            return frozenset(self._value(args[0], v) for v in data)
        return data
