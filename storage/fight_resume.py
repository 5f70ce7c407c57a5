"""Every open fight taken up at a restart: read a chunk of fights at a time (five
queries a chunk, the JSON cells as the text stored), each rebuilt from its checked
snapshot and the commands after it, or replayed whole (``storage.fight_snapshots``);
the replayed steps checked against the event log kept when the commands were accepted
(a changed rules engine, an edited row), and what disagrees reported, never patched.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from hmac import compare_digest
from itertools import groupby
from operator import itemgetter
from typing import Any

from sqlalchemy import Text, cast, select
from sqlalchemy.orm import Session

from rules.replay import replay
from storage.damage import loads
from storage.fight_rebuild import UNDO, rules_and_sheets
from storage.fight_snapshots import seal, state_from, state_text
from storage.log_digests import LogDigests
from storage.models import Fight, FightCommand, FightEvent, FightSide, FightSnapshot
from storage.records import OpenFight
from storage.sheets import Systems

__all__ = ["Rebuilt", "rebuild_open"]

_CHUNK = 200
"""Fights read at a time: the rows of a chunk are held at once."""


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """An open fight rebuilt (``fight``) or why not (``problem``); ``snapshot``: its new
    snapshot row, when it is sealed and newer than the one kept; ``replayed``: how many
    commands were replayed, after its snapshot (``from_snapshot``) or from the start."""

    fight: OpenFight | None
    problem: str | None = None
    snapshot: dict[str, Any] | None = None
    replayed: int = 0
    from_snapshot: bool = False


class _NotResumed(Exception):
    pass


@dataclass
class _Rows:
    """A chunk's rows, by fight."""

    heads: dict[int, Any]
    accounts: dict[int, list[str]]
    commands: dict[int, list[Any]]
    events: dict[int, list[Any]]
    snapshots: dict[int, Any]


def _by_fight(rows: Any) -> dict[int, list[Any]]:
    """Rows ordered by fight, each fight's as a list (its id first in each row)."""
    return {fight_id: list(group) for fight_id, group in groupby(rows.all(), itemgetter(0))}


def _read(session: Session, ids: list[int]) -> _Rows:
    """Core selects on the session's connection: rows, never ORM objects."""
    connection = session.connection()
    heads = {row.id: row for row in connection.execute(
        select(Fight.id, Fight.network, Fight.channel, Fight.system, Fight.kind, Fight.setup)
        .where(Fight.id.in_(ids)))}
    sides = _by_fight(connection.execute(
        select(FightSide.fight_id, FightSide.account).where(FightSide.fight_id.in_(ids))
        .order_by(FightSide.fight_id, FightSide.side)))
    commands = _by_fight(connection.execute(
        select(FightCommand.fight_id, FightCommand.seq, cast(FightCommand.command, Text),
               FightCommand.actor, FightCommand.created_at)
        .where(FightCommand.fight_id.in_(ids)).order_by(FightCommand.fight_id, FightCommand.seq)))
    events = _by_fight(connection.execute(
        select(FightEvent.fight_id, FightEvent.seq, FightEvent.idx, cast(FightEvent.event, Text))
        .where(FightEvent.fight_id.in_(ids))
        .order_by(FightEvent.fight_id, FightEvent.seq, FightEvent.idx)))
    snapshots = {row.fight_id: row for row in connection.execute(
        select(FightSnapshot.fight_id, FightSnapshot.seq, FightSnapshot.state,
               FightSnapshot.seal).where(FightSnapshot.fight_id.in_(ids)))}
    return _Rows(heads, {k: [row[1] for row in v] for k, v in sides.items()}, commands,
                 events, snapshots)


def rebuild_open(session: Session, found: Sequence[tuple[int, str]], systems: Systems,
                 key: bytes | None) -> Iterator[Rebuilt]:
    """Each fight of ``found`` (``(id, channel)``) rebuilt; with ``key``, from its
    snapshot when its seal holds, and with a new snapshot to keep."""
    cache = _Cache()
    for start in range(0, len(found), _CHUNK):
        chunk = found[start:start + _CHUNK]
        rows = _read(session, [fight_id for fight_id, _ in chunk])
        for fight_id, channel in chunk:
            try:
                yield _rebuild(rows, fight_id, systems, key, cache)
            except _NotResumed as problem:
                yield Rebuilt(None, f"fight {fight_id} in {channel}: {problem}")


class _Cache:
    """Commands and events decoded once a restart by their stored text (frozen values:
    a roll of 57 by side 0 is one value, however many fights hold it), and each
    system's state class."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], Any] = {}
        self.states: dict[str, type] = {}

    def decode(self, system: Any, text: str) -> Any:
        value = self.values.get((system.name, text))
        if value is None:
            value = self.values[system.name, text] = system.codec.decode(loads(text))
        return value


def _effective(rows: list[Any]) -> tuple[list[Any], int, int]:
    """The effective command rows, undo records applied; the last seq written; the seq
    of the last undo record (0 for none)."""
    kept: list[Any] = []
    last = undone = 0
    for row in rows:
        last = row[1]
        if UNDO in row[2]:   # the text names it: read it to be sure
            data = loads(row[2])
            if isinstance(data, dict) and data.get("type") == UNDO:
                del kept[data["keep"]:]
                undone = last
                continue
        kept.append(row)
    return kept, last, undone


def _logs(commands: list[Any], events: list[Any], upto: int, since: LogDigests | None,
          ) -> LogDigests:
    """The running digests of the rows after ``since`` up to command ``upto``."""
    if since is None:
        since = LogDigests.start(()).add_stored((), (row[1:] for row in events if row[1] == 0), 0)
    after = since.seq
    return since.add_stored((row[1:] for row in commands if after < row[1] <= upto),
                            (row[1:] for row in events if after < row[1] <= upto), upto)


def _rebuild(rows: _Rows, fight_id: int, systems: Systems, key: bytes | None,
             cache: _Cache) -> Rebuilt:
    head = rows.heads[fight_id]
    accounts = rows.accounts.get(fight_id, [])
    stored, events = rows.commands.get(fight_id, []), rows.events.get(fight_id, [])
    record = [fight_id, head.network, head.channel, head.system, head.kind, head.setup,
              accounts]
    snapshot, upto = rows.snapshots.get(fight_id), None
    try:
        kept, last, undone = _effective(stored)
        system, sheets = rules_and_sheets(systems, head.system, head.setup)
        commands = tuple(cache.decode(system, row[2]) for row in kept)
        state: Any = None
        start = 0
        if key is not None and snapshot is not None and undone <= snapshot.seq <= last:
            upto = _logs(stored, events, snapshot.seq, None)
            state = _snapshot_state(key, record, snapshot, upto, system, sheets, cache)
            start = snapshot.seq if state is not None else 0
        steps: list[tuple[int, tuple[Any, ...]]] = []
        whole = state is None
        if whole:
            replayed = replay(system, head.kind, sheets, commands)
            state = replayed.state
            steps = list(zip([0, *(row[1] for row in kept)], replayed.steps, strict=True))
        else:
            for row, command in zip(kept, commands, strict=True):
                if row[1] > start:
                    state, gave = system.apply(state, command)
                    steps.append((row[1], gave))
    except Exception as error:  # a replay that fails is reported, not fixed
        raise _NotResumed(f"replay failed: {error}") from error
    if state.outcome is not None:
        raise _NotResumed("replay ends the fight but it is stored as unfinished")
    try:
        differs = _mismatch(system, cache, events, steps, start)
    except Exception as error:
        differs = f"its event log cannot be read: {error}"
    if differs:
        raise _NotResumed(differs)
    fight = OpenFight(fight_id, head.channel, system, head.kind, sheets, tuple(accounts),
                      state, commands, last)
    new = None
    if key is not None and (whole or start < last):
        text = state_text(state)
        if text is not None:
            logs = _logs(stored, events, last, upto).hexdigests()
            new = {"fight_id": fight_id, "seq": last, "state": text,
                   "seal": seal(key, record, last, text, logs)}
    return Rebuilt(fight, None, new, len(commands) if whole else len(steps), not whole)


def _snapshot_state(key: bytes, record: list[Any], snapshot: Any, upto: LogDigests,
                    system: Any, sheets: tuple[Any, ...], cache: _Cache) -> Any:
    """The snapshot's state when its seal is the one the stored rows give; else None."""
    if not compare_digest(seal(key, record, snapshot.seq, snapshot.state, upto.hexdigests()),
                          snapshot.seal):
        return None
    if system.name not in cache.states:
        cache.states[system.name] = type(system.start(record[4], sheets)[0])
    try:
        return state_from(snapshot.state, cache.states[system.name])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _mismatch(system: Any, cache: _Cache, events: list[Any],
              steps: list[tuple[int, tuple[Any, ...]]], start: int) -> str | None:
    """Where the replayed steps (after command ``start``, the start's at seq 0) give
    other events than the ones logged when the commands were accepted."""
    logged: dict[int, list[Any]] = {}
    for row in events:
        if row[1] > start or (start == 0 and row[1] == 0):
            logged.setdefault(row[1], []).append(cache.decode(system, row[3]))
    for seq, said in steps:
        if list(said) != logged.get(seq, []):
            if seq == 0:
                return "replayed start differs from the event log"
            return f"replay of command {seq} differs from the event log"
    return None
