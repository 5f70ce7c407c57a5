"""What a ledger row's ``detail`` records, in words: the sheet a warrior was created
with, the armour a moderator set (from, to), whom ``!mod add`` or ``remove`` named, a
ransom's terms, the row a reversal takes back, a fight's ending, what an undo took back,
a setting's new value (never a secret's). Every page, download and ``ancath-bot
ledger`` shows these words beside the row's columns."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from storage.damage import unreadable
from storage.models import Entry

__all__ = ["detail_words"]

_Detail = Mapping[str, Any]
_WINNER: dict[int | None, str] = {0: "the challenger won", 1: "the defender won",
                                  None: "a draw"}


def detail_words(entry: str, detail: _Detail | None) -> str:
    """``detail`` in words ('' when there is none). A detail not shaped as its entry's
    (a row written by hand) is said as its plain values, never an error."""
    if not detail:
        return ""
    damaged = unreadable(detail)
    if damaged is not None:   # SQLite text that is no JSON (storage.damage)
        return f"detail damaged: {damaged}"
    if not isinstance(detail, Mapping):
        return _value(detail)
    try:
        return _WORDS.get(entry, _pairs)(detail)
    except (KeyError, TypeError, AttributeError, ValueError):
        return _pairs(detail)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"   # a time limit of 5.0 minutes is 5
    if isinstance(value, list):
        return ", ".join(map(_value, value)) or "none"
    return "none" if value is None else str(value)


def _pairs(detail: _Detail) -> str:
    """Any other detail: its plain values, by key."""
    return "; ".join(f"{key} {_value(value)}" for key, value in sorted(detail.items())
                     if not isinstance(value, dict))


def _identity(detail: _Detail) -> str:
    kind = detail.get("culture") or detail.get("system")
    skills = ", ".join(f"{name} {value}" for name, value in sorted(
        detail.get("skills", {}).items()))
    parts = [f"{detail.get('name')}" + (f" ({kind})" if kind else ""),
             f"owner {detail.get('owner')}",
             f"armour {detail['armour']}" if detail.get("armour") else "",
             f"skills {skills}" if skills else ""]
    return ", ".join(part for part in parts if part)


def _armour(detail: _Detail) -> str:
    captured = " (captured)" if detail.get("captured") else ""
    return f"armour from {detail.get('was')} to {detail.get('armour')}{captured}"


def _closed(detail: _Detail) -> str:
    winner = _WINNER.get(detail.get("winner"), "no winner")
    attested = " (attested)" if detail.get("attested") else ""
    return f"{detail.get('ending')}, {winner}, after command {detail.get('seq')}{attested}"


def _command(command: _Detail) -> str:
    """A fight command as its log keeps it: ``Act attack``, ``Roll 57``, ``AcceptYield
    prisoner, ransom ten goats`` (its side left out: who sent it says it)."""
    fields = {key: value for key, value in command.items()
              if key not in ("type", "side") and value is not None and value is not False}
    said = [key if value is True else _value(value) if len(fields) == 1
            else f"{key} {_value(value)}" for key, value in sorted(fields.items())]
    return " ".join([str(command.get("type")), ", ".join(said)]).strip()


def _undo(detail: _Detail) -> str:
    """``took back 2 commands (#5 olaf: Act attack; #6 bot: Roll 20); kept 3``."""
    undone = detail.get("undone") or []
    said = "; ".join(f"#{c.get('seq')} {c.get('actor')}: {_command(c.get('command') or {})}"
                     for c in undone)
    return (f"took back {len(undone)} command{'' if len(undone) == 1 else 's'}"
            + (f" ({said})" if said else "") + f"; kept {detail.get('keep')}")


def _setting(detail: _Detail) -> str:
    """``timelimit:default:#arena set to 5``; ``... set to the default`` (none kept);
    a secret's key only: ``moderator-password:boss set (a secret, not recorded)``."""
    if "value" not in detail:
        return f"{detail.get('key')} set (a secret, not recorded)"
    value = detail["value"]
    return f"{detail.get('key')} set to {'the default' if value is None else _value(value)}"


_WORDS: dict[str, Callable[[_Detail], str]] = {
    Entry.CREATED: _identity,
    Entry.ATTESTED: _identity,
    Entry.MODERATOR_ARMOUR: _armour,
    Entry.PRISONER_TAKEN: lambda d: f"ransom: {d.get('ransom')}",
    Entry.REVERSAL: lambda d: f"takes back row #{d.get('reverses')}",
    Entry.RENAMED: lambda d: f"name {d.get('name')}",
    Entry.OWNER_CHANGED: lambda d: f"owner {d.get('owner')}",
    Entry.MODERATOR_ADDED: lambda d: f"moderator {d.get('name')}",
    Entry.MODERATOR_REMOVED: lambda d: f"moderator {d.get('name')}",
    Entry.FIGHT_CLOSED: _closed,
    Entry.FIGHT_REOPENED: lambda d: f"reopened after command {d.get('seq')}",
    Entry.UNDO: _undo,
    Entry.SETTING_CHANGED: _setting,
    Entry.LEDGER_KEYED: lambda d: f"signed from here with public key {d.get('public_key')}; "
                                  f"seals rows 1..{d.get('sealed')} (digest "
                                  f"{str(d.get('seal'))[:16]})",
    Entry.KEY_ROTATED: lambda d: f"public key {d.get('public_key')} signs from here, "
                                 f"introduced by {d.get('previous')}",
}
