"""A fight rebuilt from its stored commands: the effective command list (undo records
applied), the replay through its rules system, and where the replay disagrees with
the event log kept when the commands were accepted."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from rules.replay import replay as replay_commands
from storage.damage import unreadable
from storage.errors import DamagedRecord
from storage.models import Fight, FightCommand, FightEvent, FightSide
from storage.records import OpenFight
from storage.sheets import Systems

__all__ = ["UNDO", "command_log", "load", "log_mismatch", "replay"]

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


def load(session: Session, fight_id: int, systems: Systems) -> OpenFight:
    return replay(session, fight_id, systems)[0]


def replay(
    session: Session, fight_id: int, systems: Systems
) -> tuple[OpenFight, list[tuple[int, tuple[Any, ...]]]]:
    """The fight rebuilt from its commands (``rules.replay``) by its rules system among
    ``systems``, with the events each step gave (seq 0 is the start)."""
    fight = session.get_one(Fight, fight_id)
    if fight.system not in systems:
        raise DamagedRecord(f"its rules system {fight.system!r} is none the bot knows")
    system = systems.rules(fight.system)
    try:
        sheets = tuple(system.codec.decode(s) for s in fight.setup["sheets"])
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        said = unreadable(fight.setup) or f"{type(error).__name__} {error}"
        raise DamagedRecord(f"its stored setup cannot be read: {said}") from error
    sides = session.scalars(
        select(FightSide).where(FightSide.fight_id == fight_id).order_by(FightSide.side)
    ).all()
    rows, last = command_log(session, fight_id)
    commands = tuple(system.codec.decode(data) for _, data in rows)
    replayed = replay_commands(system, fight.kind, sheets, commands)
    seqs = [0, *(seq for seq, _ in rows)]
    loaded = OpenFight(fight.id, fight.channel, system, fight.kind, sheets,
                       tuple(s.account for s in sides), replayed.state, commands, last)
    return loaded, list(zip(seqs, replayed.steps, strict=True))


def log_mismatch(
    session: Session, fight: OpenFight, steps: list[tuple[int, tuple[Any, ...]]]
) -> str | None:
    """Where the replay gave other events than the ones logged when the commands
    were accepted (a changed rules engine, an edited command row)."""
    logged: dict[int, list[Any]] = {}
    for seq, data in session.execute(
        select(FightEvent.seq, FightEvent.event)
        .where(FightEvent.fight_id == fight.id).order_by(FightEvent.seq, FightEvent.idx)
    ):
        logged.setdefault(seq, []).append(fight.system.codec.decode(data))
    for seq, events in steps:
        if list(events) != logged.get(seq, []):
            if seq == 0:
                return "replayed start differs from the event log"
            return f"replay of command {seq} differs from the event log"
    return None
