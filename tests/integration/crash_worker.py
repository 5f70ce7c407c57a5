"""Crash-test worker: plays scripted An Cath fights through ``Store`` until it is killed.

    python crash_worker.py DATABASE_URL SEED

It picks up the unfinished fights that ``Store.open_fights()`` rebuilds, then keeps
three channels busy: creating warriors, starting practice, duel and mortal fights,
recording one command per transaction (decisions drawn from ``legal_actions``, dice
from ``random.Random(SEED)``), with the odd undo, purchase, moderator adjustment and
prisoner release in between. After each write it has committed it prints one line::

    ready N            start-up done, N fights picked up
    open F / rec F S / undo F S / end F
    other WHAT         a committed write outside any fight

so the test can check that everything the worker saw committed survived the kill. It
stops by itself after ``--seconds`` (default 120) in case nobody kills it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rules.ancath import legal_actions
from rules.ancath.commands import DeclareBonus, Forfeit, ModeratorEnd, Roll
from rules.ancath.sheet import create_warrior
from rules.ancath.state import Need
from rules.ancath.stored import buy, mod_bp
from rules.ancath.system import AN_CATH
from rules.ancath.tables import Culture, Skill
from rules.contest.system import CONTEST
from rules.errors import RulesError
from rules.general.system import GENERAL
from storage.db import open_database
from storage.store import Busy, DuplicateName, OpenFight, StorageError, Store

CHANNELS = ("#north", "#south", "#east")
KINDS = ("practice", "practice", "duel", "mortal", "mortal")
TEMPLATES = (
    (Culture.FREE_CLANS, (Skill.MOVE, Skill.BROADSWORD, Skill.SHIELD)),
    (Culture.FREE_CLANS, (Skill.MOVE, Skill.AXE, Skill.GREATSWORD)),
    (Culture.GOBLIN, (Skill.MOVE, Skill.CLUB, Skill.SPEAR)),
    (Culture.GOBLIN, (Skill.MOVE, Skill.AXE, Skill.SHIELD)),
    (Culture.INVADERS, (Skill.MOVE, Skill.SHIELD, Skill.SHORTSWORD)),
    (Culture.INVADERS, (Skill.MOVE, Skill.SHIELD, Skill.SPEAR)),
    (Culture.FAIRY, (Skill.MOVE, Skill.SHORTSWORD, Skill.COUNTERSWORD)),
    (Culture.FAIRY, (Skill.MOVE, Skill.SHORTSWORD, Skill.LAJATANG)),
)
LONGEST = 80
"""A fight still going after this many commands is ended as a draw by a moderator."""


def say(*words: object) -> None:
    print(*words, flush=True)


class Worker:
    def __init__(self, store: Store, rng: random.Random) -> None:
        self.store = store
        self.rng = rng
        self.active: dict[str, OpenFight] = {}
        self.finished: list[int] = []
        self.next_name = len(store.warriors()) + 1

    def new_warrior(self) -> None:
        culture, skills = self.rng.choice(TEMPLATES)
        while True:
            name = f"Crash{self.next_name}"
            self.next_name += 1
            sheet, _ = create_warrior(name, culture, skills, fairy_open=True)
            try:
                self.store.create_warrior(sheet, f"{name.lower()}_acct")
            except DuplicateName:
                continue
            say("other create", name)
            return

    def start(self, channel: str) -> None:
        idle = [w for w in self.store.warriors()
                if not w.in_fight and w.sheet.status.value == "free"]
        if len(idle) < 4:
            self.new_warrior()
            return
        a, b = self.rng.sample(idle, 2)
        kind = self.rng.choice(KINDS)
        try:
            fight, _ = self.store.open_fight(
                channel, AN_CATH, kind,
                [(a.sheet.name, a.owner), (b.sheet.name, b.owner)], a.owner)
        except (Busy, RulesError):
            return
        self.active[channel] = fight
        say("open", fight.id)

    def choose(self, fight: OpenFight) -> Any:
        state = fight.state
        awaiting = state.awaiting
        if len(fight.commands) >= LONGEST:
            return ModeratorEnd(None, "too long")
        if awaiting.need is Need.ROLL:
            return Roll(awaiting.side, self.rng.randint(1, 100))
        if self.rng.random() < 0.01:
            return Forfeit(awaiting.side)
        options = [o.command for o in legal_actions(state)]
        answers = [c for c in options if not isinstance(c, DeclareBonus)]
        if answers and (len(answers) == len(options) or self.rng.random() < 0.8):
            return self.rng.choice(answers)
        return self.rng.choice(options)

    def step(self, channel: str) -> None:
        fight = self.active[channel]
        if fight.commands and self.rng.random() < 0.03:
            try:
                fight = self.store.undo(fight.id, "crash_mod", "crash test undo")
            except RulesError:
                return
            self.active[channel] = fight
            say("undo", fight.id, fight.seq)
            return
        command = self.choose(fight)
        state, events = AN_CATH.apply(fight.state, command)
        fight = self.store.record(fight, command, "crash_referee", state, events)
        say("rec", fight.id, fight.seq)
        if state.outcome is not None:
            del self.active[channel]
            self.finished.append(fight.id)
            say("end", fight.id)
        else:
            self.active[channel] = fight

    def reopen(self) -> None:
        """A moderator undoes the end of a fight this run finished (R8.1)."""
        fight_id = self.rng.choice(self.finished)
        try:
            fight = self.store.undo(fight_id, "crash_mod", "crash test reopen")
        except (StorageError, RulesError):   # busy elsewhere, dead or taken since
            return
        self.finished.remove(fight_id)
        self.active[fight.channel] = fight
        say("undo", fight.id, fight.seq)

    def sideline(self) -> None:
        """Something outside the fights: free a prisoner, buy a skill, adjust BP."""
        warriors = self.store.warriors()
        prisoners = [w for w in warriors if w.sheet.status.value == "prisoner"]
        if prisoners and self.rng.random() < 0.5:
            prisoner = self.rng.choice(prisoners)
            captor = self.store.captor_account(prisoner.sheet.name) or "crash_mod"
            self.store.free(prisoner.sheet.name, captor, "crash test release")
            say("other free", prisoner.sheet.name)
            return
        idle = [w for w in warriors if not w.in_fight and w.sheet.status.value != "dead"]
        if not idle:
            return
        chosen = self.rng.choice(idle)
        if self.rng.random() < 0.5:
            try:
                self.store.change_sheet(chosen.sheet.name,
                                        buy(self.rng.choice(list(Skill)), chosen.owner),
                                        between="buy skills after it")
            except (RulesError, StorageError):
                return
            say("other buy", chosen.sheet.name)
        else:
            self.store.change_sheet(chosen.sheet.name, mod_bp(
                self.rng.choice((-3, -1, 2, 5)), "crash_mod", "crash test adjustment"))
            say("other adjust", chosen.sheet.name)

    def run(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            roll = self.rng.random()
            if roll < 0.02:
                self.sideline()
            elif roll < 0.03 and self.finished:
                self.reopen()
            else:
                channel = self.rng.choice(CHANNELS)
                if channel in self.active:
                    self.step(channel)
                else:
                    self.start(channel)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("seed", type=int)
    parser.add_argument("--seconds", type=float, default=120.0)
    args = parser.parse_args()
    store = Store(open_database(args.url), systems=[AN_CATH, CONTEST, GENERAL])
    fights, problems = store.open_fights()
    if problems:
        say("problems", problems)
        return 3
    worker = Worker(store, random.Random(args.seed))
    for fight in fights:
        worker.active[fight.channel] = fight
    say("ready", len(fights))
    worker.run(args.seconds)
    say("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
