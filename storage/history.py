"""The club's history as leadership and players read it: standings, a warrior's fights
and counts, one fight's summary and its whole command log (undo records included), and
a warrior's ledger as BP over time. Read-only, one transaction per call.

Counts come from the finished fights (``fights`` and ``fight_sides``) and the ledger:
a win is a finished fight whose ``winner`` is the warrior's side, a loss one whose winner
is the other side, a draw one with no winner. How a fight ended is its ``ending``
word (An Cath: kill, first-blood, yield, escape, forfeit, moderator, draw); a *kill* is
a win by ``kill`` (An Cath) or ``dead`` (Simple Contest), a *yield* and an *escape* are
the warrior's own losses by ``yield`` and ``escape``, and a *prisoner taken* is a
``prisoner-taken`` ledger row whose captor is the warrior, unless a moderator's undo
reversed it. BP *from fights* is the sum of the ledger rows that name a fight (awards
and their reversals), BP *from moderators* that of ``moderator-bp`` rows.

A fight's network is named (``FightSummary.network``) only when the club's fights are
on more than one: a club on one network sees its channels as before.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from storage.errors import DamagedRecord
from storage.models import Entry, Fight, FightCommand, FightSide, LedgerRow, Warrior
from storage.records import (
    FightLine,
    FightSummary,
    LoggedCommand,
    Standing,
    WarriorStats,
)
from storage.unit_of_work import UnitOfWork
from storage.warrior_rows import check_row, warrior_row

log = logging.getLogger(__name__)

__all__ = ["KILLS", "History", "result_of"]

KILLS = frozenset({"kill", "dead"})
"""The endings where the winner slew the loser (An Cath R4.6, Simple Contest R9.5)."""


def result_of(side: int, active: bool, winner: int | None) -> str:
    """``won``, ``lost``, ``draw`` or ``open``: a fight as one side's result."""
    if active:
        return "open"
    if winner is None:
        return "draw"
    return "won" if winner == side else "lost"


class History(UnitOfWork):
    """What the club's records say of its warriors and fights, for ``!top``,
    ``!history``, ``!stats``, ``!fight`` and the leadership pages."""

    def standings(self, culture: str | None = None) -> list[Standing]:
        """Every warrior by BP, most first, ties by wins, then by name; with
        ``culture``, An Cath warriors of that culture only (what its system's codec
        groups it by, ``SheetCodec.group``)."""
        with self._tx(write=False) as session:
            results = _results(session)
            rows = session.scalars(select(Warrior)).all()
            out = []
            for row in rows:
                try:
                    check_row(row, self.systems)
                except DamagedRecord as error:   # left out, and said, not a failed !top
                    log.warning("standings: left out: %s", error)
                    continue
                found = self.systems.sheets(row.system).group(row.profile)
                if culture is not None and found != culture:
                    continue
                tally = results.get(row.id, {})
                out.append(Standing(
                    row.name, row.system, found, row.status, row.bp, tally.get("won", 0),
                    tally.get("lost", 0), tally.get("draw", 0), row.owner))
        out.sort(key=lambda s: (-s.bp, -s.wins, s.name.casefold()))
        return out

    def fight_history(self, name: str, limit: int | None = None) -> list[FightLine]:
        """``name``'s fights, newest first (the last ``limit`` when given)."""
        with self._tx(write=False) as session:
            warrior = warrior_row(session, name)
            query = (select(FightSide.fight_id, FightSide.side)
                     .where(FightSide.warrior_id == warrior.id)
                     .order_by(FightSide.fight_id.desc()))
            if limit is not None:
                query = query.limit(limit)
            seats = session.execute(query).all()
            return _lines(session, warrior.id, [(f, s) for f, s in seats])

    def warrior_stats(self, name: str) -> WarriorStats:
        """``name``'s counts over every finished fight and the ledger (see above)."""
        with self._tx(write=False) as session:
            warrior = warrior_row(session, name)
            fights = _lines(session, warrior.id, [
                (f, s) for f, s in session.execute(
                    select(FightSide.fight_id, FightSide.side)
                    .where(FightSide.warrior_id == warrior.id))])
            done = [f for f in fights if f.result != "open"]
            taken = _captures(session, warrior.id)
            from_fights = session.scalar(select(func.coalesce(func.sum(LedgerRow.bp), 0)).where(
                LedgerRow.warrior_id == warrior.id, LedgerRow.fight_id.is_not(None))) or 0
            from_mods = session.scalar(select(func.coalesce(func.sum(LedgerRow.bp), 0)).where(
                LedgerRow.warrior_id == warrior.id,
                LedgerRow.entry == Entry.MODERATOR_BP.value)) or 0
            return WarriorStats(
                warrior.name, len(done), _count(done, "won"), _count(done, "lost"),
                _count(done, "draw"),
                sum(1 for f in done if f.result == "won" and f.ending in KILLS),
                sum(1 for f in done if f.result == "lost" and f.ending == "yield"),
                sum(1 for f in done if f.result == "lost" and f.ending == "escape"),
                taken, int(from_fights), int(from_mods), warrior.bp, warrior.status)

    def fight_summary(self, fight_id: int) -> FightSummary | None:
        """Fight number ``fight_id`` in brief, or None when there is no such fight."""
        with self._tx(write=False) as session:
            fight = session.get(Fight, fight_id)
            if fight is None:
                return None
            seats = session.execute(
                select(FightSide.side, Warrior.name, FightSide.account, Warrior.id)
                .join(Warrior, Warrior.id == FightSide.warrior_id)
                .where(FightSide.fight_id == fight_id).order_by(FightSide.side)).all()
            gained = _gained(session, [fight_id])
            networks = _networks(session)
            return FightSummary(
                fight.id, fight.channel, fight.system, fight.kind,
                tuple(name for _, name, _, _ in seats),
                tuple(account for _, _, account, _ in seats), fight.active,
                fight.started_at, fight.ended_at, fight.ending, fight.winner,
                tuple(gained.get((fight_id, wid), 0) for _, _, _, wid in seats),
                fight.setup, fight.network if networks else None)

    def fights(self, before: int | None = None, limit: int = 50) -> list[FightSummary]:
        """The newest fights (those numbered below ``before`` when given), newest first."""
        with self._tx(write=False) as session:
            query = select(Fight.id).order_by(Fight.id.desc()).limit(limit)
            if before is not None:
                query = query.where(Fight.id < before)
            ids = list(session.scalars(query))
        return [s for s in map(self.fight_summary, ids) if s is not None]

    def command_log(self, fight_id: int) -> list[LoggedCommand]:
        """Every command row of a fight in order, undo records and the commands they
        took back included, with who sent each and when."""
        with self._tx(write=False) as session:
            rows = session.execute(
                select(FightCommand.seq, FightCommand.command, FightCommand.actor,
                       FightCommand.created_at)
                .where(FightCommand.fight_id == fight_id).order_by(FightCommand.seq)).all()
            return [LoggedCommand(seq, data, actor, at) for seq, data, actor, at in rows]

    def fight_progress(self, fight_id: int) -> tuple[int, bool] | None:
        """Fight ``fight_id``'s newest command number (0 before any) and whether it goes
        on, in one cheap query (a live page's poll); None when there is no such fight."""
        with self._tx(write=False) as session:
            newest = select(func.coalesce(func.max(FightCommand.seq), 0)).where(
                FightCommand.fight_id == fight_id).scalar_subquery()
            found = session.execute(select(newest, Fight.active).where(
                Fight.id == fight_id)).one_or_none()
            return None if found is None else (int(found[0]), bool(found[1]))


def _networks(session: Session) -> bool:
    """Whether the club's fights are on more than one network (from the index)."""
    low, high = session.execute(select(func.min(Fight.network), func.max(Fight.network))).one()
    return bool(low != high)


def _captures(session: Session, captor: int) -> int:
    """How many ``prisoner-taken`` rows name ``captor``, less those a moderator's undo
    reversed (a ``reversal`` row of the same fight names the row it reverses)."""
    rows = dict(session.execute(select(LedgerRow.id, LedgerRow.fight_id).where(
        LedgerRow.entry == Entry.PRISONER_TAKEN.value, LedgerRow.captor_id == captor)).all())
    reversed_ids = {detail.get("reverses") for detail in session.scalars(
        select(LedgerRow.detail).where(LedgerRow.entry == Entry.REVERSAL.value,
                                       LedgerRow.fight_id.in_(set(rows.values()))))
        if detail}
    return len(rows.keys() - reversed_ids)


def _count(fights: Iterable[FightLine], result: str) -> int:
    return sum(1 for f in fights if f.result == result)


def _results(session: Session) -> dict[int, dict[str, int]]:
    """Per warrior id: how many finished fights it won, lost and drew."""
    query = (select(FightSide.warrior_id, FightSide.side, Fight.winner)
             .join(Fight, Fight.id == FightSide.fight_id).where(Fight.active.is_(False)))
    out: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for wid, side, winner in session.execute(query):
        out[wid][result_of(side, False, winner)] += 1
    return out


def _gained(session: Session, fight_ids: Sequence[int]) -> dict[tuple[int, int], int]:
    """(fight, warrior) -> tenths of BP its ledger rows added (awards less reversals)."""
    if not fight_ids:
        return {}
    rows = session.execute(
        select(LedgerRow.fight_id, LedgerRow.warrior_id, func.sum(LedgerRow.bp))
        .where(LedgerRow.fight_id.in_(fight_ids), LedgerRow.warrior_id.is_not(None))
        .group_by(LedgerRow.fight_id, LedgerRow.warrior_id))
    return {(fid, wid): int(total or 0) for fid, wid, total in rows
            if fid is not None and wid is not None}


def _lines(session: Session, warrior: int, seats: list[tuple[int, int]]) -> list[FightLine]:
    """The fights ``seats`` (fight id, the warrior's side) as the warrior's lines."""
    ids = [fight_id for fight_id, _ in seats]
    if not ids:
        return []
    fights: dict[int, Any] = {f.id: f for f in session.scalars(
        select(Fight).where(Fight.id.in_(ids)))}
    foes: dict[int, list[str]] = defaultdict(list)
    for fight_id, name in session.execute(
            select(FightSide.fight_id, Warrior.name)
            .join(Warrior, Warrior.id == FightSide.warrior_id)
            .where(FightSide.fight_id.in_(ids), FightSide.warrior_id != warrior)
            .order_by(FightSide.side)):
        foes[fight_id].append(name)
    gained = _gained(session, ids)
    networks = _networks(session)
    out = []
    for fight_id, side in seats:
        fight = fights[fight_id]
        out.append(FightLine(
            fight.id, fight.channel, fight.system, fight.kind, side,
            ", ".join(foes[fight_id]) or "?", result_of(side, fight.active, fight.winner),
            fight.ending, gained.get((fight_id, warrior), 0), fight.started_at,
            fight.ended_at, fight.network if networks else None))
    return out
