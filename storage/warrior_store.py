"""The store's part for warriors: their creation, their records, what a player buys
and what a moderator changes between fights (``change_sheet``: the change is the
caller's, its system's codec keeps it); each change with its ledger row, in one
transaction (a warrior's row itself: :mod:`storage.warrior_rows`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar, cast

from sqlalchemy import bindparam, exists, insert, select
from sqlalchemy.exc import IntegrityError

from rules.errors import OtherRules
from rules.stored import Change
from storage import ledger
from storage.chained import NotProved
from storage.errors import Busy, DuplicateName, StorageError, UnknownWarrior
from storage.models import Entry, FightSide, Warrior
from storage.records import Fighter, WarriorRecord
from storage.unit_of_work import UnitOfWork, unique_conflict
from storage.warrior_rows import fighter_of, warrior_record, warrior_row

__all__ = ["Warriors"]


_SEATED = exists().where(FightSide.warrior_id == Warrior.id, FightSide.active).label("seated")
"""Whether the warrior of the row is in an open fight, read with the row."""


_NEW = insert(Warrior).returning(Warrior.id)
_COLUMNS = tuple(column.key for column in Warrior.__table__.columns)
_BY_NAME = select(*(getattr(Warrior, key) for key in _COLUMNS), _SEATED).where(
    Warrior.name_key == bindparam("key"))
"""A warrior's columns by its name, and whether it is in an open fight."""
F = TypeVar("F", bound=Fighter)
"""A new warrior's fighter, as its record hands it back."""


class Warriors(UnitOfWork):
    """Creating warriors, reading them, and changing them outside fights."""

    def create_warrior(self, sheet: F, owner: str,
                       actor: str | None = None) -> WarriorRecord[F]:
        """Add a new warrior, of the handed system whose fighter ``sheet`` is, and its
        ``created`` ledger row (a club without that system refuses it)."""
        system = self.systems.owning(sheet)
        return self._create(system.name, sheet, owner, actor or owner, "warrior created")

    def create_fighter(self, system: str, fighter: F, owner: str) -> WarriorRecord[F]:
        """A fighter of another rules system (no BP, no skills: R9.6), with its
        ``created`` ledger row holding the whole profile."""
        return self._create(system, fighter, owner, owner, f"{system} fighter created")

    def _create(self, system: str, fighter: F, owner: str, actor: str,
                reason: str) -> WarriorRecord[F]:
        """A new free warrior's row, by a Core INSERT, and its ``created`` ledger row;
        its record. No ORM object is flushed, so a taken name (``DuplicateName``) fails
        only its own statement (a refused flush would end the whole transaction, a
        group-commit batch's included)."""
        if system not in self.systems:
            raise StorageError(f"no rules system {system!r} in this club: start the bot "
                               "with it")
        now = self._clock()
        name = fighter.name
        profile = self.systems.sheets(system).profile(fighter, {})
        values = {"name": name, "name_key": name.casefold(), "owner": owner,
                  "system": system, "profile": profile, "bp": 0, "bp_spent": 0,
                  "status": "free", "captor_id": None, "created_at": now}
        try:
            with self._tx() as session:
                new = session.connection().execute(_NEW, values)   # Core: no ORM insert
                row = Warrior(id=new.scalar_one(), **values)
                sheet = self.systems.recorded(system, profile)
                self._append(session, warrior_id=row.id, entry=Entry.CREATED,
                             detail={**ledger.identity(row, sheet), "skills": sheet["skills"]},
                             actor=actor, reason=reason, created_at=now)
                return cast(WarriorRecord[F], warrior_record(session, row, self.systems, False))
        except IntegrityError as error:
            if not unique_conflict(error):
                raise
            raise DuplicateName(f"the name {name} is taken") from error

    def warrior(self, name: str) -> WarriorRecord[Fighter]:
        """The warrior named ``name``, its row read as Core columns (no ORM query; what
        the session holds unwritten is written first, as an ORM query's autoflush would)."""
        with self._tx(write=False) as session:
            session.flush()
            found = session.connection().execute(_BY_NAME, {"key": name.casefold()}
                                                 ).one_or_none()
            if found is None:
                raise UnknownWarrior(f"no warrior named {name}")
            row = Warrior(**{key: found._mapping[key] for key in _COLUMNS})
            return warrior_record(session, row, self.systems, found.seated)

    def warriors(self, owner: str | None = None) -> list[WarriorRecord[Fighter]]:
        with self._tx(write=False) as session:
            query = select(Warrior, _SEATED).order_by(Warrior.name_key)
            if owner is not None:
                query = query.where(Warrior.owner == owner)
            return [warrior_record(session, row, self.systems, seated)
                    for row, seated in session.execute(query)]

    def change_sheet(self, name: str, change: Change, *, between: str | None = None
                     ) -> tuple[WarriorRecord[Fighter], dict[str, Any]]:
        """A between-fight change of a warrior's sheet (a purchase, a moderator's
        ruling), checked against the chain first, with the ledger row ``change`` gives;
        with ``between``, refused (``Busy``) while the warrior fights, ``between`` saying
        when instead. The new record and the row's fields."""
        with self._tx() as session:
            row = warrior_row(session, name, lock=True)
            if between is not None and warrior_record(session, row, self.systems).in_fight:
                raise Busy(f"{row.name} is in a fight; {between}")
            self.chained.check(session, row)
            sheets = self.systems.sheets(row.system)
            try:
                fighter, fields = change(fighter_of(row, self.systems))
            except OtherRules as other:
                raise StorageError(f"{row.name} fights by {row.system} rules: {other.what}") \
                    from None
            row.profile = sheets.profile(fighter, row.profile)
            row.bp, row.bp_spent = sheets.bp(fighter)
            written = {**fields, "entry": Entry(fields["entry"])}
            self._append(session, warrior_id=row.id, created_at=self._clock(), **written)
            return warrior_record(session, row, self.systems), fields

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
