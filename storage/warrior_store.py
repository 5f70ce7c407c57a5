"""The store's part for warriors: their creation, their records, what a player buys
and what a moderator changes between fights; each change with its ledger row, in one
transaction (a warrior's row itself: :mod:`storage.warrior_rows`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import exists, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from rules.ancath.sheet import Sheet, add_bp, buy_skill, set_armour, set_skill
from rules.ancath.tables import Armour, Skill
from rules.codec import encode
from storage import ledger
from storage.chained import NotProved
from storage.errors import Busy, DuplicateName, StorageError, UnknownWarrior
from storage.models import Entry, FightSide, Warrior
from storage.profiles import ancath_profile
from storage.records import Fighter, WarriorRecord
from storage.unit_of_work import UnitOfWork, unique_conflict
from storage.warrior_rows import (
    ancath_record,
    apply_sheet,
    sheet_of,
    warrior_record,
    warrior_row,
)

__all__ = ["Warriors"]


_SEATED = exists().where(FightSide.warrior_id == Warrior.id, FightSide.active).label("seated")
"""Whether the warrior of the row is in an open fight, read with the row."""


_NEW = insert(Warrior).returning(Warrior.id)
R = TypeVar("R")
"""What a new warrior is handed back as (its record, typed by its system)."""


class Warriors(UnitOfWork):
    """Creating warriors, reading them, and changing them outside fights."""

    def create_warrior(self, sheet: Sheet, owner: str,
                       actor: str | None = None) -> WarriorRecord[Sheet]:
        """Add a new warrior and its ``created`` ledger row."""
        skills = {s.value: v for s, v in sheet.skills.items()}
        return self._create(sheet.name, owner, "ancath",
                            ancath_profile(sheet.culture.value, sheet.armour.value, skills),
                            skills, actor or owner, "warrior created", ancath_record)

    def create_fighter(self, system: str, fighter: Fighter,
                       owner: str) -> WarriorRecord[Fighter]:
        """A fighter of another rules system (no BP, no skills: R9.6), with its
        ``created`` ledger row holding the whole profile."""
        return self._create(fighter.name, owner, system, encode(fighter), {}, owner,
                            f"{system} fighter created", warrior_record)

    def _create(self, name: str, owner: str, system: str, profile: dict[str, Any],
                skills: dict[str, int], actor: str, reason: str,
                record: Callable[[Session, Warrior, bool], R]) -> R:
        """A new free warrior's row, by a Core INSERT, and its ``created`` ledger row;
        ``record`` of it. No ORM object is flushed, so a taken name (``DuplicateName``)
        fails only its own statement (a refused flush would end the whole transaction,
        a group-commit batch's included)."""
        now = self._clock()
        values = {"name": name, "name_key": name.casefold(), "owner": owner,
                  "system": system, "profile": profile, "bp": 0, "bp_spent": 0,
                  "status": "free", "captor_id": None, "created_at": now}
        try:
            with self._tx() as session:
                row = Warrior(id=session.execute(_NEW, values).scalar_one(), **values)
                self._append(session, warrior_id=row.id, entry=Entry.CREATED,
                             detail={**ledger.identity(row), "skills": skills}, actor=actor,
                             reason=reason, created_at=now)
                return record(session, row, False)
        except IntegrityError as error:
            if not unique_conflict(error):
                raise
            raise DuplicateName(f"the name {name} is taken") from error

    def warrior(self, name: str) -> WarriorRecord[Fighter]:
        with self._tx(write=False) as session:
            found = session.execute(select(Warrior, _SEATED)
                                    .where(Warrior.name_key == name.casefold())).one_or_none()
            if found is None:
                raise UnknownWarrior(f"no warrior named {name}")
            return warrior_record(session, *found)

    def warriors(self, owner: str | None = None) -> list[WarriorRecord[Fighter]]:
        with self._tx(write=False) as session:
            query = select(Warrior, _SEATED).order_by(Warrior.name_key)
            if owner is not None:
                query = query.where(Warrior.owner == owner)
            return [warrior_record(session, *found) for found in session.execute(query)]

    def buy_skill(self, name: str, skill: Skill, actor: str) -> WarriorRecord[Sheet]:
        """Spend BP on a skill, outside any fight (R2.8)."""
        with self._tx() as session:
            row = warrior_row(session, name, lock=True)
            if warrior_record(session, row).in_fight:
                raise Busy(f"{row.name} is in a fight; buy skills after it")
            self.chained.check(session, row)   # bought from the sheet the chain gives
            sheet, (bought,) = buy_skill(sheet_of(row), skill)
            apply_sheet(row, sheet)
            self._append(
                session, warrior_id=row.id, entry=Entry.SPEND, spent=bought.cost,
                skill=skill.value, skill_value=bought.new, actor=actor,
                reason=f"bought {skill.value} {bought.old}->{bought.new}",
                created_at=self._clock(),
            )
            return ancath_record(session, row)

    def adjust_bp(self, name: str, tenths: int, moderator: str, reason: str) -> int:
        """A moderator's BP change (R8.1); returns the tenths actually applied (R2.6)."""
        with self._tx() as session:
            row = warrior_row(session, name, lock=True)
            self.chained.check(session, row)
            sheet, (changed,) = add_bp(sheet_of(row), tenths)
            apply_sheet(row, sheet)
            self._append(
                session, warrior_id=row.id, entry=Entry.MODERATOR_BP, bp=changed.applied,
                actor=moderator, moderator=moderator, reason=reason, created_at=self._clock(),
            )
            return changed.applied

    def set_skill(self, name: str, skill: Skill, value: int, moderator: str, reason: str) -> None:
        """A moderator sets a skill (R8.1)."""
        with self._tx() as session:
            row = warrior_row(session, name, lock=True)
            self.chained.check(session, row)
            sheet, _ = set_skill(sheet_of(row), skill, value)
            apply_sheet(row, sheet)
            self._append(
                session, warrior_id=row.id, entry=Entry.MODERATOR_SKILL, skill=skill.value,
                skill_value=value, actor=moderator, moderator=moderator, reason=reason,
                created_at=self._clock(),
            )

    def set_armour(self, name: str, armour: Armour, moderator: str, reason: str) -> str:
        """A moderator gives a warrior other armour, between fights only (R2.1: a goblin's
        captured armour); returns the armour it had."""
        with self._tx() as session:
            row = warrior_row(session, name, lock=True)
            if warrior_record(session, row).in_fight:
                raise Busy(f"{row.name} is in a fight; change armour after it")
            self.chained.check(session, row)
            sheet, (changed,) = set_armour(sheet_of(row), armour)
            row.profile = {**row.profile, "armour": sheet.armour.value}
            self._append(
                session, warrior_id=row.id, entry=Entry.MODERATOR_ARMOUR,
                detail={"armour": armour.value, "was": changed.old.value,
                        "captured": changed.captured},
                actor=moderator, moderator=moderator, reason=reason, created_at=self._clock(),
            )
            return changed.old.value

    def free(self, name: str, actor: str, reason: str, moderator: str | None = None) -> None:
        """Release a prisoner; the bot checks that ``actor`` is the captor or a moderator,
        and here, for a captor (no ``moderator``), that the chain says so too: the
        prisoner's captor and the captor's owner as their ledger rows give them."""
        with self._tx() as session:
            row = warrior_row(session, name, lock=True)
            self.chained.check(session, row)
            if row.status != "prisoner":
                raise StorageError(f"{row.name} is not a prisoner")
            captor = session.get(Warrior, row.captor_id) if row.captor_id else None
            if moderator is None and (captor is None or self.chained.check(
                    session, captor).get("owner") != actor):
                raise StorageError(f"{row.name} is not your prisoner by the ledger")
            row.status, row.captor_id = "free", None
            self._append(
                session, warrior_id=row.id, entry=Entry.PRISONER_FREED, status="free",
                actor=actor, moderator=moderator, reason=reason, created_at=self._clock(),
            )

    def check_warriors(self, sides: Sequence[tuple[str, str | None]]) -> None:
        """Refuse (``chained.NotProved``) when a named warrior's stored columns differ
        from what its ledger rows give it, or when its owner by the chain is not the
        account given beside it (None: any owner): what a challenge is made from."""
        with self._tx(write=False) as session:
            for name, account in sides:
                row = warrior_row(session, name)
                if account is not None and self.chained.check(
                        session, row).get("owner") != account:
                    raise NotProved(f"{row.name}'s owner by the ledger is not the one the "
                                    "challenge names: a moderator must look; ancath-bot "
                                    "audit verify")
                if account is None:
                    self.chained.check(session, row)

    def captor_account(self, name: str) -> str | None:
        """The owner of the warrior holding ``name`` prisoner."""
        with self._tx(write=False) as session:
            row = warrior_row(session, name)
            captor = session.get(Warrior, row.captor_id) if row.captor_id else None
            return captor.owner if captor else None
