"""Which ledger rows and keys are to be trusted: whether a row holds under the club's
keyring (``holds``), the public keys the chain itself names (``named_keys``), and the
moderators named in chat by the rows that hold (``moderators``)."""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from storage.chain import row_mac, signed_hash
from storage.keys import Keyring
from storage.models import Entry, LedgerRow
from storage.signing import PublicKey

__all__ = ["holds", "moderators", "named_keys"]


def moderators(rows: Iterable[LedgerRow], keyring: Keyring,
               same: Callable[[str], str] = str) -> list[str]:
    """The moderators added in chat and not removed since, by ``rows`` in order (names
    compared by ``same(name)``); a row that does not hold under ``keyring`` (its
    signature, or an older row's MAC) counts for nothing."""
    names: dict[str, str] = {}
    for row in rows:
        name = row.detail.get("name") if isinstance(row.detail, dict) else None
        if not isinstance(name, str) or not holds(row, keyring):
            continue
        if row.entry == Entry.MODERATOR_ADDED:
            names[same(name)] = name
        elif row.entry == Entry.MODERATOR_REMOVED:
            names.pop(same(name), None)
    return list(names.values())


def named_keys(session: Session) -> list[PublicKey]:
    """Every public key the chain's ``ledger-keyed`` and ``key-rotated`` rows name (the
    key a rotation replaced included), so a chain whose first key's secret is gone is
    still walked from its first row. Known only: trusted through the chain alone."""
    found: dict[str, PublicKey] = {}
    for detail in session.scalars(select(LedgerRow.detail).where(
            LedgerRow.entry.in_((Entry.LEDGER_KEYED, Entry.KEY_ROTATED)))):
        for name in ("public_key", "previous"):
            text = detail.get(name) if isinstance(detail, dict) else None
            try:
                key = PublicKey.parse(text) if isinstance(text, str) else None
            except ValueError:
                key = None
            if key is not None:
                found.setdefault(key.id, key)
    return list(found.values())


def holds(row: LedgerRow, keyring: Keyring) -> bool:
    """Whether one row is what a key of ``keyring`` signed (or MACed)."""
    if row.key_id is None:
        return False
    if row.signature is not None:
        public = keyring.public(row.key_id)
        return public is not None and signed_hash(row.prev_hash, row) == row.hash \
            and public.verifies(row.signature, row.hash)
    key = keyring.get(row.key_id)
    return key is not None and hmac.compare_digest(row_mac(key, row.prev_hash, row), row.hash)
