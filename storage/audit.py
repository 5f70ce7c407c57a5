"""``verify``: the ledger chain proved, and everything the records derive from it
rebuilt from the chain and compared.

One walk over the rows, a batch at a time, checks each link, hash and MAC
(:mod:`storage.ledger`), rebuilds every warrior's cached fields (``derived_totals``)
and keeps every fight's newest ``fight-closed`` or ``fight-reopened`` mark; then the
head, the published anchors, the warriors and the fights are compared with what the
chain says. What disagrees is named in ``Report.problems``; nothing is written.
"""

from __future__ import annotations

import hmac
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from storage.keys import Keyring
from storage.ledger import (
    ANCHOR_DIGITS,
    FIGHT_ENTRIES,
    GENESIS,
    Anchor,
    fight_digest,
    head_row,
    row_hash,
    row_mac,
)
from storage.models import Entry, Fight, FightCommand, LedgerRow, Warrior
from storage.profiles import recorded

__all__ = ["VERIFY_BATCH", "Report", "derived_totals", "ranges", "verify"]

_IDENTITY = ("name", "owner", "system", "culture", "armour", "profile")
_SETS: dict[str, tuple[str, ...]] = {
    Entry.CREATED: _IDENTITY,
    Entry.ATTESTED: _IDENTITY,
    Entry.RENAMED: ("name",),
    Entry.OWNER_CHANGED: ("owner",),
    Entry.MODERATOR_ARMOUR: ("armour",),
}
"""Which warrior fields each entry sets from its ``detail``."""
_FIELDS = ("name", "name_key", "owner", "system", "culture", "profile", "skills", "armour",
           "bp", "bp_spent", "status", "captor_id")
"""The warrior's cached fields that verify compares with the chain, in this order
(``culture``, ``armour``, ``skills`` and ``profile`` as ``profiles.recorded`` reads them
from its profile)."""
_PARTS = (("setup", "setup (system, kind, network, channel, sheets, sides)"),
          ("commands", "command log"), ("events", "event log"))


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
    if row.entry == Entry.CREATED:
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
    stored = head_row(session)
    if stored is None or stored.last_id != chain.last_id or stored.last_hash != chain.previous:
        report.problems.append(
            f"ledger head does not match row {chain.last_id}: newest rows removed?")
    report.head = Anchor(chain.last_id, chain.previous[:ANCHOR_DIGITS]) if chain.walked else None
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
        cached = _cached(warrior)
        for name in _FIELDS:
            if name in derived and cached[name] != derived[name]:
                report.problems.append(f"warrior {label}: {name} is {cached[name]!r}, ledger "
                                       f"says {derived[name]!r}")
    if unnamed and not report.keyed:
        report.notes.append(f"{unnamed} warriors come from before the ledger recorded names "
                            "and owners: the bot records them as they are when it next starts")


def _cached(warrior: Warrior) -> dict[str, Any]:
    """The warrior's cached fields by the names the chain gives them."""
    return {"name": warrior.name, "name_key": warrior.name_key, "owner": warrior.owner,
            "system": warrior.system, **recorded(warrior), "bp": warrior.bp,
            "bp_spent": warrior.bp_spent, "status": warrior.status,
            "captor_id": warrior.captor_id}


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
            if newest is not None and newest.entry == Entry.FIGHT_CLOSED:
                report.problems.append(f"fight {fight.id}: stored as unfinished, but ledger row "
                                       f"{newest.id} ended it and no row reopened it")
            continue
        if newest is None or newest.entry != Entry.FIGHT_CLOSED:
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
