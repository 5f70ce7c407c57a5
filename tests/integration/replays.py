"""Checks that read the database with plain SQL, independently of ``storage.store``."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from sqlalchemy import Engine, text

from rules.ancath.events import BPAwarded, PrisonerTaken, WarriorSlain
from rules.ancath.system import AN_CATH
from rules.replay import replay
from storage.store import UNDO

__all__ = ["as_json", "ledger_matches_replays", "replay_stored"]

BP_CAP = 400


def as_json(value: Any) -> Any:
    """A JSON column read with plain SQL: parsed on PostgreSQL, text on SQLite."""
    return json.loads(value) if isinstance(value, str) else value


def replay_stored(engine: Engine, fight_id: int) -> tuple[Any, list[Any], list[Any]]:
    """Rebuild a fight from its rows: (state, effective commands, all replayed events)."""
    with engine.connect() as connection:
        kind, setup = connection.execute(
            text("SELECT kind, setup FROM fights WHERE id = :id"), {"id": fight_id}
        ).one()
        rows = connection.execute(text(
            "SELECT command FROM fight_commands WHERE fight_id = :id ORDER BY seq"
        ), {"id": fight_id}).scalars().all()
    commands: list[Any] = []
    for data in map(as_json, rows):
        if data["type"] == UNDO:
            del commands[data["keep"]:]
        else:
            commands.append(AN_CATH.codec.decode(data))
    sheets = [AN_CATH.codec.decode(s) for s in as_json(setup)["sheets"]]
    replayed = replay(AN_CATH, kind, sheets, commands)
    return replayed.state, commands, list(replayed.events)


def ledger_matches_replays(engine: Engine) -> list[str]:
    """Every fight's ledger rows (less those an undo reversed) against the awards,
    deaths and captures its replay produces; and its stored active flag against the
    replay's outcome. An award below the replay's is right when it left the warrior at
    the cap (40 BP), as its BP stood then (every change of BP is a ledger row), whatever
    it is now. What disagrees, as messages."""
    problems: list[str] = []
    with engine.connect() as connection:
        fights = connection.execute(text("SELECT id, active FROM fights ORDER BY id")).all()
        seats = {(f, s): w for f, s, w in connection.execute(
            text("SELECT fight_id, side, warrior_id FROM fight_sides"))}
        rows = connection.execute(text(  # less a fight's closing, reopening and undo rows
            "SELECT id, warrior_id, entry, bp, fight_id, detail FROM ledger "
            "WHERE fight_id IS NOT NULL "
            "AND entry NOT IN ('fight-closed', 'fight-reopened', 'undo') ORDER BY id")).all()
        history = connection.execute(text(
            "SELECT id, warrior_id, bp FROM ledger WHERE warrior_id IS NOT NULL ORDER BY id"
        )).all()
    running: Counter[int] = Counter()
    at_cap: set[int] = set()
    """The rows after which their warrior stood at the cap."""
    for row_id, warrior_id, bp in history:
        running[warrior_id] += bp or 0
        if running[warrior_id] == BP_CAP:
            at_cap.add(row_id)
    reversed_ids = {as_json(r.detail)["reverses"] for r in rows if r.entry == "reversal"}
    for fight_id, active in fights:
        state, _, events = replay_stored(engine, fight_id)
        if bool(active) != (state.outcome is None):
            problems.append(f"fight {fight_id}: active={active} but replay outcome "
                            f"is {state.outcome}")
        expected: Counter[tuple[str, int]] = Counter()
        tenths: Counter[int] = Counter()
        for event in events:
            if isinstance(event, BPAwarded):
                expected["award", seats[fight_id, event.side]] += 1
                tenths[seats[fight_id, event.side]] += event.tenths
            elif isinstance(event, WarriorSlain):
                expected["death", seats[fight_id, event.side]] += 1
            elif isinstance(event, PrisonerTaken):
                expected["prisoner-taken", seats[fight_id, event.side]] += 1
        kept = [r for r in rows if r.fight_id == fight_id and r.entry != "reversal"
                and r.id not in reversed_ids]
        found = Counter((r.entry, r.warrior_id) for r in kept)
        if found != expected:
            problems.append(f"fight {fight_id}: ledger rows {dict(found)} but replay "
                            f"gives {dict(expected)}")
        for warrior_id, amount in tenths.items():
            awards = [r for r in kept if r.warrior_id == warrior_id and r.entry == "award"]
            got = sum(r.bp for r in awards)
            if got != amount and not (got < amount and any(r.id in at_cap for r in awards)):
                problems.append(f"fight {fight_id}: warrior {warrior_id} awarded {got}, "
                                f"replay says {amount}")
    return problems
