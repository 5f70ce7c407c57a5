"""Fights: opened, each accepted command written with its events, ledger rows and
warrior changes in one transaction, closed, undone, and taken up again by replay.

The database refuses a second open fight for a warrior or a channel (R3.3), and a
second command with the same sequence number (``StaleFight``). A channel is the
store's network's (``UnitOfWork.network``): two networks' ``#ancath`` are two channels,
and a store resumes only its own network's fights.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from rules.codec import encode
from rules.system import Outcome, RulesState, RuleSystem
from storage.awards import Awards
from storage.chained import NotProved
from storage.club import drop_pending
from storage.errors import Busy, StaleFight, StorageError
from storage.fight_log import command_row, event_rows, log_rows
from storage.fight_rebuild import UNDO, command_log, load
from storage.fight_resume import rebuild_open
from storage.fight_snapshots import keep, snapshot_key
from storage.ledger import Anchor
from storage.log_digests import LogDigests
from storage.models import Entry, Fight, FightCommand, FightEvent, FightSide
from storage.records import Award, OpenFight, Step
from storage.unit_of_work import unique_conflict
from storage.warrior_rows import fighter_of, lock_warriors, side_rows

__all__ = ["Fights"]

log = logging.getLogger(__name__)


_FIGHTS = insert(Fight).returning(Fight.id)
_SEATS = insert(FightSide)
_END = update(Fight).where(Fight.id == bindparam("fight"))
_UNSEAT = update(FightSide).where(FightSide.fight_id == bindparam("fight"))
"""A fight's end, run on the session's connection (Core: no ORM search of the session
for the rows to change); SET from the values."""


def _undone(session: Session, fight_id: int,
            undone: Sequence[tuple[int, Any]]) -> list[dict[str, Any]]:
    """The commands an undo takes back, as its ledger row holds them: each one's seq,
    who sent it (``bot`` for the bot's roll) and the command as the fight log keeps it."""
    seqs = [seq for seq, _ in undone]
    actors = {seq: actor for seq, actor in session.execute(
        select(FightCommand.seq, FightCommand.actor).where(
            FightCommand.fight_id == fight_id, FightCommand.seq.in_(seqs)))}
    return [{"seq": seq, "actor": actors.get(seq), "command": data} for seq, data in undone]


class Fights(Awards):
    """Opening, recording, closing, undoing and reloading fights."""

    def open_fight(
        self,
        channel: str,
        system: RuleSystem,
        kind: str,
        sides: Sequence[tuple[str, str]],
        actor: str,
        rolls: Callable[[OpenFight], Sequence[Step]] = lambda _fight: (),
        owned: bool = False,
    ) -> tuple[OpenFight, tuple[Any, ...]]:
        """Start a fight between ``(warrior name, account)`` sides, with the automatic
        rolls ``rolls`` makes from its first state (initiative), in one transaction: the
        fight is kept with them, or not at all. The database refuses a second open fight
        for a warrior or a channel (R3.3). Each warrior's stored columns, which its
        setup is made from, must be what its ledger rows give it (``NotProved``), and
        with ``owned`` (a challenge accepted) each side's account must be its warrior's
        owner by the chain. Returns the fight and every event."""
        now = self._clock()
        try:
            with self._tx() as session:
                rows = lock_warriors(session, [name for name, _ in sides])
                for row, (_, account) in zip(rows, sides, strict=True):
                    if row.system != system.name:
                        raise StorageError(f"{row.name} fights by {row.system} rules, "
                                           f"not {system.name}")
                    proved = self.chained.check(session, row)
                    if owned and proved.get("owner") != account:
                        raise NotProved(f"{row.name} is not the warrior of whoever answers "
                                        "for it here, by the ledger (the challenge was "
                                        "changed outside the bot?): a moderator must look; "
                                        "ancath-bot audit verify")
                sheets = tuple(fighter_of(row, self.systems) for row in rows)
                state, events = system.start(kind, sheets)
                connection = session.connection()   # Core: no ORM flush
                fight_id: int = connection.execute(_FIGHTS, {
                    "network": self.network, "channel": channel, "system": system.name,
                    "kind": kind, "active": True, "started_at": now,
                    "setup": {"sheets": [encode(s) for s in sheets]},
                }).scalar_one()
                connection.execute(_SEATS, [
                    {"fight_id": fight_id, "side": side, "warrior_id": row.id,
                     "account": account, "active": True}
                    for side, (row, (_, account)) in enumerate(zip(rows, sides, strict=True))])
                started = event_rows(fight_id, 0, events)
                log_rows(session, events=started)
                drop_pending(session, self.network, channel)   # it is answered
                accounts = tuple(account for _, account in sides)
                opened = OpenFight(fight_id, channel, system, kind, sheets, accounts,
                                   state, (), 0, logs=LogDigests.start(started))
                steps = list(rolls(opened))
                if steps:
                    opened = self._write_steps(session, opened, steps, now)
        except IntegrityError as error:
            if not unique_conflict(error):
                raise
            raise Busy("a warrior is already fighting, or this channel has a fight") from error
        return opened, (*events, *(event for step in steps for event in step.events))

    def record(
        self, fight: OpenFight, command: Any, actor: str, state: RulesState, events: Sequence[Any],
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
            if not unique_conflict(error):
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
        command_log: list[dict[str, Any]] = []
        event_log: list[dict[str, Any]] = []
        for step in steps:   # the rows of every step in two bulk INSERTs
            seq += 1
            command_log.append(command_row(fight.id, seq, step.command, step.actor, now))
            event_log += event_rows(fight.id, seq, step.events)
            awarded += self._ledger_from_events(session, fight, seq, step.events, step.actor,
                                                now, moderator, reason)
        log_rows(session, command_log, event_log)
        logs = fight.logs.add(command_log, event_log, seq) \
            if fight.logs is not None and fight.logs.seq == fight.seq else None
        state = steps[-1].state
        if state.outcome is not None:
            self._close(session, fight, seq, state.outcome, now, steps[-1].actor, moderator,
                        reason, logs)
        session.flush()
        commands = (*fight.commands, *(step.command for step in steps))
        return OpenFight(fight.id, fight.channel, fight.system, fight.kind, fight.sheets,
                         fight.accounts, state, commands, seq, tuple(awarded),
                         session.info.get("anchor"), logs)

    def _close(
        self, session: Session, fight: OpenFight, seq: int, outcome: Outcome, now: str, actor: str,
        moderator: str | None, ruling: str | None, logs: LogDigests | None = None,
    ) -> None:
        """End the fight, and append its closing row: digests of its setup, command log
        and event log (``logs``' when this process wrote them all), with its ending."""
        ending = str(outcome.ending.value)
        connection = session.connection()
        connection.execute(_END, {"fight": fight.id, "active": False, "ended_at": now,
                                  "ending": ending, "winner": outcome.winner})
        connection.execute(_UNSEAT, {"fight": fight.id, "active": False})
        why = f"; ruling: {ruling}" if ruling else ""
        self._append_fight(session, fight.id, Entry.FIGHT_CLOSED, seq=seq, actor=actor,
                           moderator=moderator, reason=f"{fight.kind} fight ended: {ending}{why}",
                           created_at=now, logs=logs.hexdigests() if logs is not None else None)

    def undo(self, fight_id: int, moderator: str, reason: str) -> OpenFight:
        """Append an undo record and an ``undo`` ledger row saying what it took back
        (each command undone: its seq, who sent it and what it was; how many are kept),
        take back the ledger rows of the undone commands, and replay (R8.1). History is
        never deleted; a finished fight reopens."""
        now = self._clock()
        try:
            with self._tx() as session:
                for warrior in side_rows(session, fight_id):   # before the ledger head
                    self.chained.check(session, warrior)
                fight = load(session, fight_id, self.systems)
                keep = fight.system.undo_point(fight.commands)
                seq = fight.seq + 1
                effective = command_log(session, fight_id)[0]
                kept_seqs = [kept for kept, _ in effective[:keep]]
                self._append(session, warrior_id=None, entry=Entry.UNDO, fight_id=fight_id,
                             command_seq=seq, detail={
                                 "undone": _undone(session, fight_id, effective[keep:]),
                                 "keep": keep},
                             actor=moderator, moderator=moderator, reason=reason,
                             created_at=now)
                session.add(FightCommand(
                    fight_id=fight_id, seq=seq, actor=moderator, created_at=now,
                    command={"type": UNDO, "keep": keep, "reason": reason},
                ))
                self._reverse_after(session, fight.system, fight_id, kept_seqs, seq, moderator,
                                   reason, now)
                row = session.get_one(Fight, fight_id)
                if not row.active:
                    for warrior in side_rows(session, fight_id):
                        if warrior.status != "free":   # dead or taken in a later fight
                            raise StorageError(
                                f"{warrior.name} is {warrior.status} since this fight ended; "
                                "it cannot reopen")
                    row.active, row.ended_at, row.ending, row.winner = True, None, None, None
                    session.execute(update(FightSide).where(FightSide.fight_id == fight_id)
                                    .values(active=True))
                    self._append_fight(session, fight_id, Entry.FIGHT_REOPENED, seq=seq,
                                       actor=moderator, moderator=moderator,
                                       reason=f"undo: {reason}", created_at=now)
                session.flush()
                rebuilt = load(session, fight_id, self.systems)
                anchor = session.info.get("anchor")
        except IntegrityError as error:
            if not unique_conflict(error):
                raise
            raise Busy("a fighter or the channel is busy in another fight") from error
        return replace(rebuilt, anchor=anchor)

    def open_fights(self, serves: Callable[[str], bool] = lambda _channel: True,
                    ) -> tuple[list[OpenFight], list[str]]:
        """Every unfinished fight of this network in a channel ``serves`` names, rebuilt
        from its checked snapshot and the commands after it, or by replay, and what
        disagreed (never patched); then a new snapshot of each fight rebuilt past its
        last one is kept (:mod:`storage.fight_snapshots`)."""
        key = snapshot_key(lambda: self.keyring)
        with self._tx(write=False) as session:
            found = [(fight_id, channel) for fight_id, channel in session.execute(
                select(Fight.id, Fight.channel)
                .where(Fight.active, Fight.network == self.network).order_by(Fight.id))
                if serves(channel)]
            rebuilt = list(rebuild_open(session, found, self.systems, key))
        fights = [r.fight for r in rebuilt if r.fight is not None]
        log.info("%d open fights rebuilt, %d from their snapshots; %d commands replayed",
                 len(fights), sum(r.from_snapshot for r in rebuilt),
                 sum(r.replayed for r in rebuilt))
        snapshots = [r.snapshot for r in rebuilt if r.snapshot is not None]
        if snapshots:
            try:
                with self._tx() as session:
                    keep(session, snapshots)
            except (SQLAlchemyError, StorageError) as error:   # a cache: the next start replays
                log.warning("open fights' snapshots not kept: %s", error)
        return fights, [r.problem for r in rebuilt if r.problem is not None]

    def active_fights(self, serves: Callable[[str], bool] = lambda _channel: True,
                      ) -> list[tuple[int, str]]:
        """``(id, channel)`` of every fight of this network stored as unfinished, in a
        channel ``serves`` names: those :meth:`open_fights` could not rebuild among them
        still hold their channel and their warriors (``end_unread``)."""
        with self._tx(write=False) as session:
            rows = session.execute(select(Fight.id, Fight.channel).where(
                Fight.active, Fight.network == self.network).order_by(Fight.id))
            return [(fight_id, channel) for fight_id, channel in rows if serves(channel)]

    def end_unread(self, fight_id: int, winner: str | None, moderator: str,
                   reason: str) -> tuple[list[str], Anchor | None]:
        """A moderator ends an open fight whose records cannot be read (its setup, its
        commands or its replay): no rules decide it, so no BP moves; ``winner`` (a side's
        warrior, by name) wins by the ruling, or none (a draw). Its closing row holds the
        digests of its logs as they are, damaged parts included, and says it was ended
        unread. The sides' warrior names, and the anchor of that row."""
        now = self._clock()
        with self._tx() as session:
            fight = session.get(Fight, fight_id)
            if fight is None or not fight.active:
                raise StorageError(f"fight {fight_id} is not open any more")
            names = [row.name for row in side_rows(session, fight_id)]  # before the head
            side = None
            if winner is not None:
                folded = [name.casefold() for name in names]
                if winner.casefold() not in folded:
                    raise StorageError(f"the winner must be {' or '.join(names)}, or draw")
                side = folded.index(winner.casefold())
            seq = session.scalar(select(func.max(FightCommand.seq))
                                 .where(FightCommand.fight_id == fight_id)) or 0
            ending = "moderator" if side is not None else "draw"
            connection = session.connection()
            connection.execute(_END, {"fight": fight_id, "active": False, "ended_at": now,
                                      "ending": ending, "winner": side})
            connection.execute(_UNSEAT, {"fight": fight_id, "active": False})
            self._append_fight(session, fight_id, Entry.FIGHT_CLOSED, seq=seq,
                               actor=moderator, moderator=moderator, created_at=now,
                               reason=f"{fight.kind} fight ended unread (its records cannot "
                                      f"be taken up): {ending}; ruling: {reason}")
            return names, session.info.get("anchor")

    def latest_fights(self) -> dict[str, int]:
        """The newest fight of every channel of this network, open or ended (what an
        undo works on)."""
        with self._tx(write=False) as session:
            rows = session.execute(select(Fight.channel, func.max(Fight.id))
                                   .where(Fight.network == self.network)
                                   .group_by(Fight.channel))
            return {channel: fight_id for channel, fight_id in rows}

    def fight(self, fight_id: int) -> OpenFight:
        with self._tx(write=False) as session:
            return load(session, fight_id, self.systems)

    def fight_events(self, fight_id: int) -> list[Any]:
        with self._tx(write=False) as session:
            system = self.systems.rules(session.get_one(Fight, fight_id).system)
            rows = session.scalars(select(FightEvent.event).where(FightEvent.fight_id == fight_id)
                                   .order_by(FightEvent.seq, FightEvent.idx))
            return [system.codec.decode(data) for data in rows]
