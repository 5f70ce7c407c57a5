"""``verify``: the ledger chain proved, and everything the records derive from it
rebuilt from the chain and compared.

One walk over the rows, a batch at a time, proves each link, hash, signature and MAC
(:class:`storage.chain.Walker`), rebuilds every warrior's cached fields
(``derived_totals``) and keeps every fight's marks (``fight-closed``,
``fight-reopened``); then the head, the published anchors, the warriors and the fights
are compared with what the chain says. What disagrees is named in
``Report.problems``; nothing is written. The comparisons take plain rows, so an export
is checked by the same code (:mod:`storage.audit_export`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from storage.chain import Walker, ranges
from storage.keys import Keyring
from storage.ledger import (
    ANCHOR_DIGITS,
    FIGHT_ENTRIES,
    Anchor,
    chain_rows,
    fight_digest,
    head_row,
    named_keys,
)
from storage.models import (
    Entry,
    Fight,
    FightCommand,
    FightEvent,
    FightSide,
    LedgerRow,
    Warrior,
)
from storage.profiles import recorded
from storage.signing import PublicKey

__all__ = [
    "PARTS",
    "Marks",
    "Report",
    "Setups",
    "add_total",
    "check_anchors",
    "check_fights",
    "check_stored",
    "check_warriors",
    "derived_totals",
    "differences",
    "finish",
    "new_totals",
    "ranges",
    "verify",
]

DigestOf = Callable[[int, int], "dict[str, str] | None"]
"""A fight's digests (setup, commands, events) up to a command, as its logs are now."""
_IDENTITY = ("name", "owner", "system", "culture", "armour", "profile")
_SETS: dict[str, tuple[str, ...]] = {
    Entry.CREATED: _IDENTITY,
    Entry.ATTESTED: _IDENTITY,
    Entry.RENAMED: ("name",),
    Entry.OWNER_CHANGED: ("owner",),
    Entry.MODERATOR_ARMOUR: ("armour",),
}
"""Which warrior fields each entry sets from its ``detail``."""
_FIELDS = ("name", "name_key", "owner", "system", "culture", "profile", "skills", "armour",
           "bp", "bp_spent", "status", "captor_id")
"""The warrior's cached fields that verify compares with the chain, in this order
(``culture``, ``armour``, ``skills`` and ``profile`` as ``profiles.recorded`` reads them
from its profile)."""
_PARTS = (("setup", "setup (system, kind, network, channel, sheets, sides)"),
          ("commands", "command log"), ("events", "event log"))
PARTS = _PARTS
"""A fight's digests, each with what it is a digest of, in words."""


def derived_totals(rows: Iterable[LedgerRow]) -> dict[int, dict[str, Any]]:
    """Per warrior, what the ledger says: bp, bp_spent, skills, status, captor_id, and
    name, owner, system, culture, armour and profile where the ledger records them
    (legacy rows may leave them out)."""
    totals = new_totals()
    for row in rows:
        add_total(totals, row)
    return totals


def new_totals() -> defaultdict[int, dict[str, Any]]:
    return defaultdict(
        lambda: {"bp": 0, "bp_spent": 0, "skills": {}, "status": "free", "captor_id": None}
    )


def add_total(totals: defaultdict[int, dict[str, Any]], row: Any) -> None:
    """What one row changes of its warrior's totals. A value of the wrong type (only a
    forged row holds one: its hash or signature fails, and says so) changes nothing."""
    if not isinstance(row.warrior_id, int):
        return
    total = totals[row.warrior_id]
    if isinstance(row.bp, int) and isinstance(row.spent, int):
        total["bp"] += row.bp
        total["bp_spent"] += row.spent
    detail = row.detail if isinstance(row.detail, dict) else {}
    skills = detail.get("skills", {})
    if row.entry == Entry.CREATED and isinstance(skills, dict):
        total["skills"] = dict(skills)
    for name in _SETS.get(row.entry, ()):
        if name in detail:
            total[name] = detail[name]
    if isinstance(total.get("name"), str):
        total["name_key"] = total["name"].casefold()
    if isinstance(row.skill, str) and isinstance(row.skill_value, int):
        if row.skill_value:
            total["skills"][row.skill] = row.skill_value
        else:
            total["skills"].pop(row.skill, None)
    if row.status is not None:
        total["status"] = row.status
        total["captor_id"] = row.captor_id


@dataclass
class Report:
    """What ``verify`` found: ``problems`` (each a sign of tampering or a bug), ``notes``
    (legacy rows, anchors that hold), and the rows whose key was not available."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    missing: dict[str, list[int]] = field(default_factory=dict)
    """Key id to the ids of the rows it signed, for keys the keyring lacks."""
    head: Anchor | None = None
    """The newest row, as an anchor to publish."""
    keyed: bool = False
    """Whether any row is keyed."""
    keys: list[PublicKey] = field(default_factory=list)
    """The public keys that signed rows, in order (a rotation adds one)."""

    def missing_keys(self, keyring: Keyring) -> list[str]:
        """One line per missing key: its id, the rows, where keys are looked for."""
        return [f"ledger key {kid} is not available: it signed ledger "
                f"{'row' if len(ids) == 1 else 'rows'} {ranges(ids)}; "
                f"a key is looked for in {keyring.looked}" for kid, ids in self.missing.items()]


def verify(session: Session, keyring: Keyring, anchors: Sequence[Anchor] = (),
           trusted: Sequence[PublicKey] = ()) -> Report:
    """Prove the chain, the head, every anchor, every warrior's cached fields and every
    fight's digests; what disagrees is named in ``Report.problems``. Signed rows are
    proved by the ``trusted`` public keys and the keyring's; older rows by its secrets,
    or by the seal the first signed row holds.

    The rows are walked once, ``VERIFY_BATCH`` at a time: what is kept is per warrior
    (its rebuilt fields), per fight (its marks' digests), the hashes of the rows the
    anchors name and the ids of legacy or unkeyed rows; never the rows."""
    report = Report()
    walker = Walker(keyring, trusted, named_keys(session))
    totals = new_totals()
    marks = Marks()
    setups = Setups()
    wanted = {anchor.id for anchor in anchors}
    anchored: dict[int, tuple[str, str | None]] = {}
    for row in chain_rows(session):
        walker.step(row)
        setups.before(row, totals)
        add_total(totals, row)
        setups.after(row, totals)
        marks.add(row)
        if row.id in wanted:
            anchored[row.id] = row.hash, row.key_id
    finish(walker, report)
    stored = head_row(session)
    if stored is None or stored.last_id != walker.last_id \
            or stored.last_hash != walker.previous:
        report.problems.append(
            f"ledger head does not match row {walker.last_id}: newest rows removed?")
    check_anchors(anchored, walker.last_id, anchors, walker.broken, report)
    check_stored(session, totals, marks, report)
    check_setups(session, setups, report)
    return report


def check_setups(session: Session, setups: Setups, report: Report) -> None:
    """Each fight a closing row ends: its setup sheets and its sides' accounts against
    the warriors the chain gives at that row (``setups``), read a batch of fights at a
    time; and what ``setups`` found of the skill rows, into ``report``."""
    report.problems += setups.problems
    ids = sorted(setups.at_close)
    for start in range(0, len(ids), _FIGHT_BATCH):
        batch = ids[start:start + _FIGHT_BATCH]
        sides: defaultdict[int, list[list[Any]]] = defaultdict(list)
        for seat in session.execute(
                select(FightSide.fight_id, FightSide.side, FightSide.warrior_id,
                       FightSide.account).where(FightSide.fight_id.in_(batch))
                .order_by(FightSide.fight_id, FightSide.side)):
            sides[seat.fight_id].append([seat.side, seat.warrior_id, seat.account])
        for fight_id, setup in session.execute(
                select(Fight.id, Fight.setup).where(Fight.id.in_(batch)).order_by(Fight.id)):
            report.problems += setups.check(fight_id, setup, sides[fight_id])


_FIGHT_BATCH = 500
"""Fights read per query when their setups are checked."""
_SHEETS = (Entry.CREATED, Entry.ATTESTED, Entry.RENAMED, Entry.OWNER_CHANGED,
           Entry.MODERATOR_ARMOUR)
"""The entries that change what a fight's setup is made of (with any skill row)."""
_BOUGHT = re.compile(r"bought (\S+) (\d+)->(\d+)")
"""A purchase's reason: the skill, its value before and after (``storage.warriors``)."""


def _sheet(total: dict[str, Any]) -> dict[str, Any]:
    """What of a warrior's rebuilt fields a fight's setup is made of."""
    skills = total.get("skills")
    return {"name": total.get("name"), "owner": total.get("owner"),
            "system": total.get("system"), "culture": total.get("culture"),
            "armour": total.get("armour"), "profile": total.get("profile"),
            "skills": dict(skills) if isinstance(skills, dict) else {}}


def _unlike(sheet: Any, known: dict[str, Any]) -> list[str]:
    """Where a setup's sheet differs from a warrior as the chain gave it (empty: it is
    that warrior); fields the chain does not give (a legacy warrior's) are not asked."""
    if not isinstance(sheet, dict):
        return ["its sheet is unreadable"]
    found: list[str] = []
    if known["name"] is not None and sheet.get("name") != known["name"]:
        found.append(f"name {sheet.get('name')!r}, ledger says {known['name']!r}")
    if known["system"] not in (None, "ancath"):
        if known["profile"] is not None and sheet != known["profile"]:
            found.append("its profile differs")
        return found
    for name in ("culture", "armour"):
        if known[name] is not None and sheet.get(name) != known[name]:
            found.append(f"{name} {sheet.get(name)}, ledger says {known[name]}")
    given = sheet.get("skills")
    skills: dict[str, Any] = given if isinstance(given, dict) else {}
    found += [f"{skill} {skills.get(skill, 'none')}, ledger says "
              f"{known['skills'].get(skill, 'none')}"
              for skill in sorted(set(skills) | set(known["skills"]))
              if skills.get(skill) != known["skills"].get(skill)]
    return found


class Setups:
    """What a fight's setup is checked against, gathered as the rows go by: per warrior,
    the sheets (name, owner, system, culture, armour, skills, profile) it has had since
    the last fight it fought in ended; per fight, at its first closing row (not an
    attested one: a fight from before ledger keys, pinned as stored), those sheets of
    its sides' warriors. A setup sheet must be one of them, and a side's account the
    owner of one: a fight set up from stored columns a writer without the key changed,
    then put back, is caught by its closing row. And each purchase's skill value before
    (its reason, ``bought club 60->65``) and each armour change's ``was`` against the
    chain's value before the row."""

    def __init__(self) -> None:
        self._since: dict[int, list[dict[str, Any]]] = {}
        self.at_close: dict[int, tuple[int, dict[int, list[dict[str, Any]]]]] = {}
        """Per fight: its first closing row's id and, per side's warrior, its sheets."""
        self.problems: list[str] = []

    def before(self, row: Any, totals: defaultdict[int, dict[str, Any]]) -> None:
        """The old value a skill or armour row records against the chain's, before the
        row is added to ``totals``."""
        wid = row.warrior_id
        if not isinstance(wid, int) or wid not in totals:
            return
        total = totals[wid]
        label = total.get("name", f"warrior id {wid}")
        if row.entry == Entry.SPEND and isinstance(row.reason, str):
            bought = _BOUGHT.fullmatch(row.reason)
            skills = total.get("skills")
            was = skills.get(bought[1], 0) if bought and isinstance(skills, dict) else None
            if bought and int(bought[2]) != was:
                self.problems.append(
                    f"ledger row {row.id}: {label} bought {bought[1]} from {bought[2]}, but "
                    f"the ledger gives {was} before it (bought from a stored value the chain "
                    "does not give)")
        elif row.entry == Entry.MODERATOR_ARMOUR and isinstance(row.detail, dict) \
                and "was" in row.detail and "armour" in total \
                and row.detail["was"] != total["armour"]:
            self.problems.append(
                f"ledger row {row.id}: {label}'s armour was {row.detail['was']}, but the "
                f"ledger gives {total['armour']} before it (changed from a stored value the "
                "chain does not give)")

    def after(self, row: Any, totals: defaultdict[int, dict[str, Any]]) -> None:
        """A warrior's sheet after a row that changes it; a fight's sides at its first
        closing row."""
        wid = row.warrior_id
        if isinstance(wid, int) and (row.entry in _SHEETS or isinstance(row.skill, str)):
            sheet = _sheet(totals[wid])
            since = self._since.setdefault(wid, [])
            if not since or since[-1] != sheet:
                since.append(sheet)
            return
        if row.entry != Entry.FIGHT_CLOSED or not isinstance(row.fight_id, int) \
                or row.fight_id in self.at_close or not isinstance(row.detail, dict) \
                or row.detail.get("attested"):
            return
        sides = row.detail.get("sides")   # the warriors' ids, by side
        seated = [wid for wid in sides if type(wid) is int and wid in totals] \
            if isinstance(sides, list) else []
        known = {warrior: self._since.get(warrior) or [_sheet(totals[warrior])]
                 for warrior in seated}
        self.at_close[row.fight_id] = (row.id, known)
        for warrior, sheets in known.items():   # from here, what it has since this fight:
            self._since[warrior] = sheets[-1:]   # its sheet now (the newest, shared)

    def check(self, fight_id: int, setup: Any, sides: Sequence[Sequence[Any]]) -> list[str]:
        """Where a fight's stored setup sheets and sides' accounts (its setup digest in
        its closing row proves them) are not the warriors the chain gave then."""
        found = self.at_close.get(fight_id)
        if found is None:
            return []
        close, known = found
        sheets = setup.get("sheets") if isinstance(setup, dict) else None
        problems: list[str] = []
        for side, wid, account in sides:
            states = known.get(wid)
            if not states:
                continue   # sides other than the closing row's: the setup digest says so
            sheet = sheets[side] if isinstance(sheets, list) and type(side) is int \
                and 0 <= side < len(sheets) else None
            newest = states[-1]
            label = newest["name"] or f"warrior id {wid}"
            if all(_unlike(sheet, state) for state in states):
                problems.append(
                    f"fight {fight_id}: side {side}'s setup sheet is not {label} as the "
                    f"ledger gives it before its end (ledger row {close}): "
                    f"{'; '.join(_unlike(sheet, newest)[:4])}")
            owners = [state["owner"] for state in states if state["owner"] is not None]
            if owners and account not in owners:
                problems.append(
                    f"fight {fight_id}: side {side} fought as account {account!r}, but "
                    f"{label}'s owner by the ledger is {owners[-1]!r} (ledger row {close})")
        return problems


def check_stored(session: Session, totals: dict[int, dict[str, Any]], marks: Marks,
                 report: Report) -> None:
    """Every warrior's stored columns against ``totals`` and every fight's logs and end
    against ``marks`` (the chain's, walked), into ``report`` (whose ``keyed`` says
    whether the chain is keyed)."""
    check_warriors(list(session.scalars(select(Warrior).order_by(Warrior.id))), totals,
                   report)
    marks.problems.clear()
    marks.check(lambda fight, seq: fight_digest(session, fight, seq))
    fights = session.execute(
        select(Fight.id, Fight.active, Fight.ending, Fight.winner, Fight.ended_at)
        .order_by(Fight.id)).all()
    last_seqs, last_events = ({fight_id: seq for fight_id, seq in session.execute(
        select(log.fight_id, func.max(log.seq)).group_by(log.fight_id))}
        for log in (FightCommand, FightEvent))
    check_fights(fights, last_seqs, marks, report, last_events)


def finish(walker: Walker, report: Report) -> None:
    """The walk's end, into ``report``: its problems, notes, missing keys and head."""
    walker.finish()
    report.problems += walker.problems
    report.notes += walker.notes
    report.missing = walker.missing
    report.keyed = walker.keyed
    report.keys = walker.keys_seen
    report.head = Anchor(walker.last_id, walker.previous[:ANCHOR_DIGITS]) \
        if walker.walked else None


def check_anchors(anchored: dict[int, tuple[str, str | None]], last_id: int,
             anchors: Sequence[Anchor], broken: int | None, report: Report) -> None:
    """Each anchor against the MAC and key id of the row it names (``anchored``)."""
    for anchor in anchors:
        label = f"anchor ledger #{anchor.id} {anchor.mac}"
        found = anchored.get(anchor.id)
        if found is None:
            report.problems.append(
                f"{label}: there is no row {anchor.id} (the ledger ends at #{last_id}): "
                "newest rows removed and the head rewound?")
            continue
        mac, kid = found
        if not mac.startswith(anchor.mac):
            report.problems.append(
                f"{label}: row {anchor.id}'s hash starts {mac[:len(anchor.mac)]}: the "
                "ledger was rewritten up to there")
        elif broken is not None and broken >= anchor.id:
            report.problems.append(
                f"{label}: the chain from row {anchor.id} to the head is broken or unproved")
        else:
            weak = (" (a legacy row: anyone can recompute its hash; anchor a keyed row)"
                    if kid is None else "")
            report.notes.append(f"{label}: holds; the chain runs intact from it to the "
                                f"head #{last_id}{weak}")


def check_warriors(warriors: Sequence[Any], totals: dict[int, dict[str, Any]],
                   report: Report) -> None:
    """Each warrior's stored fields (``Warrior`` rows, or an export's) against the
    fields the chain gives it."""
    for gone in sorted(set(totals) - {w.id for w in warriors}):
        report.problems.append(f"ledger rows name warrior id {gone}, which is not in the "
                               "database (deleted)")
    unnamed = 0
    for warrior in warriors:
        if warrior.id not in totals:
            report.problems.append(f"warrior {warrior.name}: no ledger rows (not created "
                                   "through the bot)")
            continue
        derived = totals[warrior.id]
        if "name" not in derived or "owner" not in derived:
            if report.keyed:
                report.problems.append(f"warrior {warrior.name}: its name and owner are not "
                                       "in the ledger")
            unnamed += 1
        label = derived.get("name", warrior.name)
        for name, stored, proved in differences(warrior, derived):
            report.problems.append(f"warrior {label}: {name} is {stored!r}, ledger "
                                   f"says {proved!r}")
    if unnamed and not report.keyed:
        report.notes.append(f"{unnamed} warriors come from before the ledger recorded names "
                            "and owners: ancath-bot db seal-legacy records them as they are")


def differences(warrior: Any, derived: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """Each field of ``warrior``'s stored columns that differs from what the chain gives
    it (``derived``): its name, the stored value and the chain's."""
    cached = _cached(warrior)
    return [(name, cached[name], derived[name]) for name in _FIELDS
            if name in derived and cached[name] != derived[name]]


def _cached(warrior: Any) -> dict[str, Any]:
    """The warrior's cached fields by the names the chain gives them."""
    return {"name": warrior.name, "name_key": warrior.name_key, "owner": warrior.owner,
            "system": warrior.system, **recorded(warrior), "bp": warrior.bp,
            "bp_spent": warrior.bp_spent, "status": warrior.status,
            "captor_id": warrior.captor_id}


@dataclass(frozen=True, slots=True)
class _Mark:
    """What ``verify`` keeps of a fight's newest ``fight-closed`` or ``fight-reopened``
    row: its id, its entry, and the ending and last command it records."""

    id: int
    entry: str
    detail: dict[str, Any]


class Marks:
    """Per fight, its newest mark, and each mark's digests to check against the fight's
    logs (``check``), gathered as the rows go by."""

    def __init__(self) -> None:
        self.newest: dict[int, _Mark] = {}
        self._seqs: defaultdict[int, set[int]] = defaultdict(set)
        self.last_digests: dict[int, tuple[int, dict[str, Any]]] = {}
        """Per fight, its newest mark's id and digests (``seq``, ``setup``, ...)."""
        self.problems: defaultdict[int, list[str]] = defaultdict(list)
        self._digests: list[tuple[int, int, dict[str, Any]]] = []

    def add(self, row: Any) -> None:
        if row.entry not in FIGHT_ENTRIES or not isinstance(row.fight_id, int):
            return
        detail = row.detail if isinstance(row.detail, dict) else {}
        digests = {name: detail.get(name) for name in ("seq", *(part for part, _ in _PARTS))}
        self._digests.append((row.fight_id, row.id, digests))
        if type(digests["seq"]) is int:
            self._seqs[row.fight_id].add(digests["seq"])
        self.last_digests[row.fight_id] = row.id, digests
        kept = {name: detail.get(name) for name in ("ending", "winner", "ended_at", "seq")}
        self.newest[row.fight_id] = _Mark(row.id, row.entry, kept)

    def seqs(self, fight_id: int) -> set[int]:
        """The commands the marks of a fight name (their digests are up to them)."""
        return self._seqs.get(fight_id, set())

    def check(self, digest_of: DigestOf) -> None:
        """Each mark's digests against ``digest_of(fight, seq)``, the logs' now."""
        for fight_id, mark, detail in self._digests:
            self.problems[fight_id] += _digests(digest_of, fight_id, mark, detail)

    def altered(self, fight_id: int, digest_of: DigestOf) -> list[str]:
        """The parts (``PARTS``' words) of a fight's logs that now differ from its newest
        mark's digests (``digest_of(fight, seq)``, the logs' now); nothing is kept."""
        found = self.last_digests.get(fight_id)
        if found is None:
            return []
        seq = found[1].get("seq")
        now = digest_of(fight_id, seq) if isinstance(seq, int) else None
        return [what for part, what in _PARTS
                if now is None or now[part] != found[1].get(part)]


def check_fights(fights: Sequence[Any], last_seqs: dict[int, int], marks: Marks,
                 report: Report, last_events: dict[int, int] | None = None) -> None:
    """Each fight (id, active, ending, winner, ended_at) and its last command (and the
    command its last events are of) against the marks the chain holds of it."""
    for gone in sorted(set(marks.newest) - {f.id for f in fights}):
        report.problems.append(f"fight {gone}: not in the database, but ledger row "
                               f"{marks.newest[gone].id} records it (deleted)")
    uncovered: list[int] = []
    for fight in fights:
        report.problems += marks.problems.get(fight.id, [])
        newest = marks.newest.get(fight.id)
        if fight.active:
            if newest is not None and newest.entry == Entry.FIGHT_CLOSED:
                report.problems.append(f"fight {fight.id}: stored as unfinished, but ledger row "
                                       f"{newest.id} ended it and no row reopened it")
            continue
        if newest is None or newest.entry != Entry.FIGHT_CLOSED:
            if report.keyed:
                since = " since it was reopened" if newest is not None else ""
                report.problems.append(f"fight {fight.id}: ended, but no ledger row closes "
                                       f"it{since}")
            else:
                uncovered.append(fight.id)
            continue
        detail = newest.detail
        for name in ("ending", "winner", "ended_at"):
            if getattr(fight, name) != detail.get(name):
                report.problems.append(f"fight {fight.id}: {name} is {getattr(fight, name)!r}, "
                                       f"ledger row {newest.id} says {detail.get(name)!r}")
        last = last_seqs.get(fight.id) or 0
        late = (last_events or {}).get(fight.id) or 0
        if not isinstance(last, int) or not isinstance(late, int):
            report.problems.append(f"fight {fight.id}: its log's command numbers are damaged")
            continue
        if isinstance(detail.get("seq"), int) and last > detail["seq"]:
            report.problems.append(f"fight {fight.id}: commands {detail['seq'] + 1}..{last} "
                                   f"come after its end (ledger row {newest.id})")
        if isinstance(detail.get("seq"), int) and late > detail["seq"]:
            report.problems.append(f"fight {fight.id}: events of commands {detail['seq'] + 1}.."
                                   f"{late} come after its end (ledger row {newest.id})")
    if uncovered:
        report.notes.append(f"fights {ranges(uncovered)} ended before the ledger recorded "
                            "fights: ancath-bot db seal-legacy records them as they are")


def _digests(digest_of: DigestOf, fight_id: int, mark: int,
             detail: dict[str, Any]) -> list[str]:
    """Where the fight's digests now differ from those ledger row ``mark`` holds."""
    seq = detail.get("seq")
    digest = digest_of(fight_id, seq) if isinstance(seq, int) else None
    if digest is None:
        return [f"fight {fight_id}: ledger row {mark} holds no digest"]
    return [f"fight {fight_id}: its {what} differs from ledger row {mark} (changed since)"
            for part, what in _PARTS if digest[part] != detail.get(part)]
