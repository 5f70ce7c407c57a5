"""The audit export: every ledger row with what proves it, in one JSON Lines file that
anyone can check with the club's public key alone, with no database and no secret.

The file, one JSON object a line, each with its ``record``:

- ``header``: ``format`` (``ancath-audit-export``), ``version``, the public keys known
  to the exporter and the ledger's ``head`` (``id``, ``hash``) as stored;
- ``row``: one ledger row, every column (its links, key id and signature included),
  in id order;
- ``fight``: one fight, its columns, ``sides`` and whole command and event logs (what
  its closing rows' digests are over);
- ``warrior``: one warrior's stored columns (a cache: the check names where it differs
  from the chain);
- ``end``: how many of each came before, so a cut-off file is caught.

``verify_export`` walks it once with the same checks ``storage.audit.verify`` makes on a
database and rebuilds every warrior from the rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from storage.audit import Report, check_anchors, check_fights, check_warriors, finish
from storage.audit_fights import Marks, Setups
from storage.chain import Walker
from storage.fight_digests import digest, setup_digest
from storage.ledger import Anchor, chain_rows, head_row
from storage.ledger_trust import named_keys
from storage.models import Fight, FightCommand, FightEvent, FightSide, Warrior
from storage.sheets import Handed, Systems
from storage.signing import PublicKey
from storage.warrior_totals import add_total, new_totals

__all__ = ["FORMAT", "ExportError", "Proved", "verify_export", "write_export"]

FORMAT = "ancath-audit-export"
VERSION = 1
_FIGHT_FIELDS = ("id", "network", "channel", "system", "kind", "setup", "active",
                 "started_at", "ended_at", "ending", "winner")
_WARRIOR_FIELDS = ("id", "name", "name_key", "owner", "system", "profile", "bp", "bp_spent",
                   "status", "captor_id")
_BATCH = 1000


class ExportError(Exception):
    """The file cannot be read as an export; the message says where."""


def _line(out: IO[str], kind: str, values: dict[str, Any]) -> None:
    out.write(json.dumps({**values, "record": kind}, sort_keys=True, separators=(",", ":")))
    out.write("\n")


def write_export(session: Session, public_keys: Sequence[PublicKey], made_at: str,
                 out: IO[str]) -> dict[str, int]:
    """Write the export of the database ``session`` reads (one snapshot: call it in one
    read transaction) to ``out``, a batch of rows at a time; how many of each."""
    head = head_row(session)
    _line(out, "header", {
        "format": FORMAT, "version": VERSION, "made_at": made_at,
        "public_keys": list(dict.fromkeys(
            key.text for key in (*public_keys, *named_keys(session)))),
        "head": {"id": head.last_id if head else 0, "hash": head.last_hash if head else ""}})
    counts = {"rows": 0, "fights": 0, "warriors": 0}
    for row in chain_rows(session):
        _line(out, "row", dict(row._mapping))
        counts["rows"] += 1
    fights = select(*(getattr(Fight, name) for name in _FIGHT_FIELDS)).order_by(Fight.id)
    for fight in _batched(session, fights, Fight.id):
        _line(out, "fight", {**fight._mapping, **_logs(session, fight.id)})
        counts["fights"] += 1
    warriors = select(*(getattr(Warrior, name) for name in _WARRIOR_FIELDS)).order_by(Warrior.id)
    for warrior in _batched(session, warriors, Warrior.id):
        _line(out, "warrior", dict(warrior._mapping))
        counts["warriors"] += 1
    _line(out, "end", counts)
    return counts


def _batched(session: Session, query: Any, key: Any) -> Iterator[Any]:
    last = 0
    while batch := session.execute(query.where(key > last).limit(_BATCH)).all():
        yield from batch
        last = batch[-1].id


def _logs(session: Session, fight_id: int) -> dict[str, Any]:
    sides = session.execute(select(FightSide.side, FightSide.warrior_id, FightSide.account)
                            .where(FightSide.fight_id == fight_id).order_by(FightSide.side))
    commands = session.execute(
        select(FightCommand.seq, FightCommand.command, FightCommand.actor,
               FightCommand.created_at)
        .where(FightCommand.fight_id == fight_id).order_by(FightCommand.seq))
    events = session.execute(
        select(FightEvent.seq, FightEvent.idx, FightEvent.event)
        .where(FightEvent.fight_id == fight_id).order_by(FightEvent.seq, FightEvent.idx))
    return {"sides": [list(r) for r in sides], "commands": [list(r) for r in commands],
            "events": [list(r) for r in events]}


# -- checking ------------------------------------------------------------------------------


@dataclass(slots=True)
class _Row:
    """An exported ledger row, read by attribute as a database row is."""

    id: int
    warrior_id: int | None
    entry: str
    bp: int
    spent: int
    skill: str | None
    skill_value: int | None
    status: str | None
    captor_id: int | None
    detail: dict[str, Any] | None
    actor: str
    moderator: str | None
    fight_id: int | None
    command_seq: int | None
    reason: str
    created_at: str
    prev_hash: str
    hash: str
    key_id: str | None
    signature: str | None


@dataclass(slots=True)
class _Record:
    """An exported fight's or warrior's columns, read by attribute."""

    values: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass
class Proved:
    """What ``verify_export`` found: the report, and every warrior as the rows give it."""

    report: Report
    warriors: dict[int, dict[str, Any]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number an export holds")


def _parse(lines: Iterable[str], source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            raise ExportError(f"{source}: line {number} is not JSON: not an audit export, "
                              "or damaged") from None
        if not isinstance(value, dict) or not isinstance(value.get("record"), str):
            raise ExportError(f"{source}: line {number} is not an export record")
        yield number, value


_INT, _TEXT, _DICT, _LIST, _BOOL = (int,), (str,), (dict,), (list,), (bool,)
_NONE = (type(None),)
_ROW_TYPES: dict[str, tuple[type, ...]] = {
    "id": _INT, "warrior_id": _INT + _NONE, "entry": _TEXT, "bp": _INT, "spent": _INT,
    "skill": _TEXT + _NONE, "skill_value": _INT + _NONE, "status": _TEXT + _NONE,
    "captor_id": _INT + _NONE, "detail": _DICT + _NONE, "actor": _TEXT,
    "moderator": _TEXT + _NONE, "fight_id": _INT + _NONE, "command_seq": _INT + _NONE,
    "reason": _TEXT, "created_at": _TEXT, "prev_hash": _TEXT, "hash": _TEXT,
    "key_id": _TEXT + _NONE, "signature": _TEXT + _NONE}
_FIGHT_TYPES: dict[str, tuple[type, ...]] = {
    "id": _INT, "network": _TEXT, "channel": _TEXT, "system": _TEXT, "kind": _TEXT,
    "setup": _DICT + _LIST, "active": _BOOL, "started_at": _TEXT, "ended_at": _TEXT + _NONE,
    "ending": _TEXT + _NONE, "winner": _INT + _NONE, "sides": _LIST, "commands": _LIST,
    "events": _LIST}
_WARRIOR_TYPES: dict[str, tuple[type, ...]] = {
    "id": _INT, "name": _TEXT, "name_key": _TEXT, "owner": _TEXT, "system": _TEXT,
    "profile": _DICT, "bp": _INT, "bp_spent": _INT, "status": _TEXT, "captor_id": _INT + _NONE}
_LOG_SHAPES = {"sides": (_INT, _INT, _TEXT + _NONE), "commands": (_INT, _DICT, _TEXT, _TEXT),
               "events": (_INT, _INT, (object,))}
"""Each entry of a fight's lists, by position."""


def _typed(value: Any, types: tuple[type, ...]) -> bool:
    """Whether ``value`` is of one of ``types``, a ``bool`` never taken for an ``int``."""
    if isinstance(value, bool):
        return bool in types or object in types
    return isinstance(value, types)


def _checked(number: int, values: dict[str, Any], types: dict[str, tuple[type, ...]],
             what: str, source: str) -> dict[str, Any]:
    """``values``'s fields of ``types``, each of its type, or ``ExportError``."""
    missing = [name for name in types if name not in values]
    if missing:
        raise ExportError(f"{source}: line {number}: a {what} without {missing[0]!r}")
    wrong = [name for name, allowed in types.items() if not _typed(values[name], allowed)]
    if what == "fight" and not wrong:
        wrong = [name for name, shape in _LOG_SHAPES.items() if not all(
            isinstance(entry, list) and len(entry) == len(shape)
            and all(_typed(v, t) for v, t in zip(entry, shape, strict=True))
            for entry in values[name])]
    if wrong:
        raise ExportError(f"{source}: line {number}: a {what} whose {wrong[0]!r} has the "
                          "wrong type")
    return {name: values[name] for name in types}


def _row(number: int, values: dict[str, Any], source: str) -> _Row:
    return _Row(**_checked(number, values, _ROW_TYPES, "row", source))


def verify_export(lines: Iterable[str], trusted: Sequence[PublicKey],
                  anchors: Sequence[Anchor] = (), source: str = "the export", *,
                  systems: Handed) -> Proved:
    """Check an export with the ``trusted`` public keys: every link and signature, the
    seal of older rows, the head, the ``anchors``, every fight's logs against its
    closing rows and every warrior's stored columns against the chain. ``ExportError``
    when it cannot be read. ``systems``: the rules systems whose sheets it holds."""
    systems = systems if isinstance(systems, Systems) else Systems(systems)
    records = _parse(lines, source)
    first = next(records, None)
    if first is None or first[1].get("record") != "header" \
            or first[1].get("format") != FORMAT:
        raise ExportError(f"{source}: not an audit export (no {FORMAT} header)")
    header = first[1]
    keys, head = header.get("public_keys", []), header.get("head")
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys) \
            or not isinstance(head, dict) or not _typed(head.get("id"), _INT) \
            or not isinstance(head.get("hash"), str):
        raise ExportError(f"{source}: line 1: a header whose public keys or head have the "
                          "wrong type")
    try:
        known = [PublicKey.parse(text) for text in keys]
    except ValueError as error:
        raise ExportError(f"{source}: its header's public key: {error}") from None
    report = Report()
    walker = Walker(trusted=trusted, known=known)
    totals = new_totals()
    marks = Marks()
    setups = Setups(systems)
    wanted = {anchor.id for anchor in anchors}
    anchored: dict[int, tuple[str, str | None]] = {}
    counts = {"rows": 0, "fights": 0, "warriors": 0}
    fights: list[_Record] = []
    warriors: list[_Record] = []
    last_seqs: dict[int, int] = {}
    last_events: dict[int, int] = {}
    digests: dict[tuple[int, int], dict[str, str]] = {}
    checked_setups: list[str] = []
    seen: dict[str, set[int]] = {"fight": set(), "warrior": set()}
    end: dict[str, Any] | None = None
    for number, record in records:
        kind = record["record"]
        if end is not None:
            raise ExportError(f"{source}: line {number}: a record after the end")
        if kind == "row":
            if counts["fights"] or counts["warriors"]:
                raise ExportError(f"{source}: line {number}: a row after the fights")
            row = _row(number, record, source)
            walker.step(row)
            setups.before(row, totals)
            add_total(totals, row)
            setups.after(row, totals)
            marks.add(row)
            if row.id in wanted:
                anchored[row.id] = row.hash, row.key_id
            counts["rows"] += 1
        elif kind in seen:
            values = _checked(number, record, _FIGHT_TYPES if kind == "fight"
                              else _WARRIOR_TYPES, kind, source)
            if values["id"] in seen[kind]:
                report.problems.append(f"{kind} {values['id']} is in the export twice (line "
                                       f"{number}): one of them is not the database's")
            seen[kind].add(values["id"])
            if kind == "fight":
                fight = _Record(values)
                fights.append(_Record({name: values[name] for name in
                                       ("id", "active", "ending", "winner", "ended_at")}))
                _fight_digests(fight, marks, digests, last_seqs, last_events)
                checked_setups += setups.check(fight.id, fight.setup, fight.sides)
            else:
                warriors.append(_Record(values))
            counts[f"{kind}s"] += 1
        elif kind == "end":
            end = record
        else:
            raise ExportError(f"{source}: line {number}: an unknown record {kind!r}")
    finish(walker, report)
    if end is None or any(end.get(name) != count for name, count in counts.items()):
        report.problems.append(f"the export ends early or was cut: it holds {counts['rows']} "
                               f"rows, {counts['fights']} fights and {counts['warriors']} "
                               "warriors, not what its end says")
    if not counts["rows"]:
        report.problems.append("the export holds no ledger rows: it proves nothing")
    if head.get("id") != walker.last_id or head.get("hash") != walker.previous:
        report.problems.append(f"ledger head does not match row {walker.last_id}: newest "
                               "rows removed?")
    check_anchors(anchored, walker.last_id, anchors, walker.broken, report)
    check_warriors(warriors, totals, report, systems)
    marks.check(lambda fight, seq: digests.get((fight, seq)))
    check_fights(fights, last_seqs, marks, report, last_events)
    report.problems += setups.problems + checked_setups
    return Proved(report, dict(totals), counts)


def _fight_digests(fight: _Record, marks: Marks, digests: dict[tuple[int, int], dict[str, str]],
                   last_seqs: dict[int, int], last_events: dict[int, int]) -> None:
    """The digests of ``fight`` (its fields of the right types) at each command a mark
    of it names, and the last command its logs reach."""
    commands, events = fight.commands, fight.events
    if commands:
        last_seqs[fight.id] = max(row[0] for row in commands)
    if events:
        last_events[fight.id] = max(row[0] for row in events)
    setup = setup_digest(fight, fight.sides)
    for seq in marks.seqs(fight.id):
        digests[fight.id, seq] = {
            "setup": setup,
            "commands": digest([row for row in commands if row[0] <= seq]),
            "events": digest([row for row in events if row[0] <= seq])}
