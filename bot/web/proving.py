"""The ledger proved for the pages: walked whole when the server starts (in a thread
of its own, off the event loop), then only the rows appended since, before each page
is read; and what every page says of it (:class:`Status`: ``verified``, ``failed`` or
``unchecked``, the ``id="integrity-status"`` element of ``base.html``).

One :class:`storage.proof.Proof` serves every page. It changes only under
``LedgerProof``'s lock, and a page reads under that lock in one read transaction
(:meth:`LedgerProof.reading`), so the columns it shows beside the ledger's figures are
of the moment the chain was walked to: a row the bot writes meanwhile is never taken
for a forgery. A page that does not compare columns (the ledger page) only walks on
(:meth:`LedgerProof.advance`) and reads outside the lock.

A failure stays: once anything fails (the chain, a warrior's stored column, a fight's
log, a row a page shows, the integrity page's whole re-check), every page says
``failed`` until the server is restarted, even if the rows are put back. A row edited
in place after the walk passed it is not seen by walking on: the rows a page shows are
checked on their own (:meth:`LedgerProof.unheld`), by the rules of the chain as walked
(``storage.proved``: from the first signed row on, signed by the key in force; before
it, as the seal covers it; a key not known here proves nothing), and the integrity
page's check (``store.audit()``, kept a minute, :mod:`bot.web.integrity_check`), made again
every ``REWALK_SECONDS`` in the background too, walks the whole chain again.

A row or record the walk cannot read at all (a value the bot never writes: text for a
number, bytes, JSON that is not) fails the check like any forgery; the walk on stops
there, and every page is still shown, from what was walked, under the banner."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from bot.web.integrity_check import UNREADABLE, IntegrityCheck, unreadable
from storage.audit import Report
from storage.ledger import Anchor
from storage.proof import Proof, State, Verdict, club_keys
from storage.proved import Advance, ProvedFight, ProvedWarrior, RowChecks, pages_proof
from storage.signing import PublicKey
from storage.store import Store

__all__ = ["MOST_PROBLEMS", "RETRY_SECONDS", "REWALK_SECONDS", "LedgerProof", "Reading",
           "Status"]

log = logging.getLogger(__name__)

REWALK_SECONDS = 900.0
"""How often the whole chain is walked again in the background (0: never)."""
RETRY_SECONDS = 30.0
"""How long after a first walk that could not read the ledger it is tried again."""
MOST_PROBLEMS = 50
"""Problems kept (the first ones: they say what failed first)."""

@dataclass(frozen=True, slots=True)
class Status:
    """What every page says of the ledger."""

    state: State
    problems: tuple[str, ...] = ()
    """What failed (or, unchecked, why), the first first."""
    broken: int | None = None
    """The row from which nothing is proved, when a row is to blame."""
    head: Anchor | None = None
    """The newest row proved."""
    rows: int = 0
    """Rows walked."""
    walking: bool = False
    """Unchecked because the first walk is under way."""

    @property
    def first(self) -> str:
        return self.problems[0] if self.problems else ""


class Reading:
    """One page's reads, under the proof's lock, in one read transaction: the records
    as the ledger proves them. Before the first walk is done there is no proof, and
    each answer is empty: the page shows the stored columns, under an ``unchecked``
    banner."""

    def __init__(self, keeper: LedgerProof, proof: Proof | None) -> None:
        self._keeper = keeper
        self.proof = proof

    def warriors(self, names: Iterable[str] | None = None) -> dict[str, ProvedWarrior]:
        """Every warrior (or those named), by stored name."""
        if self.proof is None:
            return {}
        found = self._keeper.store.proved_warriors(self.proof, names)
        self._keeper.found(p for warrior in found.values() for p in warrior.problems)
        return found

    def fights(self, ids: Iterable[int], *, logs: bool = False) -> dict[int, ProvedFight]:
        """The fights ``ids`` as their closing rows record them (``logs``: their logs
        checked against those rows too)."""
        if self.proof is None:
            return {}
        found = self._keeper.store.proved_fights(self.proof, ids, logs=logs)
        self._keeper.found(p for fight in found.values() for p in fight.problems)
        return found

    def proves(self, row_id: int | None) -> bool:
        """Whether the chain as walked proves row ``row_id`` (and nothing failed)."""
        return self.proof is not None and row_id is not None and self.proof.proves(row_id)

    def anchor(self, anchor: Anchor) -> tuple[bool, str] | None:
        """Whether the chain still extends ``anchor``, in words; None before the first
        walk."""
        if self.proof is None:
            return None
        return self._keeper.store.anchor_check(self.proof, anchor)


class LedgerProof:
    """The ledger proved for the pages of ``store`` (module docstring)."""

    def __init__(self, store: Store, rewalk_seconds: float = REWALK_SECONDS,
                 trusted: tuple[PublicKey, ...] = ()) -> None:
        self.store = store
        self.trusted = trusted
        """The club's public keys given from outside (``web --public-key``): the pages
        prove the signatures with them, and need no ledger secret."""
        self.integrity: IntegrityCheck | None = None
        """The whole re-check made in the background (set by ``make_app``)."""
        self._rewalk = rewalk_seconds
        self._lock = threading.Lock()
        """Held while the proof walks on, and while a page reads beside it."""
        self._state = threading.Lock()
        """Guards what ``status`` reads."""
        self._proof: Proof | None = None
        self._verdict: Verdict | None = None
        self._failures: list[str] = []
        self._broken: int | None = None
        self._error: str | None = None
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._keys: tuple[PublicKey, ...] | None = None
        self._stuck = False
        """A walk on met a row it cannot read: it walks on no more (what it walked
        stays; every page says the check failed)."""

    # -- the walks ------------------------------------------------------------------

    def start(self) -> None:
        """The first walk (every row, every warrior and fight compared), in a thread of
        its own; then the background re-checks."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="ledger-proof",
                                            daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the first walk (done, or unable to read the ledger); whether it came."""
        return self._ready.wait(timeout)

    def _run(self) -> None:
        while True:
            proof = pages_proof(self.store.keyring, self.trusted)
            try:
                advance = self.store.prove(proof, whole=True)
                break
            except UNREADABLE as error:   # a record the bot never wrote: a failure
                log.exception("the ledger could not be proved")
                self.found([unreadable(error, "the ledger (or a record the walk compares "
                                       "with it)")])
                with self._state:
                    self._error = "the ledger could not be read to prove it"
            except Exception as error:   # said on every page and in the log; tried again
                log.exception("the ledger could not be proved")
                with self._state:
                    self._error = f"the ledger could not be read to prove it: {error}"
            self._ready.set()
            if self._stop.wait(RETRY_SECONDS):
                return
        with self._lock:
            self._proof = proof
            self._absorb(advance)
            with self._state:
                self._error = None
        status = self.status()
        if status.state == "failed":
            log.error("the ledger does not prove the records: %s", status.first)
        elif status.state == "unchecked":
            log.warning("the ledger is not proved: %s", status.first)
        self._ready.set()
        while self._rewalk > 0 and not self._stop.wait(self._rewalk):
            self.recheck()

    def recheck(self) -> None:
        """The whole chain walked again (the integrity page's check), now."""
        if self.integrity is None:
            return
        try:
            self.integrity.result(again=True)
        except Exception:   # the next one may do; a page asks for it anyway
            log.exception("the ledger's re-check failed")

    def advance(self) -> None:
        """Walk the rows appended since the last walk (none before the first walk is
        done), in a read transaction of its own."""
        with self._lock:
            self._walk_on()

    def _walk_on(self) -> None:
        """Under the lock: walk the rows appended since. A row it cannot read (changed
        outside the bot) fails the check, and the proof walks on no more: every page
        is still shown, from what was walked, under the banner."""
        proof = self._proof
        if proof is None or self._stuck:
            return
        try:
            self._absorb(self.store.prove(proof))
        except UNREADABLE as error:
            self._stuck = True
            log.exception("the ledger could not be walked on")
            first = proof.walker.last_id + 1
            with self._state:
                self._broken = self._broken or first
            self.found([unreadable(error, f"the ledger from row {first} (or a record the "
                                   "walk compares with it)")])

    @contextmanager
    def reading(self) -> Iterator[Reading]:
        """Walk on, then the page's reads (every store method called inside the
        ``with``), all in one read transaction under the lock."""
        with self._lock, self.store.reading():
            self._walk_on()
            yield Reading(self, self._proof)

    def check_rows(self, rows: Iterable[dict[str, Any]]) -> None:
        """Each of the ledger ``rows`` a page shows (``redact.ledger_fields``) checked on
        its own: ``row["unheld"]`` says why it does not hold (edited, forged, written
        without the key), ``row["unproved"]`` why it is not proved here (signed with a
        key not known here), or each is None; one that does not hold fails the check."""
        shown = list(rows)
        checked = self.unheld(row["id"] for row in shown)
        for row in shown:
            row["unheld"] = checked.unheld.get(row["id"])
            row["unproved"] = checked.unproved.get(row["id"])

    def unheld(self, ids: Iterable[int]) -> RowChecks:
        """Of the ledger rows ``ids``, those that do not hold on their own by the rules
        of the chain as walked, and those not proved here, with why; any that does not
        hold fails the check. The walk goes on first, so every row a page read before
        is walked; before the first walk is done, nothing is said of any row (every page
        says the ledger is not proved yet)."""
        wanted = list(ids)
        with self._lock:
            if self._proof is None:
                return RowChecks()
            self._walk_on()
            checked = self.store.unheld_rows(self._proof, wanted)
        self.found(f"ledger row {row_id}: {why}"
                   for row_id, why in sorted(checked.unheld.items()))
        return checked

    # -- what was found ---------------------------------------------------------------

    def _absorb(self, advance: Advance) -> None:
        verdict = advance.verdict
        failed = [p for p in verdict.problems if p not in verdict.missing]
        with self._state:
            self._verdict = verdict
            if failed and self._broken is None:
                self._broken = verdict.broken
            self._keep([*failed, *advance.problems])

    def found(self, problems: Iterable[str]) -> None:
        """Problems a page found (a stored column, a fight's log, a row that does not
        hold): from now on every page says the ledger check failed."""
        with self._state:
            self._keep(list(problems))

    def report(self, report: Report) -> None:
        """A whole re-check's result (``store.audit()``): its problems fail the check."""
        with self._state:
            self._keep(report.problems)

    def _keep(self, problems: list[str]) -> None:
        for problem in problems:
            if problem not in self._failures and len(self._failures) < MOST_PROBLEMS:
                self._failures.append(problem)

    def status(self) -> Status:
        """What every page says now."""
        with self._state:
            verdict, failures, broken = self._verdict, tuple(self._failures), self._broken
            error = self._error
        head = verdict.head if verdict is not None else None
        rows = verdict.rows if verdict is not None else 0
        if failures:
            return Status("failed", failures, broken, head, rows)
        if error is not None:
            return Status("unchecked", (error,))
        if verdict is None:
            return Status("unchecked", ("the server is proving the ledger (it started a "
                                        "moment ago)",), walking=True)
        if verdict.state == "failed":   # only rows signed with a key not known here
            return Status("unchecked", verdict.missing, verdict.broken, head, rows)
        return Status("verified", (), None, head, rows)

    def public_keys(self) -> tuple[PublicKey, ...]:
        """The club's public key: the ones given (``--public-key``), or the keyring's.
        A server with neither names none: a key the chain names is only the chain's
        word (a chain forged whole names its forger's key), and the pages would tell
        visitors to prove the export with it."""
        if self._keys is None:
            self._keys = self.trusted or (club_keys(self.store.keyring)
                                          if self.store.keyring.keys else ())
        return self._keys
