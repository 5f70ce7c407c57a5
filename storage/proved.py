"""The records as the ledger proves them, beside what their stored columns say: for
the leadership pages, which show only what the chain gives.

A :class:`storage.proof.Proof` (the caller's, advanced only under the caller's lock)
walks the chain once and then only the rows appended since (:meth:`ProvedView.prove`);
every warrior is rebuilt from the rows (:meth:`ProvedView.proved_warriors`: the record
as the rows give it, and each stored column that says otherwise), every fight's end
read from its closing row and its logs checked against that row's digests
(:meth:`ProvedView.proved_fights`), and each ledger row a page shows checked on its own
(:meth:`ProvedView.unheld_rows`: edited in place after the walk passed it, it is caught
there). Each call is one read transaction, or the caller's (``UnitOfWork.reading``: a
page's reads of one moment, so the columns are compared with the rows of that moment).

A row holds on its own only as the chain's rules say: :mod:`storage.row_judge`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, cast

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from storage.audit import Report, check_anchors, check_stored, check_warriors
from storage.chain import GENESIS
from storage.fight_digests import fight_digest
from storage.keys import Keyring
from storage.ledger import ROWS, Anchor
from storage.models import Entry, Fight, FightCommand, FightSide, LedgerRow, Warrior
from storage.proof import Proof, Verdict
from storage.records import Fighter, WarriorRecord
from storage.row_judge import Judge, RowWalker
from storage.sheets import Systems
from storage.signing import PublicKey
from storage.unit_of_work import UnitOfWork
from storage.warrior_rows import fighter_of
from storage.warrior_totals import differences, differs_said

__all__ = ["MOST_ROW_ID", "Advance", "ProvedFight", "ProvedView", "ProvedWarrior",
           "RowChecks", "pages_proof"]

MOST_ROW_ID = 2**31 - 1
"""The greatest ledger row id every backend holds (the id column is an INTEGER: 32 bits
on PostgreSQL, more on SQLite, and no club comes near it)."""

_FIGHTS = select(Fight.id, Fight.active, Fight.ending, Fight.winner, Fight.ended_at)
_CHUNK = 500
"""Row ids a query names at most (SQLite and PostgreSQL limit a query's parameters)."""


@dataclass(frozen=True, slots=True)
class Advance:
    """What one walk on found: the chain's verdict, and what the stored records say
    that the chain does not (a warrior's column, a fight's log or end)."""

    verdict: Verdict
    problems: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ProvedWarrior:
    """A warrior as the ledger's rows give it, beside its stored columns."""

    id: int
    name: str
    """As stored: the pages' links go by it."""
    proved: WarriorRecord[Fighter] | None
    """Rebuilt from the rows; None when no row names it, or the sheet the rows give
    cannot be read."""
    columns: dict[str, Any]
    """The fields the rows give (``bp`` in tenths, ``bp_spent``, ``status``, ``owner``,
    ``culture``, ``armour``, ``skills``, ``captor_id``, ...), the stored ones where the
    rows say nothing."""
    differs: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    """Each stored column that differs from the rows: its stored value and the rows'."""
    in_ledger: bool = True
    """Whether any ledger row names it."""
    unproved: tuple[int, ...] = ()
    """Its rows the walk found do not hold: what the rows give it is not proved."""

    @property
    def problems(self) -> list[str]:
        """What disagrees, in words (as ``audit verify`` says it)."""
        label = self.columns["name"]
        if not self.in_ledger:
            return [f"warrior {label}: no ledger rows (not created through the bot)"]
        out = [f"warrior {label}: {differs_said(name, stored, proved)}"
               for name, (stored, proved) in self.differs.items()]
        if self.proved is None:
            out.append(f"warrior {label}: the sheet its ledger rows give cannot be read")
        return out


@dataclass(frozen=True, slots=True)
class ProvedFight:
    """A fight's end as its newest closing row records it, and whether its logs are
    still what that row's digests say."""

    id: int
    mark: int | None
    """The newest ``fight-closed`` or ``fight-reopened`` row of it; None: no row."""
    closed: bool
    """That row closes it (a ``fight-closed`` row)."""
    ending: str | None = None
    winner: int | None = None
    ended_at: str | None = None
    altered: tuple[str, ...] = ()
    """The parts of its logs (in words: ``command log``, ...) that differ from the
    mark's digests; with ``logs`` asked for only."""
    differs: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    """Its stored ``ending``, ``winner``, ``ended_at`` (or ``active``) that differ from
    the closing row: the stored value and the row's."""
    unclosed: bool = False
    """Stored as ended, but no ledger row closes it (on a keyed chain)."""
    late: tuple[int, int] | None = None
    """Commands stored after the command its closing row ends at: the first and last."""

    @property
    def problems(self) -> list[str]:
        """What disagrees, in words (as ``audit verify`` says it)."""
        out = [f"fight {self.id}: its {what} differs from ledger row {self.mark} (changed "
               "since)" for what in self.altered]
        out += [f"fight {self.id}: {name} is {stored!r}, ledger row {self.mark} says "
                f"{proved!r}" for name, (stored, proved) in self.differs.items()]
        if self.unclosed:
            out.append(f"fight {self.id}: ended, but no ledger row closes it")
        if self.late is not None:
            out.append(f"fight {self.id}: commands {self.late[0]}..{self.late[1]} come after "
                       f"its end (ledger row {self.mark})")
        return out


def _columns(row: Warrior, derived: dict[str, Any] | None,
             systems: Systems) -> dict[str, Any]:
    """The warrior's fields as the rows give them, the stored ones where they say
    nothing."""
    values: dict[str, Any] = {
        "name": row.name, "owner": row.owner, "system": row.system,
        **systems.recorded(row.system, row.profile),
        "bp": row.bp, "bp_spent": row.bp_spent, "status": row.status,
        "captor_id": row.captor_id}
    if derived is None:
        return values
    for name in values:
        if name in derived:
            value = derived[name]
            values[name] = dict(value) if isinstance(value, dict) else value
    return values


def _record(session: Session, row: Warrior, columns: dict[str, Any],
            seated: bool, systems: Systems) -> WarriorRecord[Fighter] | None:
    """The warrior's record with ``columns`` for its stored ones; None when the sheet
    they give cannot be read."""
    profile = systems.sheets(row.system).unrecorded(columns)
    rebuilt = SimpleNamespace(id=row.id, name=columns["name"], owner=columns["owner"],
                              system=row.system, profile=profile, bp=columns["bp"],
                              bp_spent=columns["bp_spent"], status=columns["status"])
    try:
        fighter = fighter_of(cast(Warrior, rebuilt), systems)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    captor = session.get(Warrior, columns["captor_id"]) if columns["captor_id"] else None
    return WarriorRecord(row.id, fighter, columns["owner"], captor.name if captor else None,
                         seated, row.system, columns["status"])


def pages_proof(keyring: Keyring, trusted: tuple[PublicKey, ...] = ()) -> Proof:
    """A proof from row 1 that can judge each row a page shows
    (:meth:`ProvedView.unheld_rows`)."""
    return Proof(RowWalker(keyring, trusted))


@dataclass(frozen=True, slots=True)
class RowChecks:
    """What the chain says of the ledger rows a page shows, where they do not simply
    hold."""

    unheld: dict[int, str] = field(default_factory=dict)
    """Rows that do not hold (edited, forged, written without the key), each with why:
    any fails the check."""
    unproved: dict[int, str] = field(default_factory=dict)
    """Rows not proved here (signed with a key not known here, not walked yet), each
    with why."""


class ProvedView(UnitOfWork):
    """The records as a :class:`Proof` gives them (module docstring)."""

    def prove(self, proof: Proof, *, whole: bool = False) -> Advance:
        """Walk the rows appended since ``proof`` last walked (every row the first time),
        and compare the stored columns of the warriors and fights those rows name with
        what the chain gives; ``whole``: of every warrior and fight, as ``audit verify``
        does. Under the caller's lock: the proof changes."""
        with self._tx(write=False) as session:
            since = proof.walker.last_id
            verdict = proof.advance(session)
            if whole:
                report = Report(keyed=proof.walker.keyed)
                check_stored(session, proof.totals, proof.marks, report, self.systems)
                return Advance(verdict, tuple(report.problems))
            named = session.execute(select(LedgerRow.warrior_id, LedgerRow.fight_id)
                                    .where(LedgerRow.id > since)).all()
            warriors = {w for w, _ in named if w is not None}
            fights = {f for _, f in named if f is not None}
            problems: list[str] = []
            if warriors:
                report = Report(keyed=proof.walker.keyed)
                check_warriors(
                    list(session.scalars(select(Warrior).where(Warrior.id.in_(warriors)))),
                    {w: proof.totals[w] for w in warriors if w in proof.totals}, report,
                    self.systems)
                problems += report.problems
            for fight in self._fights(session, proof, fights, logs=True).values():
                problems += fight.problems
        return Advance(verdict, tuple(problems))

    def proved_warriors(self, proof: Proof,
                        names: Iterable[str] | None = None) -> dict[str, ProvedWarrior]:
        """Every warrior (or those ``names`` name), by stored name, as ``proof``'s rows
        give it. Under the caller's lock."""
        with self._tx(write=False) as session:
            query = select(Warrior).order_by(Warrior.id)
            if names is not None:
                query = query.where(Warrior.name_key.in_({n.casefold() for n in names}))
            rows = list(session.scalars(query))
            seated = set(session.scalars(select(FightSide.warrior_id).where(
                FightSide.active, FightSide.warrior_id.in_([r.id for r in rows]))))
            failed: dict[int, list[int]] = {}
            for row_id, warrior_id in proof.failed.items():
                if warrior_id is not None:
                    failed.setdefault(warrior_id, []).append(row_id)
            out = {}
            for row in rows:
                derived = proof.totals.get(row.id)
                columns = _columns(row, derived, self.systems)
                proved = _record(session, row, columns, row.id in seated, self.systems) \
                    if derived is not None else None
                differs = {name: (was, now) for name, was, now in differences(
                    row, derived, self.systems)} if derived is not None else {}
                differs.pop("name_key", None)   # said by "name"
                out[row.name] = ProvedWarrior(row.id, row.name, proved, columns,
                                              differs, derived is not None,
                                              tuple(failed.get(row.id, ())))
            return out

    def proved_fights(self, proof: Proof, ids: Iterable[int], *,
                      logs: bool = False) -> dict[int, ProvedFight]:
        """The fights ``ids``, their ends as ``proof``'s closing rows record them and
        their stored columns beside; ``logs``: their logs checked against those rows'
        digests too (reads each whole log). Under the caller's lock."""
        with self._tx(write=False) as session:
            return self._fights(session, proof, set(ids), logs=logs)

    def _fights(self, session: Session, proof: Proof, ids: set[int], *,
                logs: bool) -> dict[int, ProvedFight]:
        if not ids:
            return {}
        out = {}
        last_seqs = dict(session.execute(
            select(FightCommand.fight_id, func.max(FightCommand.seq))
            .where(FightCommand.fight_id.in_(ids)).group_by(FightCommand.fight_id)).all())
        for fight in session.execute(_FIGHTS.where(Fight.id.in_(ids))):
            newest = proof.marks.newest.get(fight.id)
            closed = newest is not None and newest.entry == Entry.FIGHT_CLOSED
            detail: dict[str, Any] = newest.detail if newest is not None and closed else {}
            differs: dict[str, tuple[Any, Any]] = {}
            if closed and fight.active:
                differs["active"] = (True, False)
            elif closed:
                differs = {name: (getattr(fight, name), detail.get(name))
                           for name in ("ending", "winner", "ended_at")
                           if getattr(fight, name) != detail.get(name)}
            altered = tuple(proof.marks.altered(
                fight.id, lambda f, seq: fight_digest(session, f, seq))) if logs else ()
            seq, last = detail.get("seq"), last_seqs.get(fight.id) or 0
            late = (seq + 1, last) if type(seq) is int and type(last) is int \
                and last > seq else None   # a seq stored as text is not compared
            out[fight.id] = ProvedFight(
                fight.id, newest.id if newest is not None else None, closed,
                detail.get("ending"), detail.get("winner"), detail.get("ended_at"), altered,
                differs, not fight.active and not closed and proof.walker.keyed, late)
        return out

    def unheld_rows(self, proof: Proof, ids: Iterable[int]) -> RowChecks:
        """Of the ledger rows ``ids``, those that do not hold on their own by the rules
        of the chain ``proof`` walked (module docstring: edited, forged, written without
        the key, or the link to the row before broken), and those not proved here, each
        with why. ``proof``'s walker is a :class:`RowWalker` (:func:`pages_proof`), or
        every row is not proved. Under the caller's lock."""
        wanted = sorted({i for i in ids if 0 < i <= MOST_ROW_ID})
        if not wanted:
            return RowChecks()
        rows: list[Any] = []
        before: dict[int, Any] = {}
        with self._tx(write=False) as session:   # a few hundred ids a query: no limit met
            for start in range(0, len(wanted), _CHUNK):
                part = session.execute(ROWS.where(LedgerRow.id.in_(
                    wanted[start:start + _CHUNK]))).all()
                rows += part
                before.update(session.execute(select(LedgerRow.id, LedgerRow.hash).where(
                    LedgerRow.id.in_({row.id - 1 for row in part}))).all())
        before[0] = GENESIS
        judge = Judge(proof.walker, self.keyring)
        out = RowChecks()
        for row in rows:
            judged = judge(row)
            if (judged is None or not judged[0]) and before.get(row.id - 1) != row.prev_hash:
                judged = True, "chain broken before it (row removed or changed)"
            if judged is not None:
                (out.unheld if judged[0] else out.unproved)[row.id] = judged[1]
        return out

    def anchor_check(self, proof: Proof, anchor: Anchor) -> tuple[bool, str]:
        """Whether the chain as ``proof`` walked it still extends ``anchor`` (its row
        still has that hash, and the chain runs proved from it to the head), in words.
        Under the caller's lock."""
        found = None
        if 0 < anchor.id <= MOST_ROW_ID:   # no row has another id (nor can one be asked)
            with self._tx(write=False) as session:
                found = session.execute(select(LedgerRow.hash, LedgerRow.key_id)
                                        .where(LedgerRow.id == anchor.id)).one_or_none()
        report = Report()
        anchored = {anchor.id: (str(found.hash), found.key_id)} if found is not None else {}
        check_anchors(anchored, proof.walker.last_id, [anchor], proof.verdict.broken, report)
        if report.problems:
            return False, report.problems[0]
        checked = self.unheld_rows(proof, [anchor.id])   # edited in place since the walk?
        for why, said in ((checked.unheld, "does not hold"), (checked.unproved, "is not proved")):
            if anchor.id in why:
                return False, f"anchor {anchor}: row {anchor.id} {said}: {why[anchor.id]}"
        return True, report.notes[0]
