"""A fight's command and event rows, as written: each command and event encoded to JSON
once, and each table's INSERT compiled once per database dialect.

The text a row's JSON column receives is its canonical JSON (``ledger.canonical``), so
the same text feeds the fight's running digests (:mod:`storage.log_digests`) without a
second encoding; a reader gets the same value back, whichever text it was stored as.
The rows go to the driver with the SQL compiled once (``exec_driver_sql``: on SQLite
SQLAlchemy's statement cache and bind processors were much of the time of these
INSERTs, the statements run most), and errors still come back as SQLAlchemy's (a
taken sequence number is an ``IntegrityError``). On PostgreSQL (psycopg) both tables'
rows go in one statement, each table's columns as arrays (``unnest``) and the command
rows' INSERT in a ``WITH``: one round trip a move instead of two.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Dialect, Insert, insert
from sqlalchemy.orm import Session

from rules.codec import encode
from storage.models import FightCommand, FightEvent

__all__ = ["command_row", "event_rows", "log_rows"]

_COLUMNS = {
    "commands": ("fight_id", "seq", "command", "actor", "created_at"),
    "events": ("fight_id", "seq", "idx", "event"),
}
_STATEMENTS: dict[str, Insert] = {"commands": insert(FightCommand), "events": insert(FightEvent)}
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode
"""``ledger.canonical``'s text, by an encoder made once (``json.dumps`` makes one a call)."""
_TYPES_PG = {"fight_id": "integer", "seq": "integer", "idx": "integer", "command": "json",
             "event": "json", "actor": "varchar", "created_at": "varchar"}


def _unnest_pg(table: str) -> str:
    columns = _COLUMNS[table]
    arrays = ", ".join(f"%({table}_{name})s::{_TYPES_PG[name]}[]" for name in columns)
    name = _STATEMENTS[table].table.name
    return f"INSERT INTO {name} ({', '.join(columns)}) SELECT * FROM unnest({arrays})"


_BOTH_PG = f"WITH commands AS ({_unnest_pg('commands')}) {_unnest_pg('events')}"
"""Both tables' rows in one statement on PostgreSQL, each column an array."""
_COMPILED: dict[tuple[str, str], tuple[str, tuple[str, ...] | None]] = {}
"""Each table's INSERT as its dialect's SQL, with the order of its positional
parameters (None: named parameters), by dialect and driver, and table."""


def command_row(fight_id: int, seq: int, command: Any, actor: str,
                created_at: str) -> dict[str, Any]:
    """The command log's row of command ``seq``, its command as JSON text."""
    return {"fight_id": fight_id, "seq": seq, "command": _CANONICAL(encode(command)),
            "actor": actor, "created_at": created_at}


def event_rows(fight_id: int, seq: int, events: Sequence[Any]) -> list[dict[str, Any]]:
    """The duel log's rows of the events command ``seq`` caused, as JSON text."""
    return [{"fight_id": fight_id, "seq": seq, "idx": idx, "event": _CANONICAL(encode(item))}
            for idx, item in enumerate(events)]


def log_rows(session: Session, commands: Sequence[dict[str, Any]] = (),
             events: Sequence[dict[str, Any]] = ()) -> None:
    """Rows made by :func:`command_row` and :func:`event_rows`, one INSERT a table (one
    for both on PostgreSQL) on the session's connection (never the ORM's: their ids are
    never read back). A caller that writes a fight's log rows without adding them to its
    ``OpenFight.logs`` (as ``Fights._write_steps`` does) must leave that fight without
    them (``load``'s)."""
    if not commands and not events:
        return
    connection = session.connection()
    if (connection.dialect.name, connection.dialect.driver) == ("postgresql", "psycopg"):
        connection.exec_driver_sql(_BOTH_PG, {
            f"{table}_{name}": [row[name] for row in rows]
            for table, rows in (("commands", commands), ("events", events))
            for name in _COLUMNS[table]})
        return
    for table, rows in (("commands", commands), ("events", events)):
        if rows:
            sql, order = _compiled(connection.dialect, table)
            connection.exec_driver_sql(
                sql, [tuple(row[name] for name in order) for row in rows] if order else
                list(rows))


def _compiled(dialect: Dialect, table: str) -> tuple[str, tuple[str, ...] | None]:
    key = (f"{dialect.name}+{dialect.driver}", table)
    if key not in _COMPILED:
        compiled = _STATEMENTS[table].compile(dialect=dialect, column_keys=list(_COLUMNS[table]),
                                              for_executemany=True)
        positions = compiled.positiontup
        _COMPILED[key] = (str(compiled), tuple(positions) if positions else None)
    return _COMPILED[key]
