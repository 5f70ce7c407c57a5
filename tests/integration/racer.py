"""A process writing to a club database at the same moment as another, for the tests of
several processes on one database (``test_storage_networks``).

    python racer.py DATABASE_URL NETWORK ledger OWN SHARED COUNT START
    python racer.py DATABASE_URL NETWORK open PREFIX ROUNDS START

``ledger``: from the moment ``START`` (epoch seconds), COUNT moderator BP changes of
+0.1, every other one on the warrior OWN and the rest on SHARED, and a setting changed
with every fourth; one transaction each. ``open``: round ``r`` starts at ``START + r *
STEP``: a practice fight in ``#ancath<r>`` between ``<PREFIX><r>`` and ``Hero<r>``, whom
the other process challenges at the same moment. Prints ``won <fight>`` or ``busy`` a
round, then ``done``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rules.ancath.stored import mod_bp
from rules.ancath.system import AN_CATH
from rules.contest.system import CONTEST
from rules.general.system import GENERAL
from storage.db import open_database
from storage.store import Busy, Store

STEP = 0.1
"""Seconds between two rounds of ``open``: more than one open fight takes."""


def _at(moment: float) -> None:
    time.sleep(max(0.0, moment - time.time()))


def ledger(store: Store, own: str, shared: str, count: int, start: float) -> None:
    _at(start)
    for index in range(count):
        store.change_sheet(own if index % 2 else shared, mod_bp(1, "racer", f"race {index}"))
        if index % 4 == 0:
            store.set_setting(f"race:{store.network}", index, "racer")


def race(store: Store, prefix: str, rounds: int, start: float) -> None:
    for index in range(rounds):
        _at(start + index * STEP)
        sides = [(f"{prefix}{index}", f"{prefix.lower()}{index}"),
                 (f"Hero{index}", f"hero{index}")]
        try:
            fight, _ = store.open_fight(f"#ancath{index}", AN_CATH, "practice", sides, "racer")
        except Busy:
            print("busy", flush=True)
        else:
            print("won", fight.id, flush=True)


def main(argv: list[str]) -> None:
    url, network, job, *args = argv
    engine = open_database(url)
    store = Store(engine, systems=[AN_CATH, CONTEST, GENERAL], network=network)
    store.verify()   # connected and warm before the start
    if job == "ledger":
        ledger(store, args[0], args[1], int(args[2]), float(args[3]))
    else:
        race(store, args[0], int(args[1]), float(args[2]))
    print("done", flush=True)
    engine.dispose()


if __name__ == "__main__":
    main(sys.argv[1:])
