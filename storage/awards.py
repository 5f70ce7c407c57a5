"""The ledger rows a fight's effects imply (BP awards, deaths, captures) with the
warrior changes they make, and their reversal when a moderator undoes the commands that
caused them (R8.1). The fight's rules system turns its events into effects
(``RuleSystem.ledger_effects``) and bounds BP (``bp_applied``); nothing here knows a
system."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from rules.effects import BPChange, Death
from rules.system import RuleSystem
from storage import ledger
from storage.models import Entry, LedgerRow, Warrior
from storage.records import Award, OpenFight
from storage.unit_of_work import UnitOfWork
from storage.warrior_rows import side_rows

__all__ = ["Awards"]


class Awards(UnitOfWork):
    """Writes a fight's ledger rows inside its transaction."""

    def _ledger_from_events(
        self, session: Session, fight: OpenFight, seq: int, events: Sequence[Any],
        actor: str, now: str, moderator: str | None = None, ruling: str | None = None,
    ) -> list[Award]:
        """The ledger rows the events' effects imply; returns the BP awards as added."""
        effects = fight.system.ledger_effects(events)
        awarded: list[Award] = []
        if not effects:
            return awarded
        warriors = side_rows(session, fight.id)
        for warrior in warriors:   # BP are bounded from the stored BP: the chain's only
            self.chained.check(session, warrior)
        base = {"fight_id": fight.id, "command_seq": seq, "actor": actor, "created_at": now,
                "moderator": moderator}
        why = f"; ruling: {ruling}" if ruling else ""
        for effect in effects:
            row = warriors[effect.side]
            if isinstance(effect, BPChange):
                applied = fight.system.bp_applied(row.bp, effect.tenths)
                row.bp += applied
                self._append(session, warrior_id=row.id, entry=Entry.AWARD, bp=applied,
                              reason=f"{fight.kind} fight: {effect.reason}{why}", **base)
                awarded.append(Award(effect.side, applied, effect.tenths, effect.reason))
            elif isinstance(effect, Death):
                row.status, row.captor_id = "dead", None
                self._append(session, warrior_id=row.id, entry=Entry.DEATH, status="dead",
                              reason=f"{effect.cause}{why}", **base)
            else:
                captor = warriors[effect.captor]
                row.status, row.captor_id = "prisoner", captor.id
                self._append(session, warrior_id=row.id, entry=Entry.PRISONER_TAKEN,
                              status="prisoner", captor_id=captor.id,
                              detail={"ransom": effect.ransom} if effect.ransom else None,
                              reason=f"taken prisoner by {captor.name}{why}", **base)
        return awarded

    def _reverse_after(
        self, session: Session, system: RuleSystem, fight_id: int, kept: list[int], seq: int,
        moderator: str, reason: str, now: str,
    ) -> None:
        """Ledger reversal rows for every row an undone command wrote.

        BP come back within 0..40.0 (R2.6) and the row says what was actually taken. A
        status (dead, prisoner) goes back to free only while it is still the one this
        fight gave: a prisoner since freed, or a warrior whose status changed in a later
        fight, keeps the later status."""
        latest_status = dict(session.execute(
            select(LedgerRow.warrior_id, func.max(LedgerRow.id))
            .where(LedgerRow.status.is_not(None)).group_by(LedgerRow.warrior_id)
        ).all())
        rows = session.scalars(
            select(LedgerRow).where(LedgerRow.fight_id == fight_id,
                                    LedgerRow.warrior_id.is_not(None),
                                    LedgerRow.entry.not_in((Entry.REVERSAL, Entry.UNDO,
                                                            *ledger.FIGHT_ENTRIES)))
            .order_by(LedgerRow.id)
        ).all()
        reversed_ids = {
            r.detail["reverses"] for r in session.scalars(
                select(LedgerRow).where(LedgerRow.fight_id == fight_id,
                                        LedgerRow.entry == Entry.REVERSAL))
            if r.detail
        }
        for row in rows:
            if row.command_seq in kept or row.id in reversed_ids:
                continue
            warrior = session.get_one(Warrior, row.warrior_id, with_for_update=True)
            applied = system.bp_applied(warrior.bp, -row.bp)
            warrior.bp += applied
            status = None
            if row.status is not None and latest_status.get(warrior.id) == row.id:
                status, warrior.status, warrior.captor_id = "free", "free", None
            self._append(
                session, warrior_id=row.warrior_id, entry=Entry.REVERSAL, bp=applied,
                status=status, detail={"reverses": row.id}, actor=moderator,
                moderator=moderator, fight_id=fight_id, command_seq=seq,
                reason=f"undo: {reason}", created_at=now,
            )
