"""A fight's digests: SHA-256 of its setup (system, kind, channel and its network
unless ``default``, sheets, sides with their accounts and warriors), of its command log
and of its event log, each the digest of its canonical JSON; and the fields of the
``fight-closed`` or ``fight-reopened`` ledger row that holds them (``fight_fields``).
``audit verify`` and the pages' proof compare a fight's logs with them."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from storage.chain import canonical
from storage.models import DEFAULT_NETWORK, Entry, Fight, FightCommand, FightEvent, FightSide

__all__ = ["digest", "fight_digest", "fight_fields", "setup_digest"]


_FIGHT = select(Fight.system, Fight.kind, Fight.network, Fight.channel, Fight.setup,
                Fight.started_at, Fight.ending, Fight.winner, Fight.ended_at
                ).where(Fight.id == bindparam("fight"))
_SEATS = (select(FightSide.side, FightSide.warrior_id, FightSide.account)
          .where(FightSide.fight_id == bindparam("fight")).order_by(FightSide.side))
_COMMANDS = (select(FightCommand.seq, FightCommand.command, FightCommand.actor,
                    FightCommand.created_at)
             .where(FightCommand.fight_id == bindparam("fight"),
                    FightCommand.seq <= bindparam("upto"))
             .order_by(FightCommand.seq))
_EVENTS = (select(FightEvent.seq, FightEvent.idx, FightEvent.event)
           .where(FightEvent.fight_id == bindparam("fight"), FightEvent.seq <= bindparam("upto"))
           .order_by(FightEvent.seq, FightEvent.idx))
"""The queries a fight's digests are made from, built once (a fight's end runs them)."""


def _fight_record(session: Session, fight_id: int, upto: int,
                  logs: Mapping[str, str] | None = None) -> tuple[
    dict[str, str], list[int], Any
] | None:
    """A fight's digests up to command ``upto``, its sides' warriors and its row (with
    the ending), in four queries (two when ``logs`` has the logs' digests, kept as they
    were written: ``storage.log_digests``); None when there is no such fight."""
    where = {"fight": fight_id, "upto": upto}
    fight = session.execute(_FIGHT, where).one_or_none()
    if fight is None:
        return None
    seats = session.execute(_SEATS, where).all()
    sides = [[seat.side, seat.warrior_id, seat.account] for seat in seats]
    if logs is None:
        logs = {"commands": digest([list(row) for row in session.execute(_COMMANDS, where)]),
                "events": digest([list(row) for row in session.execute(_EVENTS, where)])}
    digests = {"setup": setup_digest(fight, sides), "commands": logs["commands"],
               "events": logs["events"]}
    return digests, [seat.warrior_id for seat in seats], fight


def digest(value: Any) -> str:
    """SHA-256 of a value's canonical JSON: a log's digest is its list of rows'."""
    return hashlib.sha256(canonical(value).encode()).hexdigest()


def setup_digest(fight: Any, sides: list[list[Any]]) -> str:
    """The digest of a fight's setup: its system, kind, channel (and network unless
    ``default``), sheets, start and ``sides`` (``[side, warrior id, account]``)."""
    setup = {"system": fight.system, "kind": fight.kind, "channel": fight.channel,
             "setup": fight.setup, "started_at": fight.started_at, "sides": sides}
    if fight.network != DEFAULT_NETWORK:   # digests from before networks stay as they were
        setup["network"] = fight.network
    return digest(setup)


def fight_digest(session: Session, fight_id: int, upto: int) -> dict[str, str] | None:
    """SHA-256 digests of a fight's setup (system, kind, channel and its network unless
    ``default``, sheets, sides with their accounts and warriors), its command log and its
    event log up to command ``upto``; None when there is no such fight."""
    record = _fight_record(session, fight_id, upto)
    return record[0] if record is not None else None


def fight_fields(
    session: Session, fight_id: int, entry: Entry, *, actor: str, created_at: str, reason: str,
    moderator: str | None = None, seq: int | None = None, attested: bool = False,
    logs: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The fields of a fight's ``fight-closed`` or ``fight-reopened`` row, over the fight
    as it is in this transaction, up to command ``seq`` (its last one when not given).
    The row is on no warrior: it is the fight's, and a warrior's own rows stay the
    changes of that warrior. ``logs``: the logs' digests up to ``seq``, kept as written."""
    if seq is None:
        seq = session.scalar(
            select(func.max(FightCommand.seq)).where(FightCommand.fight_id == fight_id)) or 0
    record = _fight_record(session, fight_id, seq, logs)
    if record is None or not record[1]:
        raise ValueError(f"fight {fight_id} has no record or no sides")
    digests, sides, fight = record
    detail: dict[str, Any] = {"seq": seq, **digests, "sides": sides}
    if entry == Entry.FIGHT_CLOSED:
        detail.update(ending=fight.ending, winner=fight.winner, ended_at=fight.ended_at)
    if attested:
        detail["attested"] = True
    return {"warrior_id": None, "entry": entry, "fight_id": fight_id, "command_seq": seq,
            "detail": detail, "actor": actor, "moderator": moderator, "reason": reason,
            "created_at": created_at}
