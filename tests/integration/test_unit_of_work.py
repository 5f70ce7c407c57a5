"""One chat command, one transaction (``Store.unit``), on every backend.

The store's methods called inside a unit join its transaction; it commits at the end or
takes everything back; a referee runs each command that writes in one, so ``!challenge``
reads, checks and writes in a single transaction, says its line only once that is
committed, and a second bot on the same database cannot slip a write between its check
and its write.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, event, text
from sqlalchemy.exc import OperationalError
from transcript import warrior  # tests/unit, put on the path by conftest.py

from bot.app import build_referee
from bot.channel_fights import Challenge
from bot.chat.lanes import Lanes
from bot.clock import FakeClock
from bot.commands.registry import Ctx, Refusal, Registry, Spec, WritesAfterAll
from bot.config import BotConfig
from bot.console import serve
from bot.dice import ScriptedDice
from bot.fights.challenges import keep_challenge
from bot.fights.play import table_of
from bot.messages import Incoming, Sender
from bot.odds.worker import InlineExecutor
from bot.referee import Referee
from bot.systems.registry import SYSTEMS
from rules.ancath.stored import mod_bp
from rules.ancath.system import AN_CATH
from storage.db import open_database
from storage.db_engines import READ_ONLY
from storage.keys import Keyring
from storage.records import ChallengeRecord
from storage.store import DuplicateName, Store

KEY = Keyring.of(b"a ledger key for the unit of work tests, 32+ bytes")
TABLES = ("warriors", "ledger", "fights", "fight_sides", "fight_commands", "fight_events",
          "ledger_head", "challenges", "settings")
GORBAG = "Gorbag goblin club spear"
OLAF = "Olaf free-clans axe shield"
BRENNA = "Brenna free-clans axe shield"
OLAF_SHEET = warrior("Olaf", "free-clans", "broadsword", "shield")
GORBAG_SHEET = warrior("Gorbag", "goblin", "club", "spear")


# -- helpers ----------------------------------------------------------------------------


class HeldDice:
    """Scripted dice; once ``hold`` is set, the next roll waits until ``go`` is."""

    def __init__(self, *numbers: int) -> None:
        self.script = ScriptedDice(numbers)
        self.hold = False
        self.rolling = threading.Event()
        self.go = threading.Event()

    def roll(self, sides: int) -> int:
        if self.hold:
            self.hold = False
            self.rolling.set()
            assert self.go.wait(20), "the test never let the roll go"
        return self.script.roll(sides)


def referee_on(url: str, dice: HeldDice | None = None) -> Referee:
    return build_referee(BotConfig(moderators=["mod"], rolls="auto"), database=url,
                         dice=dice or HeldDice(), clock=FakeClock(),
                         odds_workers=InlineExecutor(), keyring=KEY)


def say(referee: Referee, line: str) -> list[str]:
    """``"[#chan] <nick> <text>"`` from the account ``nick``; the lines sent back."""
    channel = "#arena"
    if line.startswith("#"):
        channel, line = line.split(" ", 1)
    nick, said = line.split(" ", 1)
    out = referee.handle(Incoming(sender=Sender(nick=nick, account=nick), text=said,
                                    channel=channel))
    return [f"{o.target} {o.text}" for o in out]


def rows(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the club's tables: what a command that changed nothing leaves."""
    with engine.connect() as connection:
        return {table: sorted(map(tuple, connection.execute(text(f"SELECT * FROM {table}"))),
                              key=repr)
                for table in TABLES}


class Transactions:
    """BEGIN and COMMIT of write transactions counted on an engine (not a read's, such
    as the club's version read at every command)."""

    def __init__(self, engine: Engine) -> None:
        self.begun = self.committed = 0
        event.listen(engine, "begin", self._begin)
        event.listen(engine, "commit", self._commit)

    def _begin(self, connection: Connection) -> None:
        self.begun += _writes(connection)

    def _commit(self, connection: Connection) -> None:
        self.committed += _writes(connection)


def _writes(connection: Connection) -> bool:
    options = connection.get_execution_options()
    return not options.get(READ_ONLY) and options.get("isolation_level") != "AUTOCOMMIT"


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    engine = open_database(database_url)
    try:
        yield Store(engine, systems=SYSTEMS.rules, keyring=KEY)
    finally:
        engine.dispose()


@pytest.fixture
def referee(database_url: str) -> Iterator[Referee]:
    referee = referee_on(database_url)
    for line in (f"gob !create {GORBAG}", f"olaf !create {OLAF}", f"bren !create {BRENNA}"):
        assert "created" in " ".join(say(referee, line)), line
    try:
        yield referee
    finally:
        referee.store.engine.dispose()


def challenge(store: Store, channel: str = "#arena") -> ChallengeRecord:
    return ChallengeRecord(channel, "Olaf", "olaf", "Gorbag", "gob", "duel")


# -- the store's unit of work -----------------------------------------------------------


def test_every_call_in_a_unit_is_one_transaction(store: Store) -> None:
    counted = Transactions(store.engine)
    with store.unit():
        store.create_warrior(OLAF_SHEET, "olaf")
        assert store.warrior("Olaf").owner == "olaf"   # reads see the unit's writes
        store.create_warrior(GORBAG_SHEET, "gob")
        store.put_challenge(challenge(store))
        assert [w.sheet.name for w in store.warriors()] == ["Gorbag", "Olaf"]
    assert (counted.begun, counted.committed) == (1, 1)
    assert [c.target for c in store.challenges()] == ["Gorbag"]


def test_a_refusal_after_a_write_leaves_nothing_written(store: Store) -> None:
    store.create_warrior(OLAF_SHEET, "olaf")
    before = rows(store.engine)
    with pytest.raises(Refusal, match="no, after all"), store.unit():
        store.create_warrior(GORBAG_SHEET, "gob")
        store.change_sheet("Olaf", mod_bp(30, "mod", "a gift"))
        store.put_challenge(challenge(store))
        raise Refusal("no, after all")
    assert rows(store.engine) == before


def test_a_write_refused_in_a_unit_takes_back_only_itself(store: Store) -> None:
    with store.unit():
        store.create_warrior(OLAF_SHEET, "olaf")
        with pytest.raises(DuplicateName):
            store.create_warrior(warrior("olaf", "goblin", "club", "spear"), "gob")
        store.create_warrior(GORBAG_SHEET, "gob")
    assert [w.sheet.name for w in store.warriors()] == ["Gorbag", "Olaf"]
    assert [row["entry"] for row in store.ledger()] == ["created", "created"]
    assert store.verify() == []


def savepoints(engine: Engine) -> list[str]:
    """The SAVEPOINT statements run on ``engine`` from now on."""
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if statement.upper().startswith("SAVEPOINT"):
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    return seen


def test_a_whole_unit_takes_no_savepoint_and_a_failed_write_fails_it(store: Store) -> None:
    """A chat command's unit: its handler lets a failed write end the command, so its
    writes need no savepoint each; one that catches the failure and goes on is stopped,
    and nothing of the unit is kept."""
    taken = savepoints(store.engine)
    with store.unit(whole=True):
        store.create_warrior(OLAF_SHEET, "olaf")
        store.create_warrior(GORBAG_SHEET, "gob")
    assert taken == []
    with pytest.raises(RuntimeError, match="went on"), store.unit(whole=True):
        store.create_warrior(warrior("Brenna", "free-clans", "axe", "shield"), "bren")
        with pytest.raises(DuplicateName):
            store.create_warrior(warrior("olaf", "goblin", "club", "spear"), "gob")
        store.warriors()
    with pytest.raises(RuntimeError, match="went on"), store.unit(whole=True), \
            pytest.raises(DuplicateName):   # its only write failed, and it ended anyway
        store.create_warrior(warrior("olaf", "goblin", "club", "spear"), "gob")
    assert [w.sheet.name for w in store.warriors()] == ["Gorbag", "Olaf"]
    assert [row["entry"] for row in store.ledger()] == ["created", "created"]
    assert store.verify() == []


def test_each_call_in_a_unit_has_the_anchor_of_its_own_rows(store: Store) -> None:
    """A fight opened after a warrior was created in the same unit made no ledger row:
    it carries no anchor, as when it was a transaction of its own."""
    store.create_warrior(OLAF_SHEET, "olaf")
    with store.unit():
        store.create_warrior(GORBAG_SHEET, "gob")
        fight, _ = store.open_fight("#arena", AN_CATH, "practice",
                                    [("Olaf", "olaf"), ("Gorbag", "gob")], "gob")
    assert fight.anchor is None
    assert store.fight(fight.id).seq == 0


def test_a_unit_on_another_thread_is_not_joined(store: Store) -> None:
    """The talk lane's reads run beside a unit the records lane holds open: they read
    what is committed, and do not wait for it."""
    store.create_warrior(OLAF_SHEET, "olaf")
    seen: list[list[str]] = []
    with store.unit():
        store.create_warrior(GORBAG_SHEET, "gob")
        reader = threading.Thread(
            target=lambda: seen.append([w.sheet.name for w in store.warriors()]))
        reader.start()
        reader.join(5)
        assert not reader.is_alive()
    assert seen == [["Olaf"]]


# -- a chat command as one unit ---------------------------------------------------------


def test_a_challenge_is_one_write_transaction(referee: Referee) -> None:
    counted = Transactions(referee.store.engine)
    said = say(referee, "olaf !challenge Gorbag duel")
    assert said == ["#arena Gorbag, Olaf challenges you to a duel: gob may !accept "
                    "or !decline."]
    assert (counted.begun, counted.committed) == (1, 1)


def test_a_command_refused_after_it_wrote_says_and_keeps_nothing(
    referee: Referee, monkeypatch: pytest.MonkeyPatch,
) -> None:
    def second_thoughts(ctx: Ctx) -> None:
        keep_challenge(ctx.services, table_of(ctx), Challenge(
            "Olaf", "olaf", "Gorbag", "gob", "duel", ctx.services.clock.now() + 600))
        settings = ctx.services.settings
        settings.set_setting(settings.channel_setting("timelimit", "#arena"), 3, ctx.who, "quicker")
        ctx.say("Gorbag, Olaf challenges you to a duel")
        raise Refusal("on second thoughts, no")

    commands = Registry()
    for spec in dict.fromkeys(referee.services.commands.values()):
        commands.add(spec)
    commands.add(Spec("rethink", "!rethink", "A test's command.", second_thoughts))
    monkeypatch.setattr(referee, "services", replace(referee.services, commands=commands))
    before = rows(referee.store.engine)
    assert say(referee, "olaf !rethink") == ["#arena olaf: on second thoughts, no"]
    assert rows(referee.store.engine) == before
    assert referee.tables.table("#arena").challenge is None
    assert referee.settings.turn_seconds("#arena") == 600
    assert say(referee, "gob !accept") == ["#arena gob: there is no challenge to you here"]


def test_a_commit_that_fails_is_answered_like_a_failed_write(referee: Referee) -> None:
    def locked(_connection: Any) -> None:
        event.remove(referee.store.engine, "commit", locked)
        raise OperationalError("COMMIT", None, sqlite3.OperationalError("database is locked"))

    event.listen(referee.store.engine, "commit", locked)
    assert say(referee, "olaf !challenge Gorbag duel") == [
        "#arena olaf: the club's records are busy, try again in a moment"]
    assert referee.tables.table("#arena").challenge is None
    assert referee.store.challenges() == []
    assert say(referee, "olaf !challenge Gorbag duel") == [
        "#arena Gorbag, Olaf challenges you to a duel: gob may !accept or !decline."]


def test_two_bots_cannot_both_act_on_one_warrior(database_url: str,
                                                 referee: Referee) -> None:
    """Gorbag accepts Olaf in #arena on one bot; while that fight is being written, a
    second bot on the same database takes Brenna's challenge to Gorbag in #pit. The
    second waits for the first to commit, then sees Gorbag fighting: never a challenge
    to a warrior who is already in a fight."""
    dice = HeldDice(50, 20)   # the initiative: Olaf first
    first = referee_on(database_url, dice)
    second = referee_on(database_url)
    try:
        assert "challenges you" in say(first, "olaf !challenge Gorbag duel")[0]
        dice.hold = True
        answers: dict[str, list[str]] = {}
        accept = threading.Thread(target=lambda: answers.update(
            accept=say(first, "gob !accept")))
        rival = threading.Thread(target=lambda: answers.update(
            rival=say(second, "#pit bren !challenge Gorbag")))
        accept.start()
        assert dice.rolling.wait(10)        # the fight is written, not yet committed
        rival.start()
        time.sleep(0.5)
        assert rival.is_alive(), "the second bot did not wait for the first's write"
        dice.go.set()
        accept.join(20)
        rival.join(20)
        assert "Gorbag" in answers["accept"][0] and "first" in answers["accept"][0]
        assert answers["rival"] == ["#pit bren: Gorbag is already in a fight"]
        assert second.store.challenges() == []
    finally:
        first.store.engine.dispose()
        second.store.engine.dispose()


# -- lanes and units: what one writer changes, no other lane sees until it commits -----


def line(text: str, channel: str | None = "#arena", nick: str = "olaf") -> Incoming:
    return Incoming(sender=Sender(nick=nick, account=nick), text=text, channel=channel)


def test_a_roll_taken_for_talk_that_became_a_fight_roll_goes_to_the_records_lane(
    referee: Referee, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In a manual-roll channel Olaf's !roll d100 is queued before Gorbag accepts: it was
    talk then, it is the fight's initiative roll when it runs, so the talk lane does
    nothing with it and it runs again on the records lane."""
    say(referee, "mod !mod rolls manual for the test")
    say(referee, "olaf !challenge Gorbag duel")
    roll = line("!roll d100")
    assert not referee.writes(roll)           # queued on the talk lane
    assert "roll" in " ".join(say(referee, "gob !accept"))
    before = rows(referee.store.engine)
    with pytest.raises(WritesAfterAll):
        referee.handle(roll, False)
    assert rows(referee.store.engine) == before
    assert referee.writes(roll)
    monkeypatch.setattr(referee, "services", replace(referee.services, dice=HeldDice(50)))
    assert "50" in " ".join(o.text for o in referee.handle(roll, True))  # on the records lane


def test_the_lanes_queue_such_a_roll_again_on_the_records_lane(
    referee: Referee, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(referee, "services", replace(referee.services, dice=HeldDice(50)))
    say(referee, "mod !mod rolls manual for the test")
    say(referee, "olaf !challenge Gorbag duel")
    said: list[str] = []

    async def run() -> None:
        lanes, talk_busy, go = Lanes(), threading.Event(), threading.Event()

        def busy() -> None:
            talk_busy.set()
            go.wait(10)

        lanes.run(False, busy, lambda _: None)
        assert await asyncio.to_thread(talk_busy.wait, 10)
        lanes.line(referee, line("!roll d100"), lambda call: call(),
                   lambda out: said.extend(o.text for o in out))
        say(referee, "gob !accept")           # the fight opens while the roll waits
        go.set()
        for _ in range(100):
            if said:
                break
            await asyncio.sleep(0.05)
        lanes.close()

    asyncio.run(run())
    assert "50" in " ".join(said), said


def test_a_rollback_in_one_channel_leaves_another_channels_commit(
    referee: Referee, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Gorbag's fight with Olaf in #arena is being written when a moderator's command
    in #pit starts, waits for the lock, writes and is refused: the fight stays open."""
    def second_thoughts(ctx: Ctx) -> None:
        settings = ctx.services.settings
        settings.set_setting(settings.channel_setting("timelimit", "#pit"), 3, ctx.who, "quicker")
        raise Refusal("on second thoughts, no")

    commands = Registry()
    for spec in dict.fromkeys(referee.services.commands.values()):
        commands.add(spec)
    commands.add(Spec("rethink", "!rethink", "A test's command.", second_thoughts))
    monkeypatch.setattr(referee, "services", replace(referee.services, commands=commands))
    dice = HeldDice(50, 20)
    monkeypatch.setattr(referee, "services", replace(referee.services, dice=dice))
    say(referee, "olaf !challenge Gorbag duel")
    dice.hold = True
    answers: dict[str, list[str]] = {}
    accept = threading.Thread(target=lambda: answers.update(accept=say(referee, "gob !accept")))
    rethink = threading.Thread(target=lambda: answers.update(
        rethink=say(referee, "#pit mod !rethink")))
    accept.start()
    assert dice.rolling.wait(10)
    rethink.start()
    time.sleep(0.3)
    dice.go.set()
    accept.join(20)
    rethink.join(20)
    assert answers["rethink"] == ["#pit mod: on second thoughts, no"]
    assert referee.tables.table("#arena").fight is not None
    assert referee.settings.turn_seconds("#pit") == 600


def test_a_fight_being_written_is_not_read_aloud_before_it_is_committed(
    referee: Referee, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(referee, "services", replace(referee.services, dice=HeldDice(50, 20)))
    say(referee, "olaf !challenge Gorbag duel")
    committing, go = threading.Event(), threading.Event()

    def held(_connection: Any) -> None:
        if not committing.is_set():
            committing.set()
            assert go.wait(20)

    event.listen(referee.store.engine, "commit", held)
    answers: dict[str, list[str]] = {}
    accept = threading.Thread(target=lambda: answers.update(accept=say(referee, "gob !accept")))
    accept.start()
    try:
        assert committing.wait(10)
        assert referee.tables["#arena"].fight is None
        assert say(referee, "bren !status") == ["#arena Olaf has challenged Gorbag (duel)."]
    finally:
        go.set()
        accept.join(20)
    assert referee.tables["#arena"].fight is not None


def test_a_login_takes_no_write_lock(referee: Referee) -> None:
    assert not referee.writes(line("!mod login hunter2", channel=None, nick="mod"))
    assert referee.writes(line("!mod rolls manual", nick="mod"))
    assert not referee.writes(line("!mod", nick="mod"))


def test_a_channel_setting_is_kept_by_the_tables_spelling_on_the_console(
    referee: Referee,
) -> None:
    """rfc1459 folds [ and {: a moderator's !mod rolls in #a{1} is the rolls of #a[1]."""
    written: list[str] = []
    serve(referee, ["#a[1] olaf !challenge Gorbag duel", "#a{1} mod !mod rolls manual",
                    "#a[1] gob !accept"], written.append, tick_seconds=0.05)
    assert "#a{1} mod: rolls in #a{1} are now manual" in written
    assert referee.settings.rolls_mode("#a[1]") == "manual"
    assert referee.store.setting("rolls:default:#a[1]", None) == "manual"
    assert referee.store.setting("rolls:default:#a{1}", None) is None
