"""What the chain gives, read by the bot before it writes from a stored value or obeys
one: a warrior rebuilt from its own ledger rows, the settings as their newest
``setting-changed`` rows say, and whether the chain is whole up to its head.

The stored columns (a warrior's BP, skills, armour, status, owner; the settings table)
are a cache: a database writer without the key can change them, and a command that
wrote from them would sign what they say (``bought club 60->65`` from a club raised
30 -> 60 in SQL). So before a command writes from a warrior's columns,
:meth:`Chained.check` rebuilds the warrior from its own rows (by the ``warrior_id``
index), each row counted only when it holds (its signature under a key of the club,
:func:`storage.ledger_trust.holds`), and refuses in one line (:class:`NotProved`) when the
columns differ; :meth:`Chained.settings` gives each setting the value of its newest
``setting-changed`` row that holds, whatever the table says; :meth:`Chained.whole`
says whether any row below the head is gone and the head row holds (the moderators
are read only along a whole chain).

A rebuilt warrior is kept with the id and hash of its newest row, so the next check
reads only the rows since, and rebuilds from the start when that row is no longer as
kept (a transaction taken back). A row from before the first signed row (a legacy or
HMAC row, sealed by the ``ledger-keyed`` row) holds when its whole content is as the
walk that proved the seal found it (the rows before the seal are walked once, and only
when such a row is needed). A key the keyring no longer holds counts when a
``key-rotated`` row links it to one it holds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from storage.chain import GENESIS, Walker, seal_step, signed_hash
from storage.errors import StorageError
from storage.keys import Keyring
from storage.ledger import ROWS, chain_rows, head_row
from storage.ledger_trust import holds
from storage.models import Entry, LedgerRow, Warrior
from storage.sheets import Systems
from storage.signing import PublicKey
from storage.warrior_rows import check_row
from storage.warrior_totals import add_total, differences, differs_said, new_totals

__all__ = ["Chained", "NotProved", "said"]

log = logging.getLogger("ancath.ledger")

_OF_WARRIOR = ROWS.where(LedgerRow.warrior_id == bindparam("warrior"),
                         LedgerRow.id >= bindparam("from")).order_by(LedgerRow.id)
"""A warrior's rows from row ``from`` on: the one its kept total ends at, and after."""
_HASH_OF = select(LedgerRow.hash).where(LedgerRow.id == bindparam("id"))
_ROW = ROWS.where(LedgerRow.id == bindparam("id"))
_SETTINGS = ROWS.where(LedgerRow.entry == Entry.SETTING_CHANGED,
                       LedgerRow.id > bindparam("after")).order_by(LedgerRow.id)
_ROTATIONS = ROWS.where(LedgerRow.entry == Entry.KEY_ROTATED).order_by(LedgerRow.id)
_FIRST_KEYED = ROWS.where(LedgerRow.entry == Entry.LEDGER_KEYED).order_by(LedgerRow.id).limit(1)
_EXTENT = select(func.count(), func.max(LedgerRow.id)).select_from(LedgerRow)
"""Built once, their values given as parameters."""


class NotProved(StorageError):
    """A warrior's stored columns differ from what its ledger rows give it: nothing is
    written from them until a moderator looks."""


@dataclass
class _Kept:
    """A warrior rebuilt through its row ``last_id`` (whose hash was ``last_hash``)."""

    last_id: int
    last_hash: str
    total: dict[str, Any]


def _copy(total: dict[str, Any]) -> dict[str, Any]:
    skills = total.get("skills")
    return {**total, "skills": dict(skills) if isinstance(skills, dict) else skills}


def _tenths(value: Any) -> str:
    return f"{value / 10:.1f}" if isinstance(value, int) else repr(value)


def said(name: str, found: Iterable[tuple[str, Any, Any]]) -> str:
    """The one line a refused command says: what of ``name``'s stored sheet differs from
    the ledger (``club 60, ledger says 30``), accounts never named (a channel hears it)."""
    parts: list[str] = []
    found = list(found)
    names = {field for field, _, _ in found}
    for field, stored, proved in found:
        if field == "skills" and isinstance(stored, dict) and isinstance(proved, dict):
            parts += [f"{skill} {stored.get(skill, 'none')}, ledger says "
                      f"{proved.get(skill, 'none')}"
                      for skill in sorted(set(stored) | set(proved))
                      if stored.get(skill) != proved.get(skill)]
        elif field == "bp":
            parts.append(f"BP {_tenths(stored)}, ledger says {_tenths(proved)}")
        elif field == "bp_spent":
            parts.append(f"BP spent {stored}, ledger says {proved}")
        elif field in ("owner", "captor_id", "profile", "skills"):
            parts.append({"owner": "its owner", "captor_id": "its captor"}.get(field, field)
                         + " differs")
        elif field != "name_key" or "name" not in names:
            parts.append(f"{field} {stored}, ledger says {proved}")
    return (f"{name}'s stored sheet differs from the ledger ({'; '.join(parts[:3])}): a "
            "moderator must look; ancath-bot audit verify")


class Chained:
    """What the chain gives, for one store (``keyring`` gives its keyring when first
    needed). One thread at a time writes through a store; what is kept here is only
    ever replaced whole."""

    def __init__(self, keyring: Callable[[], Keyring], systems: Systems) -> None:
        self._keyring = keyring
        self._systems = systems
        self._warriors: dict[int, _Kept] = {}
        self._keys: dict[str, PublicKey] | None = None
        self._sealed: bytes | None = None
        self._settings: tuple[int, str, dict[str, Any]] = (0, "", {})
        self._warned: set[tuple[str, str]] = set()

    # -- rows that hold ----------------------------------------------------------------

    def holds(self, session: Session, row: Any) -> bool:
        """Whether ``row`` is what a key of the club signed (or an HMAC under a secret
        here), or a row before the seal as the seal's walk found it."""
        if holds(row, self._keyring()):
            return True
        if row.signature is not None:
            key = self._trusted(session).get(str(row.key_id))
            return key is not None and signed_hash(row.prev_hash, row) == row.hash \
                and key.verifies(row.signature, row.hash)
        return self._in_seal(session, row)

    def _trusted(self, session: Session) -> dict[str, PublicKey]:
        """The keyring's public keys, and the keys ``key-rotated`` rows link to them: a
        key a trusted one introduced, and the key that introduced a trusted one (the
        row after the rotation, signed by the trusted key, holds the rotation's hash)."""
        if self._keys is not None:
            return self._keys
        keys = {key.id: key for key in self._keyring().public_keys}
        rotations = []
        for row in session.execute(_ROTATIONS):
            detail = row.detail if isinstance(row.detail, dict) else {}
            try:
                new = PublicKey.parse(str(detail.get("public_key")))
                old = PublicKey.parse(str(detail.get("previous")))
            except ValueError:
                continue
            if old.id == row.key_id and row.signature is not None \
                    and signed_hash(row.prev_hash, row) == row.hash \
                    and old.verifies(row.signature, row.hash):
                rotations.append((row, new, old))
        grew = True
        while grew:
            grew = False
            for row, new, old in rotations:
                if old.id in keys and new.id not in keys:
                    keys[new.id], grew = new, True
                elif new.id in keys and old.id not in keys:
                    after = session.execute(_ROW, {"id": row.id + 1}).first()
                    if after is not None and after.prev_hash == row.hash \
                            and after.key_id == new.id and after.signature is not None \
                            and signed_hash(after.prev_hash, after) == after.hash \
                            and new.verifies(after.signature, after.hash):
                        keys[old.id], grew = old, True
        self._keys = keys
        return keys

    def _in_seal(self, session: Session, row: Any) -> bool:
        if self._sealed is None:
            self._sealed = self._seal_walk(session)
        end = 32 * row.id
        return 0 < end <= len(self._sealed) \
            and self._sealed[end - 32:end] == bytes.fromhex(seal_step(GENESIS, row))

    def _seal_walk(self, session: Session) -> bytes:
        """Each row's whole-content digest, of the rows the first ``ledger-keyed`` row
        seals, when its seal holds and it holds under a key of the club; else none."""
        keyed = session.execute(_FIRST_KEYED).first()
        if keyed is None or keyed.signature is None:
            return b""
        key = self._trusted(session).get(str(keyed.key_id))
        if key is None or signed_hash(keyed.prev_hash, keyed) != keyed.hash \
                or not key.verifies(keyed.signature, keyed.hash):
            return b""
        walker = Walker(self._keyring())
        digests = bytearray()
        for row in chain_rows(session):
            walker.step(row)
            if row.id >= keyed.id:
                break
            digests += bytes.fromhex(seal_step(GENESIS, row))
        if walker.problems or not walker.sealed or walker.last_id != keyed.id:
            return b""
        return bytes(digests)

    # -- warriors -----------------------------------------------------------------------

    def warrior(self, session: Session, warrior_id: int) -> dict[str, Any]:
        """The warrior as its own rows that hold give it
        (``storage.warrior_totals.add_total``'s fields)."""
        kept = self._warriors.get(warrior_id)
        connection = session.connection()   # Core rows: no ORM query, no autoflush
        rows = connection.execute(_OF_WARRIOR, {"warrior": warrior_id,
                                                "from": kept.last_id if kept else 0}).all()
        if kept is not None:
            if rows and rows[0].id == kept.last_id and rows[0].hash == kept.last_hash:
                rows = rows[1:]   # the kept newest row as it was: only those after it
            else:   # its newest row taken back (a rollback), or changed: all again
                kept = None
                rows = connection.execute(_OF_WARRIOR, {"warrior": warrior_id,
                                                        "from": 0}).all()
        totals = new_totals()
        if kept is not None:
            totals[warrior_id] = _copy(kept.total)
        for row in rows:
            if self.holds(session, row):   # one that does not counts for nothing
                add_total(totals, row)
        total = totals[warrior_id]
        if rows:
            self._warriors[warrior_id] = _Kept(rows[-1].id, rows[-1].hash, _copy(total))
        return total

    def check(self, session: Session, row: Warrior) -> dict[str, Any]:
        """The warrior of ``row`` as the chain gives it; ``NotProved`` when its stored
        columns differ (logged, with every field). A row whose columns the bot cannot
        read at all is said as such first (``storage.warrior_rows.check_row``)."""
        check_row(row, self._systems)
        derived = self.warrior(session, row.id)
        found = differences(row, derived, self._systems)
        if found:
            log.warning("warrior %s (#%d): its stored columns differ from its ledger rows, "
                        "so nothing is written from them: %s", row.name, row.id,
                        "; ".join(differs_said(name, stored, proved)
                                  for name, stored, proved in found))
            raise NotProved(said(row.name, found))
        return derived

    # -- settings -----------------------------------------------------------------------

    def settings(self, session: Session, stored: dict[str, Any],
                 exempt: Callable[[str], bool]) -> dict[str, Any]:
        """The settings to obey: each key's value as its newest ``setting-changed`` row
        that holds says (the rows since the last read only), whatever ``stored`` (the
        table) says; a key no such row sets is not obeyed. Where the table differs, a
        warning is logged once. ``exempt`` keys (a secret's, whose rows name no value;
        the bot's own signed note) are taken as stored."""
        last_id, last_hash, newest = self._settings
        if last_id and session.execute(_HASH_OF, {"id": last_id}).scalar() != last_hash:
            last_id, newest = 0, {}
        newest = dict(newest)
        rows = session.execute(_SETTINGS, {"after": last_id}).all()
        for row in rows:
            detail = row.detail if isinstance(row.detail, dict) else {}
            key = detail.get("key")
            if isinstance(key, str) and "value" in detail and self.holds(session, row):
                newest[key] = detail["value"]
        if rows:
            self._settings = (rows[-1].id, rows[-1].hash, dict(newest))
        obeyed = {key: value for key, value in stored.items() if exempt(key)}
        for key in sorted(set(stored) | set(newest)):
            if exempt(key):
                continue
            if key in newest:
                obeyed[key] = newest[key]
            if key not in stored:
                self._warn(key, "nothing (deleted)", newest[key])
            elif key not in newest or stored[key] != newest[key]:
                self._warn(key, stored[key], newest.get(key, "nothing (no ledger row sets it)"))
        return obeyed

    def _warn(self, key: str, stored: Any, chain: Any) -> None:
        if (key, repr(stored)) in self._warned:
            return
        self._warned.add((key, repr(stored)))
        log.warning("setting %s is stored as %r, but the ledger says %r: the ledger's is "
                    "obeyed (a moderator must look; ancath-bot audit verify)", key, stored,
                    chain)

    # -- the chain whole ----------------------------------------------------------------

    def whole(self, session: Session) -> str | None:
        """Why the chain is not whole up to its head (a row below it gone, or the head
        row not as the head says, or not holding); None when it is. One COUNT and one
        row read."""
        head = head_row(session)
        if head is None or not head.last_id:
            return None
        count, newest = session.execute(_EXTENT).one()
        if count != head.last_id or newest != head.last_id:
            return (f"the ledger holds {count} rows up to row {newest}, but its head is row "
                    f"{head.last_id}: rows deleted or added outside the bot")
        row = session.execute(_ROW, {"id": head.last_id}).first()
        if row is None or row.hash != head.last_hash or not self.holds(session, row):
            return f"the ledger's newest row #{head.last_id} does not hold"
        return None

    def suspends_moderators(self, session: Session) -> bool:
        """Whether no moderator named in chat counts, since the chain is not whole up to
        its head (:meth:`whole`: a deleted ``moderator-removed`` row would bring one
        back); the log says why, each time the moderators are read."""
        why = self.whole(session)
        if why is not None:
            log.warning("no moderator named in chat counts: %s (only the config file's "
                        "moderators rule until it is mended; ancath-bot audit verify)", why)
        return why is not None
