"""The unit of work the bot talks to: one transaction per accepted command.

Every method opens its own transaction and commits it whole or not at all. A fight
command, the events it caused, the ledger rows they imply and the warrior caches they
change are written together (``record``); a refused command never reaches here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, Row, Select, delete, func, select, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from rules.ancath.events import BPAwarded, PrisonerTaken, WarriorSlain
from rules.ancath.sheet import Sheet, Status, add_bp, buy_skill, set_armour, set_skill
from rules.ancath.tables import Armour, Culture, Skill
from rules.codec import encode
from rules.system import RuleSystem
from rules.systems import SYSTEMS
from storage import audit, ledger
from storage.audit import Report
from storage.db import READ_ONLY, sqlite_path
from storage.errors import RecordsBusy, RecordsLost, StorageError
from storage.keys import Keyring, KeyringError, load_keyring
from storage.ledger import Anchor
from storage.models import (
    Fight,
    FightCommand,
    FightEvent,
    FightSide,
    LedgerHead,
    LedgerRow,
    PendingChallenge,
    Setting,
    Warrior,
)

__all__ = [
    "Anchor",
    "Award",
    "Busy",
    "ChallengeRecord",
    "DuplicateName",
    "OpenFight",
    "StaleFight",
    "Step",
    "StorageError",
    "Store",
    "UnknownWarrior",
    "WarriorRecord",
]

UNDO = "Undo"
"""The ``type`` of a fight-log record that cuts the command list back (R8.1)."""


class DuplicateName(StorageError):
    pass


class UnknownWarrior(StorageError):
    pass


class Busy(StorageError):
    """A warrior or channel already has an open fight (R3.3), enforced by the database."""


class StaleFight(StorageError):
    """The fight moved on (another command or an undo took the next sequence number)
    since this copy was read; reload it with ``Store.fight``."""


@dataclass(frozen=True, slots=True)
class WarriorRecord:
    id: int
    sheet: Any
    """An An Cath ``Sheet``, or the fighter of another rules system."""
    owner: str
    captor: str | None
    in_fight: bool
    system: str = "ancath"
    status: str = "free"


@dataclass(frozen=True, slots=True)
class Award:
    """A BP award as the ledger recorded it: ``tenths`` actually added of the ``asked``
    (the 40.0 cap may cut it, R2.6), for the fight's ``side``, and why (R7.2)."""

    side: int
    tenths: int
    asked: int
    reason: str


@dataclass(frozen=True, slots=True)
class ChallengeRecord:
    """A challenge waiting in ``channel`` for its target's player to answer."""

    channel: str
    challenger: str
    challenger_account: str
    target: str
    target_account: str
    kind: str


@dataclass(frozen=True, slots=True)
class Step:
    """One accepted command, who sent it, and what it did."""

    command: Any
    actor: str
    state: Any
    events: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class OpenFight:
    """An unfinished fight as the bot holds it: rebuilt from its commands."""

    id: int
    channel: str
    system: RuleSystem
    kind: str
    sheets: tuple[Any, ...]
    accounts: tuple[str, ...]
    state: Any
    commands: tuple[Any, ...]
    """The effective command list (undone commands left out)."""
    seq: int
    """The last sequence number written for this fight."""
    awarded: tuple[Award, ...] = ()
    """The BP awards the last write added to the ledger, as added (R2.6)."""
    anchor: Anchor | None = None
    """The ledger head after the last write, when it appended rows (a fight's end always
    does): ``ledger #4123 9f2c1a7e``, to publish outside the database."""


def _locked(error: OperationalError) -> bool:
    """SQLite's busy timeout, or PostgreSQL's lock timeout, ran out."""
    text = str(error.orig).lower()
    return "database is locked" in text or "lock timeout" in text or \
        getattr(error.orig, "sqlstate", None) == "55P03"


def _unique(error: IntegrityError) -> bool:
    """A unique index refused the row: the one conflict two writers racing cause. Any
    other refusal (a check, a trigger) is a fault, not a race, and is not worded as one."""
    orig = error.orig
    return getattr(orig, "sqlstate", None) == "23505" or \
        "UNIQUE constraint failed" in str(orig)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _sheet(row: Warrior) -> Sheet:
    """The An Cath sheet of a warrior row (refused for other systems' fighters)."""
    if row.system != "ancath":
        raise StorageError(f"{row.name} fights by {row.system} rules: no BP or skills there")
    return Sheet(
        row.name,
        Culture(row.culture),
        Armour(row.armour),
        {Skill(k): v for k, v in row.skills.items()},
        row.bp,
        row.bp_spent,
        Status(row.status),
    )


def _fighter(row: Warrior) -> Any:
    """Whatever the warrior's rules system fights with."""
    if row.system == "ancath":
        return _sheet(row)
    return SYSTEMS[row.system].codec.decode(row.profile)


_Columns = tuple[Any, ...]
LEDGER_BATCH = 1000
"""Ledger rows read per query when they are streamed."""
_LEDGER_COLUMNS: _Columns = (
    LedgerRow.id, LedgerRow.entry, LedgerRow.bp, LedgerRow.spent, LedgerRow.skill,
    LedgerRow.skill_value, LedgerRow.status, LedgerRow.actor, LedgerRow.moderator,
    LedgerRow.fight_id, LedgerRow.reason, LedgerRow.created_at, LedgerRow.hash,
    LedgerRow.key_id)


def _ledger_dict(row: Row[Any]) -> dict[str, Any]:
    """A ledger row as ``Store.ledger`` gives it."""
    return {
        "id": row.id, "warrior": row.warrior, "entry": row.entry, "bp": row.bp / 10,
        "spent": row.spent, "skill": row.skill, "skill_value": row.skill_value,
        "status": row.status, "actor": row.actor, "moderator": row.moderator,
        "fight": row.fight_id, "reason": row.reason, "at": row.created_at,
        "hash": row.hash, "key": row.key_id,
    }


def _ledger_query(warrior: int | None) -> Select[*_Columns]:
    """The ledger's rows with their warrior's name (a fight's rows: none), or one
    warrior's rows."""
    query = select(*_LEDGER_COLUMNS, Warrior.name.label("warrior")).outerjoin(
        Warrior, Warrior.id == LedgerRow.warrior_id)
    return query if warrior is None else query.where(LedgerRow.warrior_id == warrior)


class Store:
    """Warriors, the ledger, settings and fights over one SQLAlchemy engine.

    ``keyring`` signs and checks the ledger; without one, the first write loads the
    default for the engine's database (:func:`storage.keys.load_keyring`)."""

    def __init__(self, engine: Engine, clock: Callable[[], str] = _now,
                 keyring: Keyring | None = None) -> None:
        self.engine = engine
        self._clock = clock
        self._keyring = keyring
        self._reads = engine.execution_options(**{READ_ONLY: True})
        self._file = sqlite_path(engine.url.render_as_string(hide_password=False))
        self._inode = self._identity()

    def _identity(self) -> tuple[int, int] | None:
        """The SQLite file's device and inode (None: not SQLite, or no file)."""
        if self._file is None:
            return None
        try:
            found = os.stat(self._file)
        except FileNotFoundError:
            return None
        return found.st_dev, found.st_ino

    def _still_there(self) -> None:
        """Refuse to go on when the file was deleted or replaced under the bot: SQLite
        would go on writing to the unlinked file, and every command would be lost."""
        if self._file is not None and self._identity() != self._inode:
            raise RecordsLost(f"{self._file} was deleted or replaced while the bot ran; "
                              "nothing written since is kept: stop the bot and restore "
                              "the file from a backup")

    @property
    def keyring(self) -> Keyring:
        if self._keyring is None:
            self._keyring = load_keyring(self.engine.url.render_as_string(hide_password=False))
        return self._keyring

    @contextmanager
    def _tx(self, *, write: bool = True) -> Iterator[Session]:
        """One transaction; ``write=False`` for one that only reads (it does not queue
        behind writers, another process's included)."""
        self._still_there()
        engine = self.engine if write else self._reads
        try:
            with Session(engine, expire_on_commit=False) as session, session.begin():
                yield session
        except OperationalError as error:
            if _locked(error):
                raise RecordsBusy() from error
            raise
        self._still_there()  # committed to the file we opened, or not acknowledged

    def _append(self, session: Session, **fields: Any) -> None:
        """A ledger row in this transaction; the newest becomes the session's anchor."""
        row = ledger.append(session, self.keyring, **fields)
        session.info["anchor"] = Anchor(row.id, row.hash[:8])

    def _append_fight(self, session: Session, fight_id: int, entry: str, **fields: Any) -> None:
        row = ledger.append_fight(session, self.keyring, fight_id, entry, **fields)
        session.info["anchor"] = Anchor(row.id, row.hash[:8])

    # -- warriors -----------------------------------------------------------------------

    def _warrior_row(self, session: Session, name: str, lock: bool = False) -> Warrior:
        query = select(Warrior).where(Warrior.name_key == name.casefold())
        row = session.scalars(query.with_for_update() if lock else query).one_or_none()
        if row is None:
            raise UnknownWarrior(f"no warrior named {name}")
        return row

    def _record(self, session: Session, row: Warrior) -> WarriorRecord:
        captor = session.get_one(Warrior, row.captor_id).name if row.captor_id else None
        seated = session.scalar(
            select(func.count()).select_from(FightSide)
            .where(FightSide.warrior_id == row.id, FightSide.active)
        )
        return WarriorRecord(row.id, _fighter(row), row.owner, captor, bool(seated), row.system,
                             row.status)

    def create_warrior(self, sheet: Sheet, owner: str, actor: str | None = None) -> WarriorRecord:
        """Add a new warrior and its ``created`` ledger row."""
        now = self._clock()
        skills = {s.value: v for s, v in sheet.skills.items()}
        try:
            with self._tx() as session:
                row = Warrior(
                    name=sheet.name, name_key=sheet.name.casefold(), owner=owner,
                    system="ancath", culture=sheet.culture.value, armour=sheet.armour.value,
                    skills=skills, bp=0, bp_spent=0, status="free", created_at=now,
                )
                session.add(row)
                session.flush()
                self._append(
                    session, warrior_id=row.id, entry="created",
                    detail={**ledger.identity(row), "skills": skills},
                    actor=actor or owner, reason="warrior created", created_at=now,
                )
                return self._record(session, row)
        except IntegrityError as error:
            if not _unique(error):
                raise
            raise DuplicateName(f"the name {sheet.name} is taken") from error

    def create_fighter(self, system: str, fighter: Any, owner: str) -> WarriorRecord:
        """A fighter of another rules system (no BP, no skills: R9.6), with its
        ``created`` ledger row holding the whole profile."""
        now = self._clock()
        profile = encode(fighter)
        try:
            with self._tx() as session:
                row = Warrior(
                    name=fighter.name, name_key=fighter.name.casefold(), owner=owner,
                    system=system, skills={}, profile=profile, bp=0, bp_spent=0,
                    status="free", created_at=now,
                )
                session.add(row)
                session.flush()
                self._append(
                    session, warrior_id=row.id, entry="created",
                    detail={**ledger.identity(row), "skills": {}}, actor=owner,
                    reason=f"{system} fighter created", created_at=now,
                )
                return self._record(session, row)
        except IntegrityError as error:
            if not _unique(error):
                raise
            raise DuplicateName(f"the name {fighter.name} is taken") from error

    def warrior(self, name: str) -> WarriorRecord:
        with self._tx(write=False) as session:
            return self._record(session, self._warrior_row(session, name))

    def warriors(self, owner: str | None = None) -> list[WarriorRecord]:
        with self._tx(write=False) as session:
            query = select(Warrior).order_by(Warrior.name_key)
            if owner is not None:
                query = query.where(Warrior.owner == owner)
            return [self._record(session, row) for row in session.scalars(query)]

    def buy_skill(self, name: str, skill: Skill, actor: str) -> WarriorRecord:
        """Spend BP on a skill, outside any fight (R2.8)."""
        with self._tx() as session:
            row = self._warrior_row(session, name, lock=True)
            if self._record(session, row).in_fight:
                raise Busy(f"{row.name} is in a fight; buy skills after it")
            sheet, (bought,) = buy_skill(_sheet(row), skill)
            self._apply_sheet(row, sheet)
            self._append(
                session, warrior_id=row.id, entry="spend", spent=bought.cost,
                skill=skill.value, skill_value=bought.new, actor=actor,
                reason=f"bought {skill.value} {bought.old}->{bought.new}",
                created_at=self._clock(),
            )
            return self._record(session, row)

    def adjust_bp(self, name: str, tenths: int, moderator: str, reason: str) -> int:
        """A moderator's BP change (R8.1); returns the tenths actually applied (R2.6)."""
        with self._tx() as session:
            row = self._warrior_row(session, name, lock=True)
            sheet, (changed,) = add_bp(_sheet(row), tenths)
            self._apply_sheet(row, sheet)
            self._append(
                session, warrior_id=row.id, entry="moderator-bp", bp=changed.applied,
                actor=moderator, moderator=moderator, reason=reason, created_at=self._clock(),
            )
            return changed.applied

    def set_skill(self, name: str, skill: Skill, value: int, moderator: str, reason: str) -> None:
        """A moderator sets a skill (R8.1)."""
        with self._tx() as session:
            row = self._warrior_row(session, name, lock=True)
            sheet, _ = set_skill(_sheet(row), skill, value)
            self._apply_sheet(row, sheet)
            self._append(
                session, warrior_id=row.id, entry="moderator-skill", skill=skill.value,
                skill_value=value, actor=moderator, moderator=moderator, reason=reason,
                created_at=self._clock(),
            )

    def set_armour(self, name: str, armour: Armour, moderator: str, reason: str) -> str:
        """A moderator gives a warrior other armour, between fights only (R2.1: a goblin's
        captured armour); returns the armour it had."""
        with self._tx() as session:
            row = self._warrior_row(session, name, lock=True)
            if self._record(session, row).in_fight:
                raise Busy(f"{row.name} is in a fight; change armour after it")
            sheet, (changed,) = set_armour(_sheet(row), armour)
            row.armour = sheet.armour.value
            self._append(
                session, warrior_id=row.id, entry="moderator-armour",
                detail={"armour": armour.value, "was": changed.old.value,
                        "captured": changed.captured},
                actor=moderator, moderator=moderator, reason=reason, created_at=self._clock(),
            )
            return changed.old.value

    def free(self, name: str, actor: str, reason: str, moderator: str | None = None) -> None:
        """Release a prisoner; the bot checks that ``actor`` is the captor or a moderator."""
        with self._tx() as session:
            row = self._warrior_row(session, name, lock=True)
            if row.status != "prisoner":
                raise StorageError(f"{row.name} is not a prisoner")
            row.status, row.captor_id = "free", None
            self._append(
                session, warrior_id=row.id, entry="prisoner-freed", status="free",
                actor=actor, moderator=moderator, reason=reason, created_at=self._clock(),
            )

    def captor_account(self, name: str) -> str | None:
        """The owner of the warrior holding ``name`` prisoner."""
        with self._tx(write=False) as session:
            row = self._warrior_row(session, name)
            captor = session.get(Warrior, row.captor_id) if row.captor_id else None
            return captor.owner if captor else None

    @staticmethod
    def _apply_sheet(row: Warrior, sheet: Sheet) -> None:
        row.skills = {s.value: v for s, v in sheet.skills.items()}
        row.bp, row.bp_spent = sheet.bp, sheet.bp_spent

    # -- challenges ---------------------------------------------------------------------

    def put_challenge(self, record: ChallengeRecord) -> None:
        """Keep ``record`` as its channel's pending challenge, in place of any other."""
        with self._tx() as session:
            key = record.channel.casefold()
            session.execute(delete(PendingChallenge).where(PendingChallenge.channel_key == key))
            session.add(PendingChallenge(channel_key=key, created_at=self._clock(),
                                         **asdict(record)))

    def drop_challenge(self, channel: str) -> None:
        """The channel's pending challenge was answered, withdrawn or lapsed."""
        with self._tx() as session:
            session.execute(delete(PendingChallenge)
                            .where(PendingChallenge.channel_key == channel.casefold()))

    def challenges(self) -> list[ChallengeRecord]:
        """Every pending challenge, oldest first."""
        with self._tx(write=False) as session:
            rows = session.scalars(select(PendingChallenge)
                                   .order_by(PendingChallenge.created_at)).all()
            return [ChallengeRecord(r.channel, r.challenger, r.challenger_account, r.target,
                                    r.target_account, r.kind) for r in rows]

    # -- settings -----------------------------------------------------------------------

    def setting(self, key: str, default: Any = None) -> Any:
        with self._tx(write=False) as session:
            row = session.get(Setting, key)
            return row.value.get("value", default) if row else default

    def set_setting(self, key: str, value: Any, actor: str, reason: str = "") -> None:
        """Change a setting; who, when and why are kept with it."""
        with self._tx() as session:
            row = session.get(Setting, key)
            if row is None:
                row = Setting(key=key, value={}, updated_by=actor, updated_at="")
                session.add(row)
            row.value = {"value": value, "reason": reason} if reason else {"value": value}
            row.updated_by, row.updated_at = actor, self._clock()

    # -- moderators named in chat --------------------------------------------------------

    def moderators(self, same: Callable[[str], str] = str) -> list[str]:
        """The moderators added in chat and not removed, from the ledger (R8.2)."""
        with self._tx(write=False) as session:
            rows = session.scalars(select(LedgerRow).where(
                LedgerRow.entry.in_(ledger.MODERATOR_ENTRIES)).order_by(LedgerRow.id))
            return ledger.moderators(rows, self.keyring, same)

    def set_moderator(self, name: str, added: bool, moderator: str, reason: str) -> None:
        """Add ``name`` as a moderator (or remove them): a ledger row, on no warrior."""
        with self._tx() as session:
            self._append(session, warrior_id=None,
                         entry=ledger.MODERATOR_ENTRIES[0 if added else 1],
                         detail={"name": name}, actor=moderator, moderator=moderator,
                         reason=reason, created_at=self._clock())

    # -- fights -------------------------------------------------------------------------

    def open_fight(
        self,
        channel: str,
        system: RuleSystem,
        kind: str,
        sides: Sequence[tuple[str, str]],
        actor: str,
        rolls: Callable[[OpenFight], Sequence[Step]] = lambda _fight: (),
    ) -> tuple[OpenFight, tuple[Any, ...]]:
        """Start a fight between ``(warrior name, account)`` sides, with the automatic
        rolls ``rolls`` makes from its first state (initiative), in one transaction: the
        fight is kept with them, or not at all. The database refuses a second open fight
        for a warrior or a channel (R3.3). Returns the fight and every event."""
        now = self._clock()
        try:
            with self._tx() as session:
                rows = self._lock_warriors(session, [name for name, _ in sides])
                for row in rows:
                    if row.system != system.name:
                        raise StorageError(f"{row.name} fights by {row.system} rules, "
                                           f"not {system.name}")
                sheets = tuple(_fighter(row) for row in rows)
                state, events = system.start(kind, sheets)
                fight = Fight(
                    channel=channel, system=system.name, kind=kind, active=True,
                    setup={"sheets": [encode(s) for s in sheets]}, started_at=now,
                )
                session.add(fight)
                session.flush()
                for side, (row, (_, account)) in enumerate(zip(rows, sides, strict=True)):
                    session.add(FightSide(fight_id=fight.id, side=side, warrior_id=row.id,
                                          account=account, active=True))
                self._log_events(session, fight.id, 0, events)
                session.execute(delete(PendingChallenge)   # it is answered
                                .where(PendingChallenge.channel_key == channel.casefold()))
                session.flush()
                accounts = tuple(account for _, account in sides)
                opened = OpenFight(fight.id, channel, system, kind, sheets, accounts,
                                   state, (), 0)
                steps = list(rolls(opened))
                if steps:
                    opened = self._write_steps(session, opened, steps, now)
        except IntegrityError as error:
            if not _unique(error):
                raise
            raise Busy("a warrior is already fighting, or this channel has a fight") from error
        return opened, (*events, *(event for step in steps for event in step.events))

    @staticmethod
    def _lock(session: Session, ids: Sequence[int]) -> list[Warrior]:
        """The warriors ``ids``, row-locked in ascending id order whatever the order asked.

        Every writer that locks several warriors goes through here, and takes the ledger
        head only after them, so two transactions over the same warriors (two challenges
        at once, an undo beside another fight's end) queue instead of deadlocking on
        PostgreSQL; SQLite's ``BEGIN IMMEDIATE`` serialises writers anyway."""
        locked = {i: session.get_one(Warrior, i, with_for_update=True) for i in sorted(set(ids))}
        return [locked[i] for i in ids]

    def _lock_warriors(self, session: Session, names: Sequence[str]) -> list[Warrior]:
        """The named warriors, locked (``_lock``): a purchase cannot slip in between
        reading a sheet and seating its warrior."""
        keys = [name.casefold() for name in names]
        found = {key: id_ for key, id_ in session.execute(
            select(Warrior.name_key, Warrior.id).where(Warrior.name_key.in_(keys)))}
        for name, key in zip(names, keys, strict=True):
            if key not in found:
                raise UnknownWarrior(f"no warrior named {name}")
        return self._lock(session, [found[key] for key in keys])

    @staticmethod
    def _log_events(session: Session, fight_id: int, seq: int, events: Sequence[Any]) -> None:
        for idx, item in enumerate(events):
            session.add(FightEvent(fight_id=fight_id, seq=seq, idx=idx, event=encode(item)))

    def record(
        self, fight: OpenFight, command: Any, actor: str, state: Any, events: Sequence[Any],
        moderator: str | None = None, reason: str | None = None,
    ) -> OpenFight:
        """Write one accepted command with its events, ledger rows and warrior changes;
        ``moderator`` and ``reason`` say who ruled, and why, when a moderator's command
        caused them (R8.1)."""
        return self.record_steps(fight, [Step(command, actor, state, tuple(events))],
                                 moderator, reason)

    def record_steps(
        self, fight: OpenFight, steps: Sequence[Step], moderator: str | None = None,
        reason: str | None = None,
    ) -> OpenFight:
        """Write a player's command and the automatic rolls that followed it in one
        transaction: all of them are kept, or none (and nothing was said yet)."""
        try:
            with self._tx() as session:
                return self._write_steps(session, fight, steps, self._clock(), moderator,
                                         reason)
        except IntegrityError as error:
            if not _unique(error):
                raise
            raise StaleFight(f"fight {fight.id} already has a command {fight.seq + 1}: "
                             "it changed since it was read") from error

    def _write_steps(
        self, session: Session, fight: OpenFight, steps: Sequence[Step], now: str,
        moderator: str | None = None, reason: str | None = None,
    ) -> OpenFight:
        """``steps`` with their events, ledger rows and warrior changes, in ``session``;
        the fight closes when the last state has an outcome."""
        seq = fight.seq
        awarded: list[Award] = []
        for step in steps:
            seq += 1
            session.add(FightCommand(fight_id=fight.id, seq=seq, command=encode(step.command),
                                     actor=step.actor, created_at=now))
            self._log_events(session, fight.id, seq, step.events)
            awarded += self._ledger_from_events(session, fight, seq, step.events, step.actor,
                                                now, moderator, reason)
        state = steps[-1].state
        if getattr(state, "outcome", None) is not None:
            self._close(session, fight, seq, state.outcome, now, steps[-1].actor, moderator,
                        reason)
        session.flush()
        commands = (*fight.commands, *(step.command for step in steps))
        return OpenFight(fight.id, fight.channel, fight.system, fight.kind, fight.sheets,
                         fight.accounts, state, commands, seq, tuple(awarded),
                         session.info.get("anchor"))

    def _side_rows(self, session: Session, fight_id: int) -> list[Warrior]:
        """The fight's warriors by side, locked (``_lock``)."""
        ids = session.scalars(
            select(FightSide.warrior_id).where(FightSide.fight_id == fight_id)
            .order_by(FightSide.side)
        ).all()
        return self._lock(session, ids)

    def _ledger_from_events(
        self, session: Session, fight: OpenFight, seq: int, events: Sequence[Any],
        actor: str, now: str, moderator: str | None = None, ruling: str | None = None,
    ) -> list[Award]:
        """The ledger rows the events imply; returns the BP awards as added."""
        rewarding = [e for e in events if isinstance(e, BPAwarded | WarriorSlain | PrisonerTaken)]
        awarded: list[Award] = []
        if not rewarding:
            return awarded
        warriors = self._side_rows(session, fight.id)
        base = {"fight_id": fight.id, "command_seq": seq, "actor": actor, "created_at": now,
                "moderator": moderator}
        why = f"; ruling: {ruling}" if ruling else ""
        for item in rewarding:
            row = warriors[item.side]
            if isinstance(item, BPAwarded):
                sheet, (changed,) = add_bp(_sheet(row), item.tenths)
                row.bp = sheet.bp
                self._append(session, warrior_id=row.id, entry="award", bp=changed.applied,
                              reason=f"{fight.kind} fight: {item.reason.value}{why}", **base)
                awarded.append(Award(item.side, changed.applied, item.tenths, item.reason.value))
            elif isinstance(item, WarriorSlain):
                row.status, row.captor_id = "dead", None
                self._append(session, warrior_id=row.id, entry="death", status="dead",
                              reason=f"slain in a mortal fight{why}", **base)
            else:
                captor = warriors[item.captor]
                row.status, row.captor_id = "prisoner", captor.id
                self._append(session, warrior_id=row.id, entry="prisoner-taken",
                              status="prisoner", captor_id=captor.id,
                              detail={"ransom": item.ransom} if item.ransom else None,
                              reason=f"taken prisoner by {captor.name}{why}", **base)
        return awarded

    def _close(
        self, session: Session, fight: OpenFight, seq: int, outcome: Any, now: str, actor: str,
        moderator: str | None, ruling: str | None,
    ) -> None:
        """End the fight, and append its closing row: digests of its setup, command log
        and event log, with its ending."""
        ending = getattr(outcome.ending, "value", outcome.ending)
        session.execute(update(Fight).where(Fight.id == fight.id).values(
            active=False, ended_at=now, ending=ending, winner=outcome.winner))
        session.execute(update(FightSide).where(FightSide.fight_id == fight.id)
                        .values(active=False))
        why = f"; ruling: {ruling}" if ruling else ""
        self._append_fight(session, fight.id, "fight-closed", seq=seq, actor=actor,
                           moderator=moderator, reason=f"{fight.kind} fight ended: {ending}{why}",
                           created_at=now)

    def undo(self, fight_id: int, moderator: str, reason: str) -> OpenFight:
        """Append an undo record, take back the ledger rows of the undone commands, and
        replay (R8.1). History is never deleted; a finished fight reopens."""
        now = self._clock()
        try:
            with self._tx() as session:
                self._side_rows(session, fight_id)   # warriors before the ledger head
                fight = self._load(session, fight_id)
                keep = fight.system.undo_point(fight.commands)
                seq = fight.seq + 1
                session.add(FightCommand(
                    fight_id=fight_id, seq=seq, actor=moderator, created_at=now,
                    command={"type": UNDO, "keep": keep, "reason": reason},
                ))
                kept_seqs = [seq for seq, _ in self._command_log(session, fight_id)[0][:keep]]
                self._reverse_after(session, fight_id, kept_seqs, seq, moderator, reason, now)
                row = session.get_one(Fight, fight_id)
                if not row.active:
                    for warrior in self._side_rows(session, fight_id):
                        if warrior.status != "free":   # dead or taken in a later fight
                            raise StorageError(
                                f"{warrior.name} is {warrior.status} since this fight ended; "
                                "it cannot reopen")
                    row.active, row.ended_at, row.ending, row.winner = True, None, None, None
                    session.execute(update(FightSide).where(FightSide.fight_id == fight_id)
                                    .values(active=True))
                    self._append_fight(session, fight_id, "fight-reopened", seq=seq,
                                       actor=moderator, moderator=moderator,
                                       reason=f"undo: {reason}", created_at=now)
                session.flush()
                rebuilt = self._load(session, fight_id)
                anchor = session.info.get("anchor")
        except IntegrityError as error:
            if not _unique(error):
                raise
            raise Busy("a fighter or the channel is busy in another fight") from error
        return replace(rebuilt, anchor=anchor)

    def _reverse_after(
        self, session: Session, fight_id: int, kept: list[int], seq: int,
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
                                    LedgerRow.entry.not_in(("reversal", *ledger.FIGHT_ENTRIES)))
            .order_by(LedgerRow.id)
        ).all()
        reversed_ids = {
            r.detail["reverses"] for r in session.scalars(
                select(LedgerRow).where(LedgerRow.fight_id == fight_id,
                                        LedgerRow.entry == "reversal"))
            if r.detail
        }
        for row in rows:
            if row.command_seq in kept or row.id in reversed_ids:
                continue
            warrior = session.get_one(Warrior, row.warrior_id, with_for_update=True)
            sheet, (changed,) = add_bp(_sheet(warrior), -row.bp)
            warrior.bp = sheet.bp
            status = None
            if row.status is not None and latest_status.get(warrior.id) == row.id:
                status, warrior.status, warrior.captor_id = "free", "free", None
            self._append(
                session, warrior_id=row.warrior_id, entry="reversal", bp=changed.applied,
                status=status, detail={"reverses": row.id}, actor=moderator,
                moderator=moderator, fight_id=fight_id, command_seq=seq,
                reason=f"undo: {reason}", created_at=now,
            )

    @staticmethod
    def _command_log(session: Session, fight_id: int) -> tuple[list[tuple[int, Any]], int]:
        """The effective ``(seq, command data)`` rows, undo records applied, and the
        last sequence number written."""
        rows: list[tuple[int, Any]] = []
        last = 0
        for seq, data in session.execute(
            select(FightCommand.seq, FightCommand.command)
            .where(FightCommand.fight_id == fight_id).order_by(FightCommand.seq)
        ):
            last = seq
            if data.get("type") == UNDO:
                del rows[data["keep"]:]
            else:
                rows.append((seq, data))
        return rows, last

    def _load(self, session: Session, fight_id: int) -> OpenFight:
        return self._replay(session, fight_id)[0]

    def _replay(
        self, session: Session, fight_id: int
    ) -> tuple[OpenFight, list[tuple[int, tuple[Any, ...]]]]:
        """The fight rebuilt from its commands, with the events each step gave (seq 0 is
        the start)."""
        fight = session.get_one(Fight, fight_id)
        system = SYSTEMS[fight.system]
        sheets = tuple(system.codec.decode(s) for s in fight.setup["sheets"])
        sides = session.scalars(
            select(FightSide).where(FightSide.fight_id == fight_id).order_by(FightSide.side)
        ).all()
        rows, last = self._command_log(session, fight_id)
        commands = [system.codec.decode(data) for _, data in rows]
        state, events = system.start(fight.kind, sheets)
        steps = [(0, events)]
        for (seq, _), command in zip(rows, commands, strict=True):
            state, events = system.apply(state, command)
            steps.append((seq, events))
        loaded = OpenFight(fight.id, fight.channel, system, fight.kind, sheets,
                           tuple(s.account for s in sides), state, tuple(commands), last)
        return loaded, steps

    def open_fights(self) -> tuple[list[OpenFight], list[str]]:
        """Every unfinished fight rebuilt by replay, and what disagreed (never patched)."""
        fights: list[OpenFight] = []
        problems: list[str] = []
        with self._tx(write=False) as session:
            for fight_id, channel in session.execute(
                select(Fight.id, Fight.channel).where(Fight.active).order_by(Fight.id)
            ):
                try:
                    fight, steps = self._replay(session, fight_id)
                except Exception as error:  # a replay that fails is reported, not fixed
                    problems.append(f"fight {fight_id} in {channel}: replay failed: {error}")
                    continue
                if getattr(fight.state, "outcome", None) is not None:
                    problems.append(f"fight {fight_id} in {channel}: replay ends the fight "
                                    "but it is stored as unfinished")
                    continue
                try:
                    differs = self._log_mismatch(session, fight, steps)
                except Exception as error:
                    differs = f"its event log cannot be read: {error}"
                if differs:
                    problems.append(f"fight {fight_id} in {channel}: {differs}")
                    continue
                fights.append(fight)
        return fights, problems

    @staticmethod
    def _log_mismatch(
        session: Session, fight: OpenFight, steps: list[tuple[int, tuple[Any, ...]]]
    ) -> str | None:
        """Where the replay gave other events than the ones logged when the commands
        were accepted (a changed rules engine, an edited command row)."""
        logged: dict[int, list[Any]] = {}
        for seq, data in session.execute(
            select(FightEvent.seq, FightEvent.event)
            .where(FightEvent.fight_id == fight.id).order_by(FightEvent.seq, FightEvent.idx)
        ):
            logged.setdefault(seq, []).append(fight.system.codec.decode(data))
        for seq, events in steps:
            if list(events) != logged.get(seq, []):
                if seq == 0:
                    return "replayed start differs from the event log"
                return f"replay of command {seq} differs from the event log"
        return None

    def latest_fights(self) -> dict[str, int]:
        """The newest fight of every channel, open or ended (what an undo works on)."""
        with self._tx(write=False) as session:
            rows = session.execute(select(Fight.channel, func.max(Fight.id))
                                   .group_by(Fight.channel))
            return {channel: fight_id for channel, fight_id in rows}

    def fight(self, fight_id: int) -> OpenFight:
        with self._tx(write=False) as session:
            return self._load(session, fight_id)

    def fight_events(self, fight_id: int) -> list[Any]:
        with self._tx(write=False) as session:
            system = SYSTEMS[session.get_one(Fight, fight_id).system]
            rows = session.scalars(select(FightEvent.event).where(FightEvent.fight_id == fight_id)
                                   .order_by(FightEvent.seq, FightEvent.idx))
            return [system.codec.decode(data) for data in rows]

    # -- audit --------------------------------------------------------------------------

    def ledger(self, name: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
        """Ledger rows, oldest first (the last ``limit`` when given), with warrior names."""
        if limit is None:
            return list(self.ledger_rows(name))
        with self._tx(write=False) as session:
            query = _ledger_query(self._warrior_id(session, name))
            query = query.order_by(LedgerRow.id.desc()).limit(limit)
            return [_ledger_dict(row) for row in reversed(session.execute(query).all())]

    def ledger_rows(self, name: str | None = None, batch: int = LEDGER_BATCH
                    ) -> Iterator[dict[str, Any]]:
        """The rows of ``ledger`` one by one, read ``batch`` at a time in one transaction
        (by id, so memory stays flat however long the ledger is). An unknown ``name`` is
        refused here, before any row."""
        with self._tx(write=False) as session:
            warrior = self._warrior_id(session, name)
        return self._stream(_ledger_query(warrior).order_by(LedgerRow.id).limit(batch))

    def _stream(self, query: Select[*_Columns]) -> Iterator[dict[str, Any]]:
        with self._tx(write=False) as session:
            last = 0
            while rows := session.execute(query.where(LedgerRow.id > last)).all():
                yield from map(_ledger_dict, rows)
                last = rows[-1].id

    def _warrior_id(self, session: Session, name: str | None) -> int | None:
        return None if name is None else self._warrior_row(session, name).id

    def anchor(self) -> Anchor | None:
        """The ledger head now, to publish (``ledger #4123 9f2c1a7e``); None when empty."""
        with self._tx() as session:
            return ledger.head(session)

    def audit(self, anchors: Sequence[Anchor] = ()) -> Report:
        """The chain, its head, the ``anchors``, every warrior's cached fields and every
        finished fight's digests, checked against the ledger (writes nothing)."""
        with self._tx() as session:
            return audit.verify(session, self.keyring, anchors)

    def verify(self) -> list[str]:
        """Every problem ``audit`` finds, and one line per key it could not check with;
        empty when all is well."""
        report = self.audit()
        return report.problems + report.missing_keys(self.keyring)

    def seal_legacy(self) -> int:
        """On a chain of rows from before keys, write the keyed ``attested`` rows for its
        warriors and finished fights now; how many (0 when there is nothing to seal)."""
        with self._tx() as session:
            return ledger.seal(session, self.keyring, self._clock())

    def check_signing_key(self) -> None:
        """Refuse to go on writing when the newest row's key is not in the keyring (a
        lost or unconfigured key), rather than start a new chain of trust silently."""
        with self._tx() as session:
            chain = session.get(LedgerHead, 1)
            kid = chain.key_id if chain is not None else None
            if kid is not None and self.keyring.get(kid) is None:
                raise KeyringError(
                    f"the newest ledger row #{chain.last_id if chain else 0} is signed with "
                    f"key {kid}, which is not available (have {self.keyring.describe()}); "
                    f"a key is looked for in {self.keyring.looked}")
