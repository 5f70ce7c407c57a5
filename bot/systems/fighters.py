"""How a rules system's fighters are made and described: ``!create``'s words for it,
where the new fighter is stored, its ``!sheet`` line and ``!warriors`` entry, and the
fields ``ancath-bot warrior show`` prints."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from storage.records import Fighter, WarriorRecord
from storage.store import Store

__all__ = ["Fighters", "Settings", "fields", "listing", "stored"]

F = TypeVar("F", bound=Fighter)
"""A system's fighter (its sheet)."""


class Settings(Protocol):
    """The club's standing rulings a fighter's creation may read (the referee)."""

    def fairy_open(self) -> bool: ...


def stored(store: Store, system: str, fighter: Fighter, owner: str) -> WarriorRecord[Fighter]:
    """A new fighter kept as its profile, with its ``created`` ledger row."""
    return store.create_fighter(system, fighter, owner)


def listing(record: WarriorRecord[Fighter]) -> str:
    """``Alain (contest, free)``: a fighter in a ``!warriors`` list."""
    return f"{record.sheet.name} ({record.system}, {record.status})"


def fields(record: WarriorRecord[Fighter]) -> dict[str, Any]:
    """A fighter's system and sheet fields (dice as ``1d8+1``), for ``warrior show``."""
    fighter = record.sheet
    if not dataclasses.is_dataclass(fighter):
        raise TypeError(f"{fighter.name}: a {record.system} fighter that is not a dataclass")
    sheet = {f.name: getattr(fighter, f.name) for f in dataclasses.fields(fighter)}
    return {"name": sheet.pop("name"), "owner": record.owner, "system": record.system,
            **{k: str(v) if dataclasses.is_dataclass(v) else v for k, v in sheet.items()},
            "status": record.status, "captor": record.captor}


@dataclass(frozen=True, slots=True)
class Fighters(Generic[F]):
    """One system's fighters: made by ``!create <name> [word] <words>``, described in
    chat and on the command line."""

    word: str
    """The word after the name that picks the system (``contest``); '' for the one
    system whose own words follow the name (An Cath's culture)."""
    usage: str
    """The words after ``!create <name> [word]``: ``<rating> <weapon>^<edge> ...``."""
    parse: Callable[[str, Sequence[str], Settings], F]
    """``parse(name, words, settings) -> fighter``; words that make none raise a
    ``Refusal`` (its message the reply)."""
    line: Callable[[WarriorRecord[F], str], str]
    """``line(record, owner)``: the ``!sheet`` line, ``owner`` as the channel may see it."""
    keep: Callable[[Store, str, F, str], WarriorRecord[Fighter]] = stored
    """``keep(store, system, fighter, owner)``: the new fighter stored."""
    entry: Callable[[WarriorRecord[F]], str] = listing
    """The fighter in a ``!warriors`` list."""
    show: Callable[[WarriorRecord[F]], dict[str, Any]] = fields
    """``warrior show``'s fields, in order (its JSON and its plain lines)."""
    summary: str = ""
    """``!help create <word>``'s line after the usage: what the words mean, an example."""

    @property
    def creates(self) -> str:
        """``!create <name> contest <rating> ...``: the usage for this system."""
        return " ".join(w for w in ("!create <name>", self.word, self.usage) if w)
