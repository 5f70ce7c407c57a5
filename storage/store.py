"""The store the bot talks to: one transaction per accepted command.

``Store`` is its parts put together, each in its own module:

- :mod:`storage.unit_of_work`: the engine, the ledger keyring and the transaction
  (``_tx``) every method runs in, committed whole or not at all; and ``unit()``, one
  transaction that every method called inside it joins (a chat command's: the referee
  opens one around each command that writes);
- :mod:`storage.warrior_store`: warriors created, read, and changed between fights;
- :mod:`storage.fights`: fights opened, recorded command by command, closed, undone and
  taken up again (:mod:`storage.fight_rebuild` rebuilds them, :mod:`storage.awards` writes
  the ledger rows their events imply);
- :mod:`storage.club`: pending challenges, settings, moderators named in chat;
- :mod:`storage.history`: standings, a warrior's fights and counts, a fight's summary
  and command log, for the club's records in chat and on the leadership pages;
- :mod:`storage.ledger_view`: the ledger read whole, streamed, filtered or paged;
- :mod:`storage.proved`: the records as the ledger proves them, beside their stored
  columns (the leadership pages);
- :mod:`storage.lookup`: warriors by part of their name and the ranking's rows (the
  leadership pages' search and ranking history);
- :mod:`storage.paging`: the pages' lists a page at a time with their counts, the
  moderators' actions, a warrior's running BP;
- and here, auditing it (:mod:`storage.audit`).

A fight command, the events it caused, the ledger rows they imply and the warrior
caches they change are written together (``record``); a refused command never
reaches here.

The parts are the unit of work's repositories (Cosmic Python's ``uow.batches``): inside
``with store.unit():`` the store's own methods (``store.warrior``, ``store.open_fight``,
``store.put_challenge``) read and write in the unit's transaction, so a command is
written with the same calls whether or not a unit is open, and no call site names a
repository of its own. The records it hands out are in :mod:`storage.records`, its errors in
:mod:`storage.errors`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO

from sqlalchemy.exc import IntegrityError

from storage import audit, ledger
from storage.audit import Report
from storage.audit_export import write_export
from storage.club import Club
from storage.errors import Busy, DuplicateName, StaleFight, StorageError, UnknownWarrior
from storage.fight_rebuild import UNDO
from storage.fights import Fights
from storage.history import History
from storage.keys import KeyringError
from storage.ledger import Anchor
from storage.ledger_view import LedgerView
from storage.lookup import Lookup
from storage.models import Setting
from storage.paging import Pages
from storage.proof import CHECKED, Verdict, checked_note, noted_head, proof_since
from storage.proved import ProvedView
from storage.records import (
    Award,
    ChallengeRecord,
    OpenFight,
    Step,
    WarriorRecord,
)
from storage.signing import PublicKey
from storage.warrior_store import Warriors

__all__ = [
    "UNDO",
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

class Store(Warriors, Fights, Club, History, LedgerView, Pages, ProvedView, Lookup):
    """Warriors, the ledger, settings and fights over one SQLAlchemy engine.

    ``keyring`` signs and checks the ledger; without one, the first write loads the
    default for the engine's database (:func:`storage.keys.load_keyring`); ``systems``
    are the rules systems it is handed (:mod:`storage.sheets`). Its own methods audit
    the ledger; the rest come from its parts."""

    def anchor(self) -> Anchor | None:
        """The ledger head now, to publish (``ledger #4123 9f2c1a7e``); None when empty."""
        with self._tx() as session:
            return ledger.head(session)

    def audit(self, anchors: Sequence[Anchor] = (),
              trusted: Sequence[PublicKey] = ()) -> Report:
        """The chain, its head, the ``anchors``, every warrior's cached fields and every
        finished fight's digests, checked against the ledger (writes nothing); signed
        rows by the ``trusted`` public keys as well as the keyring's."""
        with self._tx() as session:
            return audit.verify(session, self.keyring, self.systems, anchors, trusted)

    def export_audit(self, out: IO[str]) -> dict[str, int]:
        """Write the audit export (:mod:`storage.audit_export`) of one moment to ``out``;
        how many rows, fights and warriors it holds."""
        with self._tx(write=False) as session:
            return write_export(session, self.keyring.public_keys, self._clock(), out)

    def verify(self) -> list[str]:
        """Every problem ``audit`` finds, and one line per key it could not check with;
        empty when all is well."""
        report = self.audit()
        return report.problems + report.missing_keys(self.keyring)

    def prove_ledger(self) -> Verdict:
        """Prove the chain from the last row the bot proved (its signed note,
        :mod:`storage.proof`; from row 1 without one) to the head, in one read, and
        note the new head when it holds; the verdict."""
        with self._tx(write=False) as session:
            proof = proof_since(session, self.keyring)
            verdict = proof.advance(session)
        note = checked_note(self.keyring, proof) if self.keyring.keys else None
        if note is not None:
            try:
                with self._tx() as session:
                    session.merge(Setting(key=CHECKED, value={"value": note},
                                          updated_by="ancath-bot", updated_at=self._clock()))
            except IntegrityError:
                pass   # another process starting at once noted its own walk first
        return verdict

    def seal_legacy(self, legacy: bool = False) -> int:
        """Write now the rows the next append would write first: on a chain of HMAC rows
        the signed ``ledger-keyed`` row sealing them, or a new key's ``key-rotated`` row;
        how many (0 when there is nothing to write). A chain with legacy rows no signed
        row seals is refused (``ledger.LegacyRows``) unless ``legacy`` (the operator's
        ``ancath-bot db seal-legacy``): then they are sealed too, with the ``attested``
        rows of their warriors and finished fights, unless the bot's signed note says it
        proved this chain signed before (a chain of legacy rows now is a rewrite)."""
        with self._tx() as session:
            head = ledger.head_row(session)
            noted = noted_head(session, self.keyring) if legacy else None
            if noted is not None and (head is None or self.keyring.public(
                    head.key_id or "") is None):   # the newest row is not signed
                raise StorageError(
                    f"the bot proved this ledger signed through row {noted[0]} (its signed "
                    "note), and now no row is signed: the chain was rewritten without the "
                    "key, not kept from before ledger keys; nothing sealed: run ancath-bot "
                    "audit verify")
            return ledger.seal(session, self.keyring, self._clock(), self._recorded, legacy)

    def check_signing_key(self) -> None:
        """Refuse to go on writing when the newest row's key is not in the keyring (a
        lost or unconfigured key), rather than start a new chain of trust silently."""
        with self._tx() as session:
            chain = ledger.head_row(session)
            kid = chain.key_id if chain is not None else None
            if kid is not None and self.keyring.get(kid) is None \
                    and self.keyring.public(kid) is None:
                raise KeyringError(
                    f"the newest ledger row #{chain.last_id if chain else 0} is signed with "
                    f"key {kid}, which is not available (have {self.keyring.describe()}); "
                    f"a key is looked for in {self.keyring.looked}")
