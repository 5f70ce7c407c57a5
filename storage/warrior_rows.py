"""A warrior's row: read by name, checked for what the bot never writes
(``check_row``), its fighter as its rules system's codec reads it, its record, and the
locking order every writer of several warriors keeps (``lock_in_order``). Each works
inside a caller's transaction (a fight's too)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar, get_args

from sqlalchemy import Select, exists, select
from sqlalchemy.orm import Session

from storage.damage import Unreadable, unreadable
from storage.errors import DamagedRecord, UnknownWarrior
from storage.models import FightSide, Status, Warrior
from storage.records import Fighter, WarriorRecord
from storage.sheets import Systems

__all__ = [
    "check_row",
    "damaged",
    "fighter_of",
    "lock_in_order",
    "lock_warriors",
    "side_rows",
    "warrior_record",
    "warrior_row",
]


def damaged(row: Warrior, why: str) -> DamagedRecord:
    """The error for a warrior row the bot cannot read as it wrote it."""
    return DamagedRecord(f"{row.name}'s stored record is damaged ({why}): a moderator "
                         "must restore it from a backup (ancath-bot audit verify shows what "
                         "the ledger gives)")


def _tenths(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def check_row(row: Warrior, systems: Systems) -> None:
    """Refuse (``DamagedRecord``) a row whose columns hold what the bot never writes: a
    rules system ``systems`` does not hold, BP that are no count of tenths, a status it
    has no word for, a profile that is not JSON or no mapping."""
    why = None
    if row.system not in systems:
        why = f"its rules system {row.system!r} is none the bot knows"
    elif not _tenths(row.bp) or not _tenths(row.bp_spent):
        why = f"its BP {row.bp!r} (spent {row.bp_spent!r}) is not a count of tenths"
    elif row.status not in get_args(Status):
        why = f"its status {row.status!r} is not free, prisoner or dead"
    elif not isinstance(row.profile, dict) or isinstance(row.profile, Unreadable):
        why = f"its profile is {unreadable(row.profile) or 'not a mapping'}"
    if why is not None:
        raise damaged(row, why)


def fighter_of(row: Warrior, systems: Systems) -> Fighter:
    """Whatever the warrior's rules system fights with, as its codec reads the row (a
    damaged row is ``DamagedRecord``)."""
    check_row(row, systems)
    try:
        fighter: Fighter = systems.sheets(row.system).fighter(
            row.name, row.profile, row.bp, row.bp_spent, row.status)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise damaged(row, f"its profile cannot be read: {type(error).__name__} "
                           f"{error}") from error
    return fighter


def warrior_row(session: Session, name: str, lock: bool = False) -> Warrior:
    query = select(Warrior).where(Warrior.name_key == name.casefold())
    row = session.scalars(query.with_for_update() if lock else query).one_or_none()
    if row is None:
        raise UnknownWarrior(f"no warrior named {name}")
    return row


def warrior_record(session: Session, row: Warrior, systems: Systems,
                   seated: bool | None = None) -> WarriorRecord[Fighter]:
    """The record of ``row``; ``seated`` when already known (read with the row, or a new
    warrior's), else read here."""
    captor = session.get_one(Warrior, row.captor_id).name if row.captor_id else None
    if seated is None:
        seated = session.scalar(select(exists().where(FightSide.warrior_id == row.id,
                                                      FightSide.active)))
    return WarriorRecord(row.id, fighter_of(row, systems), row.owner, captor, bool(seated),
                         row.system, row.status)


def lock_in_order(session: Session, ids: Sequence[int]) -> list[Warrior]:
    """The warriors ``ids``, row-locked in ascending id order whatever the order asked.

    Every writer that locks several warriors goes through here (or ``_locked``), and
    takes the ledger head only after them, so two transactions over the same warriors
    (two challenges at once, an undo beside another fight's end) queue instead of
    deadlocking on PostgreSQL; SQLite's ``BEGIN IMMEDIATE`` serialises writers anyway."""
    locked = {row.id: row for row in session.scalars(
        _locked(select(Warrior).where(Warrior.id.in_(set(ids)))))}
    return [locked[i] for i in ids]


S = TypeVar("S", bound="Select[*tuple[Any, ...]]")
"""A query of warriors, and perhaps more with them."""

def _locked(query: S) -> S:
    """``query`` (of warriors, and perhaps more) with its warriors row-locked in
    ascending id order, in one statement (PostgreSQL locks the rows as the sort hands
    them out)."""
    return query.order_by(Warrior.id).with_for_update(of=Warrior)


def lock_warriors(session: Session, names: Sequence[str]) -> list[Warrior]:
    """The named warriors, locked (``lock_in_order``): a purchase cannot slip in between
    reading a sheet and seating its warrior."""
    keys = [name.casefold() for name in names]
    found = {row.name_key: row for row in session.scalars(
        _locked(select(Warrior).where(Warrior.name_key.in_(keys))))}
    for name, key in zip(names, keys, strict=True):
        if key not in found:
            raise UnknownWarrior(f"no warrior named {name}")
    return [found[key] for key in keys]


def side_rows(session: Session, fight_id: int) -> list[Warrior]:
    """The fight's warriors by side, locked (``lock_in_order``)."""
    seated = session.execute(_locked(
        select(Warrior, FightSide.side).join(FightSide, FightSide.warrior_id == Warrior.id)
        .where(FightSide.fight_id == fight_id))).all()
    return [row for row, _side in sorted(seated, key=lambda found: found[1])]
