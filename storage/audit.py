"""``verify``: the ledger chain proved, and everything the records derive from it
rebuilt from the chain and compared.

One walk over the rows, a batch at a time, proves each link, hash, signature and MAC
(:class:`storage.chain.Walker`), rebuilds every warrior's cached fields
(:mod:`storage.warrior_totals`) and keeps every fight's marks (``fight-closed``,
``fight-reopened``: :mod:`storage.audit_fights`); then the head, the published
anchors, the warriors and the fights are compared with what the chain says. What
disagrees is named in ``Report.problems``; nothing is written. The comparisons take
plain rows, so an export is checked by the same code (:mod:`storage.audit_export`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from storage.audit_fights import Marks, Setups
from storage.chain import Walker, ranges
from storage.fight_digests import fight_digest
from storage.keys import Keyring
from storage.ledger import (
    ANCHOR_DIGITS,
    Anchor,
    chain_rows,
    head_row,
)
from storage.ledger_trust import named_keys
from storage.models import (
    Entry,
    Fight,
    FightCommand,
    FightEvent,
    FightSide,
    Warrior,
)
from storage.sheets import Systems
from storage.signing import PublicKey
from storage.warrior_totals import add_total, differences, differs_said, new_totals

__all__ = [
    "Report",
    "check_anchors",
    "check_fights",
    "check_stored",
    "check_warriors",
    "finish",
    "verify",
]


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
    keys: list[PublicKey] = field(default_factory=list)
    """The public keys that signed rows, in order (a rotation adds one)."""

    def missing_keys(self, keyring: Keyring) -> list[str]:
        """One line per missing key: its id, the rows, where keys are looked for."""
        return [f"ledger key {kid} is not available: it signed ledger "
                f"{'row' if len(ids) == 1 else 'rows'} {ranges(ids)}; "
                f"a key is looked for in {keyring.looked}" for kid, ids in self.missing.items()]


def verify(session: Session, keyring: Keyring, systems: Systems,
           anchors: Sequence[Anchor] = (), trusted: Sequence[PublicKey] = ()) -> Report:
    """Prove the chain, the head, every anchor, every warrior's cached fields and every
    fight's digests; what disagrees is named in ``Report.problems``. Signed rows are
    proved by the ``trusted`` public keys and the keyring's; older rows by its secrets,
    or by the seal the first signed row holds; warriors' sheets as ``systems`` record
    them.

    The rows are walked once, ``VERIFY_BATCH`` at a time: what is kept is per warrior
    (its rebuilt fields), per fight (its marks' digests), the hashes of the rows the
    anchors name and the ids of legacy or unkeyed rows; never the rows."""
    report = Report()
    walker = Walker(keyring, trusted, named_keys(session))
    totals = new_totals()
    marks = Marks()
    setups = Setups(systems)
    wanted = {anchor.id for anchor in anchors}
    anchored: dict[int, tuple[str, str | None]] = {}
    for row in chain_rows(session):
        walker.step(row)
        setups.before(row, totals)
        add_total(totals, row)
        setups.after(row, totals)
        marks.add(row)
        if row.id in wanted:
            anchored[row.id] = row.hash, row.key_id
    finish(walker, report)
    stored = head_row(session)
    if stored is None or stored.last_id != walker.last_id \
            or stored.last_hash != walker.previous:
        report.problems.append(
            f"ledger head does not match row {walker.last_id}: newest rows removed?")
    check_anchors(anchored, walker.last_id, anchors, walker.broken, report)
    check_stored(session, totals, marks, report, systems)
    check_setups(session, setups, report)
    return report


_FIGHT_BATCH = 500
"""Fights read per query when their setups are checked."""


def check_setups(session: Session, setups: Setups, report: Report) -> None:
    """Each fight a closing row ends: its setup sheets and its sides' accounts against
    the warriors the chain gives at that row (``setups``), read a batch of fights at a
    time; and what ``setups`` found of the skill rows, into ``report``."""
    report.problems += setups.problems
    ids = sorted(setups.at_close)
    for start in range(0, len(ids), _FIGHT_BATCH):
        batch = ids[start:start + _FIGHT_BATCH]
        sides: defaultdict[int, list[list[Any]]] = defaultdict(list)
        for seat in session.execute(
                select(FightSide.fight_id, FightSide.side, FightSide.warrior_id,
                       FightSide.account).where(FightSide.fight_id.in_(batch))
                .order_by(FightSide.fight_id, FightSide.side)):
            sides[seat.fight_id].append([seat.side, seat.warrior_id, seat.account])
        for fight_id, setup in session.execute(
                select(Fight.id, Fight.setup).where(Fight.id.in_(batch)).order_by(Fight.id)):
            report.problems += setups.check(fight_id, setup, sides[fight_id])


def check_stored(session: Session, totals: dict[int, dict[str, Any]], marks: Marks,
                 report: Report, systems: Systems) -> None:
    """Every warrior's stored columns against ``totals`` and every fight's logs and end
    against ``marks`` (the chain's, walked), into ``report`` (whose ``keyed`` says
    whether the chain is keyed)."""
    check_warriors(list(session.scalars(select(Warrior).order_by(Warrior.id))), totals,
                   report, systems)
    marks.problems.clear()
    marks.check(lambda fight, seq: fight_digest(session, fight, seq))
    fights = session.execute(
        select(Fight.id, Fight.active, Fight.ending, Fight.winner, Fight.ended_at)
        .order_by(Fight.id)).all()
    last_seqs, last_events = ({fight_id: seq for fight_id, seq in session.execute(
        select(log.fight_id, func.max(log.seq)).group_by(log.fight_id))}
        for log in (FightCommand, FightEvent))
    check_fights(fights, last_seqs, marks, report, last_events)


def finish(walker: Walker, report: Report) -> None:
    """The walk's end, into ``report``: its problems, notes, missing keys and head."""
    walker.finish()
    report.problems += walker.problems
    report.notes += walker.notes
    report.missing = walker.missing
    report.keyed = walker.keyed
    report.keys = walker.keys_seen
    report.head = Anchor(walker.last_id, walker.previous[:ANCHOR_DIGITS]) \
        if walker.walked else None


def check_anchors(anchored: dict[int, tuple[str, str | None]], last_id: int,
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
                f"{label}: row {anchor.id}'s hash starts {mac[:len(anchor.mac)]}: the "
                "ledger was rewritten up to there")
        elif broken is not None and broken >= anchor.id:
            report.problems.append(
                f"{label}: the chain from row {anchor.id} to the head is broken or unproved")
        else:
            weak = (" (a legacy row: anyone can recompute its hash; anchor a keyed row)"
                    if kid is None else "")
            report.notes.append(f"{label}: holds; the chain runs intact from it to the "
                                f"head #{last_id}{weak}")


def check_warriors(warriors: Sequence[Any], totals: dict[int, dict[str, Any]],
                   report: Report, systems: Systems) -> None:
    """Each warrior's stored fields (``Warrior`` rows, or an export's) against the
    fields the chain gives it."""
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
        for name, stored, proved in differences(warrior, derived, systems):
            report.problems.append(f"warrior {label}: {differs_said(name, stored, proved)}")
    if unnamed and not report.keyed:
        report.notes.append(f"{unnamed} warriors come from before the ledger recorded names "
                            "and owners: ancath-bot db seal-legacy records them as they are")


def check_fights(fights: Sequence[Any], last_seqs: dict[int, int], marks: Marks,
                 report: Report, last_events: dict[int, int] | None = None) -> None:
    """Each fight (id, active, ending, winner, ended_at) and its last command (and the
    command its last events are of) against the marks the chain holds of it."""
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
        late = (last_events or {}).get(fight.id) or 0
        if not isinstance(last, int) or not isinstance(late, int):
            report.problems.append(f"fight {fight.id}: its log's command numbers are damaged")
            continue
        if isinstance(detail.get("seq"), int) and last > detail["seq"]:
            report.problems.append(f"fight {fight.id}: commands {detail['seq'] + 1}..{last} "
                                   f"come after its end (ledger row {newest.id})")
        if isinstance(detail.get("seq"), int) and late > detail["seq"]:
            report.problems.append(f"fight {fight.id}: events of commands {detail['seq'] + 1}.."
                                   f"{late} come after its end (ledger row {newest.id})")
    if uncovered:
        report.notes.append(f"fights {ranges(uncovered)} ended before the ledger recorded "
                            "fights: ancath-bot db seal-legacy records them as they are")


