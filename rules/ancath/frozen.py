"""Fast copies of the engine's frozen values, and enums hashed by identity.

``dataclasses.replace`` looks a dataclass's fields up and checks them at every call;
the engine replaces a state several times an apply, so each frozen value's type gets a
``replace`` written once for its fields at its first copy (as ``dataclasses`` writes
``__init__``): it copies every field but the ones named, set as a frozen ``__init__`` sets
them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from enum import Enum
from typing import Any, TypeVar

__all__ = ["FastEnum", "replace"]

T = TypeVar("T")
_KEEP: Any = object()
_MADE: dict[type, Callable[..., Any]] = {}


class FastEnum(Enum):
    """An enum hashed by identity: members are singletons compared by identity, and
    ``Enum.__hash__`` is a Python call that dict and set lookups pay every time."""

    __hash__ = object.__hash__


def replace(value: T, /, **changes: Any) -> T:
    """``dataclasses.replace`` for the engine's frozen values, without its checks."""
    try:
        made = _MADE[type(value)]
    except KeyError:
        made = _MADE[type(value)] = _replacer(type(value))
    result: T = made(value, **changes)
    return result


def _replacer(cls: type[T]) -> Callable[..., T]:
    """The ``replace`` of one frozen dataclass, written for its fields."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    source = (
        f"def replace(value, *, {', '.join(f'{n}=KEEP' for n in names)}):\n"
        "    new = NEW(CLS)\n"
        + "".join(f"    SET(new, {n!r}, value.{n} if {n} is KEEP else {n})\n" for n in names)
        + "    return new\n"
    )
    scope: dict[str, Any] = {"KEEP": _KEEP, "NEW": object.__new__, "SET": object.__setattr__,
                             "CLS": cls}
    exec(source, scope)  # generated from the class's own field names
    made: Callable[..., T] = scope["replace"]
    made.__doc__ = f"A copy of a {cls.__name__} with the named fields changed."
    return made
