"""Fast building and copying of the engine's frozen values, and enums hashed by identity.

A frozen dataclass sets each field through ``object.__setattr__`` (its own
``__setattr__`` refuses), and ``dataclasses.replace`` looks the fields up and checks them
at every call; the engine builds and copies values several times an apply. So each frozen
slots class marked :func:`quick` gets an ``__init__`` (and :func:`maker` a plain function
that builds one, :func:`copier` a ``replace``), written once for its fields (as
``dataclasses`` writes ``__init__``), that fill in a draft: a
plain class with the very same slots, whose attributes are set as fast as any object's.
Once every field is set the draft becomes an instance of the frozen class (``__class__``
assignment, allowed between classes of the same slots), and is never seen as a draft.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields
from enum import Enum
from typing import Any, TypeVar

__all__ = ["FastEnum", "copier", "maker", "quick"]

T = TypeVar("T")
_KEEP: Any = object()


class FastEnum(Enum):
    """An enum hashed by identity: members are singletons compared by identity, and
    ``Enum.__hash__`` is a Python call that dict and set lookups pay every time."""

    __hash__ = object.__hash__


def quick(cls: type[T]) -> type[T]:
    """Mark a frozen slots dataclass (put above ``@dataclass``): a fast ``__init__``."""
    setattr(cls, "__init__", _written(cls, "init"))  # noqa: B010 (mypy refuses the assignment)
    return cls


def maker(cls: type[T]) -> Callable[..., T]:
    """A plain function that builds a ``cls`` as ``cls(...)`` does, without the type
    call's own cost (``__new__`` then ``__init__``), for the values built most."""
    return _written(cls, "make")


def copier(cls: type[T]) -> Callable[..., T]:
    """``dataclasses.replace`` for one frozen slots class, without its checks: a copy of
    a value with the fields named by keyword changed."""
    return _written(cls, "replace")


def _written(cls: type, kind: str) -> Callable[..., Any]:
    """The ``init``, ``make`` or ``replace`` of one frozen slots dataclass."""
    names = [f.name for f in fields(cls)]
    if tuple(names) != getattr(cls, "__slots__", ()) or any(n.isupper() for n in names) \
            or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: a slots dataclass without upper-case field names"
                        " or __post_init__")
    scope: dict[str, Any] = {"KEEP": _KEEP, "SET": object.__setattr__, "CLS": cls,
                             "DRAFT": type(f"{cls.__name__}Draft", (), {"__slots__": names})}
    if kind == "replace":
        head = (f"def replace(OLD, *, {', '.join(f'{n}=KEEP' for n in names)}):\n"
                "    NEW = DRAFT()\n")
        body = "".join(f"    NEW.{n} = OLD.{n} if {n} is KEEP else {n}\n" for n in names)
    else:
        params = []
        for f in fields(cls):
            if f.default_factory is not MISSING:
                raise TypeError(f"{cls.__name__}.{f.name}: no default factories")
            if f.default is MISSING:
                params.append(f.name)
            else:
                scope[f"D{f.name.upper()}"] = f.default
                params.append(f"{f.name}=D{f.name.upper()}")
        if kind == "init":  # on the instance ``cls()`` made, a draft for the while
            head = f"def {kind}(NEW, {', '.join(params)}):\n    SET(NEW, '__class__', DRAFT)\n"
        else:
            head = f"def {kind}({', '.join(params)}):\n    NEW = DRAFT()\n"
        body = "".join(f"    NEW.{n} = {n}\n" for n in names)
    body += "    NEW.__class__ = CLS\n" + ("" if kind == "init" else "    return NEW\n")
    exec(head + body, scope)  # generated from the class's own field names
    made: Callable[..., Any] = scope[kind]
    made.__name__ = "__init__" if kind == "init" else kind
    made.__qualname__ = f"{cls.__qualname__}.{made.__name__}"
    made.__doc__ = f"{'A copy of a' if kind == 'replace' else 'A'} {cls.__name__}, set fast."
    return made
