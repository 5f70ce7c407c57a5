"""What the club keeps besides warriors and fights: the pending challenges, the
settings, and the moderators named in chat (read from their ledger rows)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from sqlalchemy import delete, select

from storage import ledger
from storage.models import LedgerRow, PendingChallenge, Setting
from storage.records import ChallengeRecord
from storage.unit_of_work import UnitOfWork

__all__ = ["Club"]


class Club(UnitOfWork):
    """Pending challenges, settings and chat-named moderators, one transaction each."""

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
