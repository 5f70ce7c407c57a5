"""A fight rebuilt from its stored commands: the effective command list (undo records
applied) and the replay through its rules system (an undo's, a fight read back); a
restart takes up every open fight at once (``storage.fight_resume``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from rules.replay import replay as replay_commands
from storage.damage import unreadable
from storage.errors import DamagedRecord
from storage.models import Fight, FightCommand, FightSide
from storage.records import OpenFight
from storage.sheets import Systems

__all__ = ["UNDO", "command_log", "load", "rules_and_sheets"]

UNDO = "Undo"
"""The ``type`` of a fight-log record that cuts the command list back (R8.1)."""


def command_log(session: Session, fight_id: int) -> tuple[list[tuple[int, Any]], int]:
    """The effective ``(seq, command data)`` rows, undo records applied, and the
    last sequence number written."""
    rows: list[tuple[int, Any]] = []
    last = 0
    for seq, data in session.execute(
        select(FightCommand.seq, FightCommand.command)
        .where(FightCommand.fight_id == fight_id).order_by(FightCommand.seq)
    ):
        last = seq
        if data.get("type") == UNDO:
            del rows[data["keep"]:]
        else:
            rows.append((seq, data))
    return rows, last


def rules_and_sheets(systems: Systems, name: str, setup: Any) -> tuple[Any, tuple[Any, ...]]:
    """A stored fight's rules system among ``systems`` and its setup's sheets, or
    :class:`DamagedRecord` saying which cannot be read."""
    if name not in systems:
        raise DamagedRecord(f"its rules system {name!r} is none the bot knows")
    system = systems.rules(name)
    try:
        return system, tuple(system.codec.decode(s) for s in setup["sheets"])
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        said = unreadable(setup) or f"{type(error).__name__} {error}"
        raise DamagedRecord(f"its stored setup cannot be read: {said}") from error


def load(session: Session, fight_id: int, systems: Systems) -> OpenFight:
    """The fight rebuilt from its commands (``rules.replay``) by its rules system among
    ``systems``."""
    fight = session.get_one(Fight, fight_id)
    system, sheets = rules_and_sheets(systems, fight.system, fight.setup)
    sides = session.scalars(
        select(FightSide).where(FightSide.fight_id == fight_id).order_by(FightSide.side)
    ).all()
    rows, last = command_log(session, fight_id)
    commands = tuple(system.codec.decode(data) for _, data in rows)
    replayed = replay_commands(system, fight.kind, sheets, commands)
    return OpenFight(fight.id, fight.channel, system, fight.kind, sheets,
                     tuple(s.account for s in sides), replayed.state, commands, last)
