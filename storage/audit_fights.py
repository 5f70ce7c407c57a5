"""What ``audit verify`` gathers of fights as the chain's rows go by, and checks
against the stored fights: each fight's setup against the warriors the chain gave at
its end (:class:`Setups`), and each ``fight-closed`` or ``fight-reopened`` row's
digests against the fight's logs now (:class:`Marks`)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from storage.ledger import FIGHT_ENTRIES
from storage.models import Entry
from storage.sheets import Systems

__all__ = ["PARTS", "DigestOf", "Marks", "Setups"]

DigestOf = Callable[[int, int], "dict[str, str] | None"]
"""A fight's digests (setup, commands, events) up to a command, as its logs are now."""
PARTS = (("setup", "setup (system, kind, network, channel, sheets, sides)"),
         ("commands", "command log"), ("events", "event log"))
"""A fight's digests, each with what it is a digest of, in words."""
_SHEETS = (Entry.CREATED, Entry.ATTESTED, Entry.RENAMED, Entry.OWNER_CHANGED,
           Entry.MODERATOR_ARMOUR)
"""The entries that change what a fight's setup is made of (with any skill row)."""
_BOUGHT = re.compile(r"bought (\S+) (\d+)->(\d+)")
"""A purchase's reason: the skill, its value before and after (``storage.warrior_store``)."""


def _sheet(total: dict[str, Any]) -> dict[str, Any]:
    """What of a warrior's rebuilt fields a fight's setup is made of."""
    skills = total.get("skills")
    return {"name": total.get("name"), "owner": total.get("owner"),
            "system": total.get("system"), "culture": total.get("culture"),
            "armour": total.get("armour"), "profile": total.get("profile"),
            "skills": dict(skills) if isinstance(skills, dict) else {}}


def _unlike(sheet: Any, known: dict[str, Any], systems: Systems) -> list[str]:
    """Where a setup's sheet differs from a warrior as the chain gave it (empty: it is
    that warrior), as its system's codec compares them (a legacy warrior's, whose
    system the chain does not give: the first system's); fields the chain does not give
    (a legacy warrior's) are not asked."""
    if not isinstance(sheet, dict):
        return ["its sheet is unreadable"]
    found: list[str] = []
    if known["name"] is not None and sheet.get("name") != known["name"]:
        found.append(f"name {sheet.get('name')!r}, ledger says {known['name']!r}")
    return found + systems.sheets(known["system"]).unlike(sheet, known)


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

    def __init__(self, systems: Systems) -> None:
        self._systems = systems
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
            if all(_unlike(sheet, state, self._systems) for state in states):
                problems.append(
                    f"fight {fight_id}: side {side}'s setup sheet is not {label} as the "
                    f"ledger gives it before its end (ledger row {close}): "
                    f"{'; '.join(_unlike(sheet, newest, self._systems)[:4])}")
            owners = [state["owner"] for state in states if state["owner"] is not None]
            if owners and account not in owners:
                problems.append(
                    f"fight {fight_id}: side {side} fought as account {account!r}, but "
                    f"{label}'s owner by the ledger is {owners[-1]!r} (ledger row {close})")
        return problems


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
        digests = {name: detail.get(name) for name in ("seq", *(part for part, _ in PARTS))}
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
        return [what for part, what in PARTS
                if now is None or now[part] != found[1].get(part)]


def _digests(digest_of: DigestOf, fight_id: int, mark: int,
             detail: dict[str, Any]) -> list[str]:
    """Where the fight's digests now differ from those ledger row ``mark`` holds."""
    seq = detail.get("seq")
    digest = digest_of(fight_id, seq) if isinstance(seq, int) else None
    if digest is None:
        return [f"fight {fight_id}: ledger row {mark} holds no digest"]
    return [f"fight {fight_id}: its {what} differs from ledger row {mark} (changed since)"
            for part, what in PARTS if digest[part] != detail.get(part)]
