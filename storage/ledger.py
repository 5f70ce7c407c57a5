"""The append-only ledger: a keyed MAC chain, and ``verify`` to prove it and everything
the records derive from it.

Each row carries the previous row's MAC and its own: HMAC-SHA256 under a ledger key
(:mod:`storage.keys`, never in the database) over the previous MAC and the row's
canonical content, its key id included. Without the key nobody can make a row that
verifies, so an appended, edited, deleted or renumbered row shows even when the whole
rest of the chain is recomputed. Rows from before keys (``key_id`` None) are legacy
rows with a plain SHA-256 of the same; they can only come first, and the first keyed
row's MAC covers the last of them, so rewriting that past breaks the chain too.

The chain holds each warrior's creation (name, owner, system, sheet) and every change
of its BP, skills, armour, status, captor, name and owner; and each fight's end
(``fight-closed``: digests of its setup, command log and event log, with its ending),
or an undo that reopens it (``fight-reopened``); and the moderators added and removed
in chat (``moderator-added``, ``moderator-removed``: the bot's list of them is read
from these rows, each checked against its MAC). ``verify`` rebuilds every warrior's
cached fields and every fight's digests from the chain and names what disagrees.

Appends lock the single ``ledger_head`` row, which keeps the chain linear under
concurrency. A chain cannot prove that nothing was cut off its end (delete the newest
rows, rewind the head): anchors do, ``ledger #<id> <mac>`` published outside the
database and checked with ``verify(anchors=...)``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, bindparam, func, select
from sqlalchemy.orm import Session

from storage.keys import Keyring
from storage.models import (
    Fight,
    FightCommand,
    FightEvent,
    FightSide,
    LedgerHead,
    LedgerRow,
    Warrior,
)

__all__ = [
    "FIGHT_ENTRIES",
    "GENESIS",
    "MODERATOR_ENTRIES",
    "Anchor",
    "Report",
    "anchors_in",
    "append",
    "append_fight",
    "derived_totals",
    "fight_digest",
    "head",
    "is_keyed",
    "moderators",
    "row_hash",
    "row_mac",
    "seal",
    "verify",
]

GENESIS = "0" * 64
_CONTENT = (
    "id", "warrior_id", "entry", "bp", "spent", "skill", "skill_value", "status",
    "captor_id", "detail", "actor", "moderator", "fight_id", "command_seq", "reason",
    "created_at",
)
FIGHT_ENTRIES = ("fight-closed", "fight-reopened")
"""Rows about a fight, on no warrior."""
MODERATOR_ENTRIES = ("moderator-added", "moderator-removed")
"""Rows about a moderator named in chat (``detail["name"]``), on no warrior."""
_IDENTITY = ("name", "owner", "system", "culture", "armour", "profile")
_SETS: dict[str, tuple[str, ...]] = {
    "created": _IDENTITY,
    "attested": _IDENTITY,
    "renamed": ("name",),
    "owner-changed": ("owner",),
    "moderator-armour": ("armour",),
}
"""Which warrior fields each entry sets from its ``detail``."""
_FIELDS = ("name", "name_key", "owner", "system", "culture", "profile", "skills", "armour",
           "bp", "bp_spent", "status", "captor_id")
"""The warrior's cached fields that verify compares with the chain, in this order."""
_PARTS = (("setup", "setup (system, kind, channel, sheets, sides)"),
          ("commands", "command log"), ("events", "event log"))
_ANCHOR = re.compile(r"ledger #(\d+) ([0-9a-fA-F]{8,64})\b")


def canonical(value: Any) -> str:
    """The JSON text rows and digests are computed over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _content(row: LedgerRow, keyed: bool) -> str:
    content = {name: getattr(row, name) for name in _CONTENT}
    if keyed:
        content["key_id"] = row.key_id
    return canonical(content)


def row_hash(prev_hash: str, row: LedgerRow) -> str:
    """A legacy row's hash: SHA-256 over the previous hash and its canonical content."""
    return hashlib.sha256((prev_hash + _content(row, False)).encode()).hexdigest()


def row_mac(key: bytes, prev_hash: str, row: LedgerRow) -> str:
    """A keyed row's MAC: HMAC-SHA256 under ``key`` over the previous row's MAC and the
    row's canonical content, key id included."""
    message = (prev_hash + _content(row, True)).encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


# -- anchors ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Anchor:
    """A ledger head as published outside the database: a row id and the start of its
    MAC (8 hex digits said, more accepted)."""

    id: int
    mac: str

    def __str__(self) -> str:
        return f"ledger #{self.id} {self.mac[:8]}"

    @classmethod
    def parse(cls, text: str) -> Anchor:
        """``4123:9f2c1a7e`` (a leading ``#`` allowed)."""
        match = re.fullmatch(r"#?(\d+):([0-9a-fA-F]{8,64})", text.strip())
        if match is None:
            raise ValueError(f"{text!r} is not an anchor: <row id>:<8 or more hex digits>, "
                             "e.g. 4123:9f2c1a7e")
        return cls(int(match[1]), match[2].lower())


def anchors_in(text: str) -> list[Anchor]:
    """Every ``ledger #<id> <mac>`` in any text (a channel log, a topic), once each."""
    found: list[Anchor] = []
    for match in _ANCHOR.finditer(text):
        anchor = Anchor(int(match[1]), match[2].lower())
        if anchor not in found:
            found.append(anchor)
    return found


def is_keyed(engine: Engine) -> bool:
    """Whether the chain already has a keyed row (its head names a key)."""
    with engine.connect() as connection:
        return connection.execute(
            select(LedgerHead.key_id).where(LedgerHead.id == 1)).scalar() is not None


def head(session: Session) -> Anchor | None:
    """The chain's newest row as an anchor; None while it is empty."""
    row = session.get(LedgerHead, 1)
    if row is None or not row.last_id:
        return None
    return Anchor(row.last_id, row.last_hash[:8])


# -- appending --------------------------------------------------------------------------


def append(session: Session, keyring: Keyring, **fields: Any) -> LedgerRow:
    """Append one row at the end of the chain, signed with the keyring's first key,
    inside the caller's transaction.

    The first keyed row on a chain of legacy rows is preceded by ``attested`` rows:
    what legacy rows never held (each warrior's name, owner, system and sheet; each
    finished fight's digests), pinned as stored at that moment."""
    kid, key = keyring.signing()
    chain = _locked_head(session)
    _seal(session, chain, kid, key, str(fields.get("created_at", "")))
    return _write(session, chain, kid, key, fields)


def seal(session: Session, keyring: Keyring, created_at: str) -> int:
    """Pin a chain of legacy rows now rather than at the next write (the bot does at its
    start): the ``attested`` rows ``append`` would write first. Returns how many."""
    kid, key = keyring.signing()
    chain = _locked_head(session)
    before = chain.last_id
    _seal(session, chain, kid, key, created_at)
    return chain.last_id - before


def _locked_head(session: Session) -> LedgerHead:
    return session.execute(
        select(LedgerHead).where(LedgerHead.id == 1).with_for_update()
    ).scalar_one()


def _seal(session: Session, chain: LedgerHead, kid: str, key: bytes, created_at: str) -> None:
    """Attest what the legacy rows never held when the chain's newest row is legacy."""
    if chain.last_id and chain.key_id is None:
        newest = session.get(LedgerRow, chain.last_id)
        if newest is not None and newest.key_id is None:
            _attest_legacy(session, chain, kid, key, created_at)


def _write(session: Session, chain: LedgerHead, kid: str, key: bytes,
           fields: dict[str, Any]) -> LedgerRow:
    fields = {"bp": 0, "spent": 0, **fields}
    row = LedgerRow(id=chain.last_id + 1, prev_hash=chain.last_hash, hash="", key_id=kid,
                    **fields)
    row.hash = row_mac(key, chain.last_hash, row)
    session.add(row)
    chain.last_id, chain.last_hash, chain.key_id = row.id, row.hash, kid
    return row


def identity(warrior: Warrior) -> dict[str, Any]:
    """What a creation (or attested) row holds of a warrior besides its skills."""
    return {"name": warrior.name, "owner": warrior.owner, "system": warrior.system,
            "culture": warrior.culture, "armour": warrior.armour, "profile": warrior.profile}


def _attest_legacy(session: Session, chain: LedgerHead, kid: str, key: bytes,
                   created_at: str) -> None:
    in_chain = set(session.scalars(
        select(LedgerRow.warrior_id).where(LedgerRow.warrior_id.is_not(None)).distinct()))
    for warrior in session.scalars(
        select(Warrior).where(Warrior.id.in_(in_chain)).order_by(Warrior.id)
    ):
        _write(session, chain, kid, key, {
            "warrior_id": warrior.id, "entry": "attested", "detail": identity(warrior),
            "actor": "bot", "created_at": created_at,
            "reason": "a warrior from before ledger keys, as stored when they came",
        })
    for fight_id in session.scalars(select(Fight.id).where(~Fight.active).order_by(Fight.id)):
        _write(session, chain, kid, key, fight_fields(
            session, fight_id, "fight-closed", actor="bot", created_at=created_at,
            reason="a fight from before ledger keys, as stored when they came", attested=True))


_FIGHT = select(Fight.system, Fight.kind, Fight.channel, Fight.setup, Fight.started_at,
                Fight.ending, Fight.winner, Fight.ended_at).where(Fight.id == bindparam("fight"))
_SEATS = (select(FightSide.side, FightSide.warrior_id, FightSide.account)
          .where(FightSide.fight_id == bindparam("fight")).order_by(FightSide.side))
_COMMANDS = (select(FightCommand.seq, FightCommand.command, FightCommand.actor,
                    FightCommand.created_at)
             .where(FightCommand.fight_id == bindparam("fight"),
                    FightCommand.seq <= bindparam("upto"))
             .order_by(FightCommand.seq))
_EVENTS = (select(FightEvent.seq, FightEvent.idx, FightEvent.event)
           .where(FightEvent.fight_id == bindparam("fight"), FightEvent.seq <= bindparam("upto"))
           .order_by(FightEvent.seq, FightEvent.idx))
"""The queries a fight's digests are made from, built once (a fight's end runs them)."""


def _fight_record(session: Session, fight_id: int, upto: int) -> tuple[
    dict[str, str], list[int], Any
] | None:
    """A fight's digests up to command ``upto``, its sides' warriors and its row (with
    the ending), in four queries; None when there is no such fight."""
    where = {"fight": fight_id, "upto": upto}
    fight = session.execute(_FIGHT, where).one_or_none()
    if fight is None:
        return None
    seats = session.execute(_SEATS, where).all()
    sides = [[seat.side, seat.warrior_id, seat.account] for seat in seats]
    commands = [list(row) for row in session.execute(_COMMANDS, where)]
    events = [list(row) for row in session.execute(_EVENTS, where)]
    setup = {"system": fight.system, "kind": fight.kind, "channel": fight.channel,
             "setup": fight.setup, "started_at": fight.started_at, "sides": sides}

    def digest(value: Any) -> str:
        return hashlib.sha256(canonical(value).encode()).hexdigest()

    digests = {"setup": digest(setup), "commands": digest(commands), "events": digest(events)}
    return digests, [seat.warrior_id for seat in seats], fight


def fight_digest(session: Session, fight_id: int, upto: int) -> dict[str, str] | None:
    """SHA-256 digests of a fight's setup (system, kind, channel, sheets, sides with their
    accounts and warriors), its command log and its event log up to command ``upto``;
    None when there is no such fight."""
    record = _fight_record(session, fight_id, upto)
    return record[0] if record is not None else None


def fight_fields(
    session: Session, fight_id: int, entry: str, *, actor: str, created_at: str, reason: str,
    moderator: str | None = None, seq: int | None = None, attested: bool = False,
) -> dict[str, Any]:
    """The fields of a fight's ``fight-closed`` or ``fight-reopened`` row, over the fight
    as it is in this transaction, up to command ``seq`` (its last one when not given).
    The row is on no warrior: it is the fight's, and a warrior's own rows stay the
    changes of that warrior."""
    if seq is None:
        seq = session.scalar(
            select(func.max(FightCommand.seq)).where(FightCommand.fight_id == fight_id)) or 0
    record = _fight_record(session, fight_id, seq)
    if record is None or not record[1]:
        raise ValueError(f"fight {fight_id} has no record or no sides")
    digests, sides, fight = record
    detail: dict[str, Any] = {"seq": seq, **digests, "sides": sides}
    if entry == "fight-closed":
        detail.update(ending=fight.ending, winner=fight.winner, ended_at=fight.ended_at)
    if attested:
        detail["attested"] = True
    return {"warrior_id": None, "entry": entry, "fight_id": fight_id, "command_seq": seq,
            "detail": detail, "actor": actor, "moderator": moderator, "reason": reason,
            "created_at": created_at}


def append_fight(session: Session, keyring: Keyring, fight_id: int, entry: str,
                 **fields: Any) -> LedgerRow:
    """Append a fight's ``fight-closed`` (its end) or ``fight-reopened`` (an undo) row."""
    return append(session, keyring, **fight_fields(session, fight_id, entry, **fields))


# -- what the chain says ------------------------------------------------------------------


def moderators(rows: Iterable[LedgerRow], keyring: Keyring,
               same: Callable[[str], str] = str) -> list[str]:
    """The moderators added in chat and not removed since, by ``rows`` in order (names
    compared by ``same(name)``); a row whose MAC does not hold under ``keyring`` counts
    for nothing."""
    names: dict[str, str] = {}
    for row in rows:
        key = keyring.get(row.key_id) if row.key_id is not None else None
        name = (row.detail or {}).get("name")
        if key is None or not isinstance(name, str) or not hmac.compare_digest(
                row_mac(key, row.prev_hash, row), row.hash):
            continue
        if row.entry == "moderator-added":
            names[same(name)] = name
        elif row.entry == "moderator-removed":
            names.pop(same(name), None)
    return list(names.values())



def derived_totals(rows: Iterable[LedgerRow]) -> dict[int, dict[str, Any]]:
    """Per warrior, what the ledger says: bp, bp_spent, skills, status, captor_id, and
    name, owner, system, culture, armour and profile where the ledger records them
    (legacy rows may leave them out)."""
    totals = _totals()
    for row in rows:
        _add_total(totals, row)
    return totals


def _totals() -> defaultdict[int, dict[str, Any]]:
    return defaultdict(
        lambda: {"bp": 0, "bp_spent": 0, "skills": {}, "status": "free", "captor_id": None}
    )


def _add_total(totals: defaultdict[int, dict[str, Any]], row: LedgerRow) -> None:
    """What one row changes of its warrior's totals."""
    if row.warrior_id is None:
        return
    total = totals[row.warrior_id]
    total["bp"] += row.bp
    total["bp_spent"] += row.spent
    detail = row.detail or {}
    if row.entry == "created":
        total["skills"] = dict(detail.get("skills", {}))
    for name in _SETS.get(row.entry, ()):
        if name in detail:
            total[name] = detail[name]
    if "name" in total:
        total["name_key"] = total["name"].casefold()
    if row.skill is not None and row.skill_value is not None:
        if row.skill_value:
            total["skills"][row.skill] = row.skill_value
        else:
            total["skills"].pop(row.skill, None)
    if row.status is not None:
        total["status"] = row.status
        total["captor_id"] = row.captor_id


@dataclass
class Report:
    """What ``verify`` found: ``problems`` (each a sign of tampering or a bug), ``notes``
    (legacy rows, anchors that hold), and the rows whose key was not available."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    missing: dict[str, list[int]] = field(default_factory=dict)
    """Key id to the ids of the rows it signed, for keys the keyring lacks."""
    head: Anchor | None = None
    """The newest row, as an anchor to publish."""
    keyed: bool = False
    """Whether any row is keyed."""

    def missing_keys(self, keyring: Keyring) -> list[str]:
        """One line per missing key: its id, the rows, where keys are looked for."""
        return [f"ledger key {kid} is not available: it signed ledger "
                f"{'row' if len(ids) == 1 else 'rows'} {ranges(ids)}; "
                f"a key is looked for in {keyring.looked}" for kid, ids in self.missing.items()]


def ranges(ids: Sequence[int]) -> str:
    """``1..4, 7, 9..12``."""
    parts: list[str] = []
    start = previous = None
    for i in [*sorted(ids), None]:
        if start is not None and previous is not None and (i is None or i != previous + 1):
            parts.append(str(start) if start == previous else f"{start}..{previous}")
            start = None
        if start is None:
            start = i
        previous = i
    return ", ".join(parts)


def verify(session: Session, keyring: Keyring, anchors: Sequence[Anchor] = ()) -> Report:
    """Prove the chain, the head, every anchor, every warrior's cached fields and every
    fight's digests; what disagrees is named in ``Report.problems``.

    The rows are walked once, ``VERIFY_BATCH`` at a time: what is kept is per warrior
    (its rebuilt fields), per fight (its newest mark, its digests' problems), the MACs
    of the rows the anchors name and the ids of legacy or unkeyed rows; never the rows."""
    report = Report()
    chain = _Chain(keyring, report)
    totals = _totals()
    marks = _Marks()
    wanted = {anchor.id for anchor in anchors}
    anchored: dict[int, tuple[str, str | None]] = {}
    for row in _rows(session):
        chain.step(row)
        _add_total(totals, row)
        marks.add(session, row)
        if row.id in wanted:
            anchored[row.id] = row.hash, row.key_id
    chain.finish()
    stored = session.get(LedgerHead, 1)
    if stored is None or stored.last_id != chain.last_id or stored.last_hash != chain.previous:
        report.problems.append(
            f"ledger head does not match row {chain.last_id}: newest rows removed?")
    report.head = Anchor(chain.last_id, chain.previous[:8]) if chain.walked else None
    _anchors(anchored, chain.last_id, anchors, chain.broken, report)
    _warriors(session, totals, report)
    _fights(session, marks, report)
    return report


VERIFY_BATCH = 1000
"""Ledger rows ``verify`` reads per query."""


def _rows(session: Session) -> Iterator[LedgerRow]:
    """Every ledger row in id order, ``VERIFY_BATCH`` at a time (by id, so no cursor
    stays open while other queries run)."""
    query = select(LedgerRow).order_by(LedgerRow.id).limit(VERIFY_BATCH)
    last = 0
    while rows := session.scalars(query.where(LedgerRow.id > last)).all():
        yield from rows
        last = rows[-1].id


class _Chain:
    """Links, hashes and MACs row by row; ``broken`` is the newest row id where the
    chain is broken or cannot be proved (None: nowhere)."""

    def __init__(self, keyring: Keyring, report: Report) -> None:
        self.keyring, self.report = keyring, report
        self.broken: int | None = None
        self.legacy: list[int] = []
        self.previous, self.last_id, self.walked = GENESIS, 0, False
        self.newest_rank: int | None = None
        self.newest_key = ""

    def _break(self, row: LedgerRow, problem: str | None = None) -> None:
        if problem is not None:
            self.report.problems.append(problem)
        self.broken = row.id

    def step(self, row: LedgerRow) -> None:
        report = self.report
        if row.id != self.last_id + 1:
            self._break(row, f"ledger rows {self.last_id + 1}..{row.id - 1} are missing")
        if row.prev_hash != self.previous:
            self._break(row, f"ledger row {row.id}: chain broken before it (row removed or "
                        "changed)")
        if row.key_id is None:
            if report.keyed:
                self._break(row, f"ledger row {row.id}: no key id after keyed rows (forged as "
                            "a legacy row)")
            elif row_hash(row.prev_hash, row) != row.hash:
                self._break(row, f"ledger row {row.id}: content does not match its hash "
                            "(edited)")
            else:
                self.legacy.append(row.id)
        else:
            report.keyed = True
            key = self.keyring.get(row.key_id)
            rank = self.keyring.rank(row.key_id)
            if key is None or rank is None:
                report.missing.setdefault(row.key_id, []).append(row.id)
                self._break(row)
            elif not hmac.compare_digest(row_mac(key, row.prev_hash, row), row.hash):
                self._break(row, f"ledger row {row.id}: content does not match its MAC "
                            "(edited, or written without the key)")
            elif self.newest_rank is not None and rank > self.newest_rank:
                self._break(row, f"ledger row {row.id}: signed with key {row.key_id}, which "
                            f"the keys list as older than key {self.newest_key} that signed "
                            "before it (a retired key in use?)")
            else:
                self.newest_rank, self.newest_key = rank, row.key_id
        self.previous, self.last_id, self.walked = row.hash, row.id, True

    def finish(self) -> None:
        if self.legacy:
            sealed = ("the first keyed row after them seals them" if self.report.keyed else
                      "no keyed row follows them yet, so anyone who can write the database "
                      "can still rewrite them (the bot seals them when it next starts)")
            self.report.notes.append(
                f"ledger rows {ranges(self.legacy)} are legacy rows (plain SHA-256, from "
                f"before ledger keys): {sealed}")


def _anchors(anchored: dict[int, tuple[str, str | None]], last_id: int,
             anchors: Sequence[Anchor], broken: int | None, report: Report) -> None:
    """Each anchor against the MAC and key id of the row it names (``anchored``)."""
    for anchor in anchors:
        label = f"anchor ledger #{anchor.id} {anchor.mac}"
        found = anchored.get(anchor.id)
        if found is None:
            report.problems.append(
                f"{label}: there is no row {anchor.id} (the ledger ends at #{last_id}): "
                "newest rows removed and the head rewound?")
            continue
        mac, kid = found
        if not mac.startswith(anchor.mac):
            report.problems.append(
                f"{label}: row {anchor.id}'s MAC starts {mac[:len(anchor.mac)]}: the "
                "ledger was rewritten up to there")
        elif broken is not None and broken >= anchor.id:
            report.problems.append(
                f"{label}: the chain from row {anchor.id} to the head is broken or unproved")
        else:
            weak = (" (a legacy row: anyone can recompute its hash; anchor a keyed row)"
                    if kid is None else "")
            report.notes.append(f"{label}: holds; the chain runs intact from it to the "
                                f"head #{last_id}{weak}")


def _warriors(session: Session, totals: dict[int, dict[str, Any]], report: Report) -> None:
    warriors = list(session.scalars(select(Warrior).order_by(Warrior.id)))
    for gone in sorted(set(totals) - {w.id for w in warriors}):
        report.problems.append(f"ledger rows name warrior id {gone}, which is not in the "
                               "database (deleted)")
    unnamed = 0
    for warrior in warriors:
        if warrior.id not in totals:
            report.problems.append(f"warrior {warrior.name}: no ledger rows (not created "
                                   "through the bot)")
            continue
        derived = totals[warrior.id]
        if "name" not in derived or "owner" not in derived:
            if report.keyed:
                report.problems.append(f"warrior {warrior.name}: its name and owner are not "
                                       "in the ledger")
            unnamed += 1
        label = derived.get("name", warrior.name)
        for name in _FIELDS:
            if name not in derived:
                continue
            cached = getattr(warrior, name)
            if cached != derived[name]:
                report.problems.append(
                    f"warrior {label}: {name} is {cached!r}, ledger says {derived[name]!r}")
    if unnamed and not report.keyed:
        report.notes.append(f"{unnamed} warriors come from before the ledger recorded names "
                            "and owners: the bot records them as they are when it next starts")


@dataclass(frozen=True, slots=True)
class _Mark:
    """What ``verify`` keeps of a fight's newest ``fight-closed`` or ``fight-reopened``
    row: its id, its entry, and the ending and last command it records."""

    id: int
    entry: str
    detail: dict[str, Any]


class _Marks:
    """Per fight, its newest mark and what its marks' digests disagree with, gathered
    as the rows go by."""

    def __init__(self) -> None:
        self.newest: dict[int, _Mark] = {}
        self.problems: defaultdict[int, list[str]] = defaultdict(list)

    def add(self, session: Session, row: LedgerRow) -> None:
        if row.entry not in FIGHT_ENTRIES or row.fight_id is None:
            return
        detail = row.detail or {}
        self.problems[row.fight_id] += _digests(session, row.fight_id, row.id, detail)
        kept = {name: detail.get(name) for name in ("ending", "winner", "ended_at", "seq")}
        self.newest[row.fight_id] = _Mark(row.id, row.entry, kept)


def _fights(session: Session, marks: _Marks, report: Report) -> None:
    fights = session.execute(
        select(Fight.id, Fight.active, Fight.ending, Fight.winner, Fight.ended_at)
        .order_by(Fight.id)).all()
    last_seqs: dict[int, int] = {fight_id: seq for fight_id, seq in session.execute(
        select(FightCommand.fight_id, func.max(FightCommand.seq))
        .group_by(FightCommand.fight_id))}
    for gone in sorted(set(marks.newest) - {f.id for f in fights}):
        report.problems.append(f"fight {gone}: not in the database, but ledger row "
                               f"{marks.newest[gone].id} records it (deleted)")
    uncovered: list[int] = []
    for fight in fights:
        report.problems += marks.problems.get(fight.id, [])
        newest = marks.newest.get(fight.id)
        if fight.active:
            if newest is not None and newest.entry == "fight-closed":
                report.problems.append(f"fight {fight.id}: stored as unfinished, but ledger row "
                                       f"{newest.id} ended it and no row reopened it")
            continue
        if newest is None or newest.entry != "fight-closed":
            if report.keyed:
                since = " since it was reopened" if newest is not None else ""
                report.problems.append(f"fight {fight.id}: ended, but no ledger row closes "
                                       f"it{since}")
            else:
                uncovered.append(fight.id)
            continue
        detail = newest.detail
        for name in ("ending", "winner", "ended_at"):
            if getattr(fight, name) != detail.get(name):
                report.problems.append(f"fight {fight.id}: {name} is {getattr(fight, name)!r}, "
                                       f"ledger row {newest.id} says {detail.get(name)!r}")
        last = last_seqs.get(fight.id) or 0
        if isinstance(detail.get("seq"), int) and last > detail["seq"]:
            report.problems.append(f"fight {fight.id}: commands {detail['seq'] + 1}..{last} "
                                   f"come after its end (ledger row {newest.id})")
    if uncovered:
        report.notes.append(f"fights {ranges(uncovered)} ended before the ledger recorded "
                            "fights: the bot records them as they are when it next starts")


def _digests(session: Session, fight_id: int, mark: int, detail: dict[str, Any]) -> list[str]:
    """Where the fight's digests now differ from those ledger row ``mark`` holds."""
    seq = detail.get("seq")
    digest = fight_digest(session, fight_id, seq) if isinstance(seq, int) else None
    if digest is None:
        return [f"fight {fight_id}: ledger row {mark} holds no digest"]
    return [f"fight {fight_id}: its {what} differs from ledger row {mark} (changed since)"
            for part, what in _PARTS if digest[part] != detail.get(part)]
