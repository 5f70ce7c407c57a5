"""The database tables, as SQLAlchemy 2 typed ORM classes.

A warrior is its identity, the system-neutral caches (BP, spent BP, status, captor) as
columns, and its rules system's sheet as its ``profile`` (``storage.sheets``); the
ledger is the truth the caches derive from (R7.3), and ``storage.audit.verify`` proves
the two agree.
A fight is its setup plus an append-only command list; events are logged beside it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar, Literal

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "DEFAULT_NETWORK",
    "Base",
    "ClubVersion",
    "Entry",
    "Fight",
    "FightCommand",
    "FightEvent",
    "FightSide",
    "FightSnapshot",
    "LedgerHead",
    "LedgerRow",
    "PendingChallenge",
    "Setting",
    "Status",
    "Warrior",
]

DEFAULT_NETWORK = "default"
"""The network of a club that plays on one (and of every row from before networks)."""


class Entry(StrEnum):
    """What a ledger row records (its ``entry`` column holds the value)."""

    CREATED = "created"
    AWARD = "award"
    SPEND = "spend"
    MODERATOR_BP = "moderator-bp"
    MODERATOR_SKILL = "moderator-skill"
    MODERATOR_ARMOUR = "moderator-armour"
    DEATH = "death"
    PRISONER_TAKEN = "prisoner-taken"
    PRISONER_FREED = "prisoner-freed"
    REVERSAL = "reversal"
    """An undo taking back an earlier row (R8.1)."""
    RENAMED = "renamed"
    OWNER_CHANGED = "owner-changed"
    ATTESTED = "attested"
    """A warrior from before keys, as stored when the ledger was first keyed."""
    FIGHT_CLOSED = "fight-closed"
    FIGHT_REOPENED = "fight-reopened"
    MODERATOR_ADDED = "moderator-added"
    MODERATOR_REMOVED = "moderator-removed"
    LEDGER_KEYED = "ledger-keyed"
    """The first signed row: the club's public key, and the rows before it sealed."""
    KEY_ROTATED = "key-rotated"
    """A new signing key introduced, signed by the key it replaces."""
    SETTING_CHANGED = "setting-changed"
    """A club or channel setting changed: who, what, why (``detail``)."""
    UNDO = "undo"
    """An undo in a fight: what it took back, even when no BP moved (R8.1)."""


Status = Literal["free", "prisoner", "dead"]
"""A warrior's status as its column and the ledger's hold it: a prisoner or a dead
warrior cannot start a fight (R3.3)."""


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSON}


class Warrior(Base):
    __tablename__ = "warriors"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(24))
    name_key: Mapped[str] = mapped_column(String(24), unique=True)
    """The name case-folded: names are unique case-insensitively (R2.5)."""
    owner: Mapped[str] = mapped_column(String(120), index=True)
    system: Mapped[str] = mapped_column(String(16))
    profile: Mapped[dict[str, Any]]
    """The sheet as the warrior's rules system keeps it: An Cath's culture, armour and
    skills (a cache derived from the ledger), another system's whole fighter."""
    bp: Mapped[int] = mapped_column(default=0)
    """Cache: BP total in tenths, the sum of the ledger's ``bp`` column."""
    bp_spent: Mapped[int] = mapped_column(default=0)
    """Cache: whole BP spent, the sum of the ledger's ``spent`` column."""
    status: Mapped[Status] = mapped_column(String(10), default="free")
    captor_id: Mapped[int | None] = mapped_column(ForeignKey("warriors.id"))
    created_at: Mapped[str] = mapped_column(String(32))


class LedgerRow(Base):
    """One append-only change of a warrior (BP, skills, status, captor, name, owner,
    armour), its creation, or a fight's end (R7.3)."""

    __tablename__ = "ledger"

    id: Mapped[int] = mapped_column(primary_key=True)
    warrior_id: Mapped[int | None] = mapped_column(ForeignKey("warriors.id"), index=True)
    """The warrior changed; None on a fight's rows (``fight_id`` says which fight)."""
    entry: Mapped[str] = mapped_column(String(24), index=True)   # 0008: moderators' rows
    """created, award, spend, moderator-bp, moderator-skill, moderator-armour, death,
    prisoner-taken, prisoner-freed, reversal (an undo taking back an earlier row),
    renamed, owner-changed, attested (a warrior from before keys, as stored when the
    ledger was first keyed), fight-closed and fight-reopened (a fight's digests, on
    no warrior), moderator-added and moderator-removed (a moderator named in chat,
    on no warrior), undo (what a moderator's undo took back, on its fight), or
    setting-changed (a setting's new value, on no warrior)."""
    bp: Mapped[int] = mapped_column(default=0)
    """Tenths of BP actually added (negative to take away)."""
    spent: Mapped[int] = mapped_column(default=0)
    skill: Mapped[str | None] = mapped_column(String(16))
    skill_value: Mapped[int | None]
    """The skill's new value, when ``skill`` is set."""
    status: Mapped[Status | None] = mapped_column(String(10))
    """The warrior's new status, when it changes."""
    captor_id: Mapped[int | None] = mapped_column(Integer)
    detail: Mapped[dict[str, Any] | None]
    actor: Mapped[str] = mapped_column(String(120))
    moderator: Mapped[str | None] = mapped_column(String(120))
    fight_id: Mapped[int | None] = mapped_column(Integer, index=True)
    command_seq: Mapped[int | None]
    reason: Mapped[str] = mapped_column(String(400))
    created_at: Mapped[str] = mapped_column(String(32))
    prev_hash: Mapped[str] = mapped_column(String(64))
    """The previous row's ``hash`` (64 zeros for the first row)."""
    hash: Mapped[str] = mapped_column(String(64))
    """SHA-256 over the previous hash and the content, key id included, on a signed row;
    HMAC-SHA256 under the key ``key_id`` names on an older keyed row; plain SHA-256 on a
    legacy row."""
    key_id: Mapped[str | None] = mapped_column(String(16))
    """The signing key's fingerprint (never the key): an Ed25519 public key's id on a
    signed row, an HMAC key's on an older keyed row; None on a legacy row, one written
    before the ledger was keyed."""
    signature: Mapped[str | None] = mapped_column(String(128))
    """Ed25519 signature over the row's ``hash`` (``storage.signing``); None on rows from
    before signatures, which the first signed row seals."""


class LedgerHead(Base):
    """The chain's newest row; locked by every append so the chain never forks."""

    __tablename__ = "ledger_head"

    id: Mapped[int] = mapped_column(primary_key=True)
    last_id: Mapped[int] = mapped_column(default=0)
    last_hash: Mapped[str] = mapped_column(String(64))
    key_id: Mapped[str | None] = mapped_column(String(16))
    """The id of the key that signs the next row: the newest row's, or after a
    ``key-rotated`` row the key it introduced; None while the chain is empty or still
    legacy."""


class Fight(Base):
    __tablename__ = "fights"
    __table_args__ = (
        Index(
            "one_open_fight_per_channel", "network", "channel", unique=True,
            sqlite_where=text("active"), postgresql_where=text("active"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    network: Mapped[str] = mapped_column(String(16), index=True)
    """The IRC network of its channel (the config's ``network``): two networks'
    ``#ancath`` are two channels."""
    channel: Mapped[str] = mapped_column(String(64))
    system: Mapped[str] = mapped_column(String(16))
    kind: Mapped[str] = mapped_column(String(16))
    setup: Mapped[dict[str, Any]]
    """What the rules system's ``start`` needs: the sheets as they were at the start."""
    active: Mapped[bool] = mapped_column(default=True)
    started_at: Mapped[str] = mapped_column(String(32))
    ended_at: Mapped[str | None] = mapped_column(String(32))
    ending: Mapped[str | None] = mapped_column(String(16))
    winner: Mapped[int | None]
    """The winning side, 0 (challenger) or 1 (defender); None for a draw."""


class FightSide(Base):
    """A warrior's seat in a fight; one active seat per warrior (R3.3), in the database."""

    __tablename__ = "fight_sides"
    __table_args__ = (
        Index(
            "one_open_fight_per_warrior", "warrior_id", unique=True,
            sqlite_where=text("active"), postgresql_where=text("active"),
        ),
    )

    fight_id: Mapped[int] = mapped_column(ForeignKey("fights.id"), primary_key=True)
    side: Mapped[int] = mapped_column(primary_key=True)
    warrior_id: Mapped[int] = mapped_column(ForeignKey("warriors.id"))
    account: Mapped[str] = mapped_column(String(120))
    """Who plays this side."""
    active: Mapped[bool] = mapped_column(default=True)


class FightCommand(Base):
    """One accepted command, rolls included; an ``Undo`` record cuts the list (R8.1)."""

    __tablename__ = "fight_commands"
    __table_args__ = (UniqueConstraint("fight_id", "seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    fight_id: Mapped[int] = mapped_column(ForeignKey("fights.id"))
    seq: Mapped[int]
    command: Mapped[dict[str, Any]]
    actor: Mapped[str] = mapped_column(String(120))
    """The account that sent it, or ``bot`` for a roll the bot made."""
    created_at: Mapped[str] = mapped_column(String(32))


class FightEvent(Base):
    """The duel log: the events each command caused, in order (seq 0 is the start)."""

    __tablename__ = "fight_events"
    __table_args__ = (UniqueConstraint("fight_id", "seq", "idx"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    fight_id: Mapped[int] = mapped_column(ForeignKey("fights.id"))
    seq: Mapped[int]
    idx: Mapped[int]
    event: Mapped[dict[str, Any]]


class FightSnapshot(Base):
    """An open fight's state as of command ``seq``, sealed with its logs' digests up to
    there (``storage.fight_snapshots``): a restart replays only the commands after it."""

    __tablename__ = "fight_snapshots"

    fight_id: Mapped[int] = mapped_column(ForeignKey("fights.id"), primary_key=True)
    seq: Mapped[int]
    state: Mapped[str] = mapped_column(Text)
    """The state's canonical JSON, as sealed."""
    seal: Mapped[str] = mapped_column(String(64))


class Setting(Base):
    """A club-wide setting (``fairy_folk_open``, ``ignored``), or a channel's, keyed
    ``<what>:<network>:<channel>`` (``rolls:default:#duels``)."""

    __tablename__ = "settings"

    key: Mapped[str] = mapped_column(String(128), primary_key=True)
    value: Mapped[dict[str, Any]]
    updated_by: Mapped[str] = mapped_column(String(120))
    updated_at: Mapped[str] = mapped_column(String(32))


class ClubVersion(Base):
    """One row, a counter: every change of a setting or of the moderators named in chat
    adds one to it in the same transaction, so a process that keeps them sees at its
    next command that another process changed them (``bot.referee``)."""

    __tablename__ = "club_version"

    id: Mapped[int] = mapped_column(primary_key=True)
    version: Mapped[int] = mapped_column(default=0)


class PendingChallenge(Base):
    """A challenge waiting for its answer, one per channel: kept so that a restart does
    not lose it (its time limit starts again when the bot does)."""

    __tablename__ = "challenges"

    network: Mapped[str] = mapped_column(String(16), primary_key=True)
    channel_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    """The channel's name case-folded."""
    channel: Mapped[str] = mapped_column(String(64))
    challenger: Mapped[str] = mapped_column(String(24))
    challenger_account: Mapped[str] = mapped_column(String(120))
    target: Mapped[str] = mapped_column(String(24))
    target_account: Mapped[str] = mapped_column(String(120))
    kind: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[str] = mapped_column(String(32))
