"""Group commit: writing commands that arrive together share one transaction, on every
backend (``bot/chat/records_lane.py``).

Each command of a batch runs in a savepoint of its own and is answered as if it came
alone: a refusal takes back only its own rows, memory and lines; a later command sees
what an earlier one did; nothing is said before the batch commits; a batch that fails
runs each command again alone.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import nullcontext, suppress
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session, SessionTransaction
from test_unit_of_work import (  # the same club and helpers as one command's unit
    BRENNA,
    GORBAG,
    OLAF,
    HeldDice,
    Transactions,
    line,
    referee_on,
    rows,
    say,
)
from transcript import warrior  # tests/unit, put on the path by conftest.py

from bot.chat.lanes import Lanes
from bot.chat.records_lane import RecordsLane, together
from bot.commands.registry import Ctx, Refusal, Registry, Spec
from bot.messages import Incoming, Outgoing
from bot.referee import Referee
from rules.ancath.stored import mod_bp
from storage.db_engines import READ_ONLY
from storage.errors import BatchBroken, TransactionAborted
from storage.store import DuplicateName, Store
from storage.unit_savepoints import Unit

CHALLENGE = "#arena Gorbag, Olaf challenges you to a duel: gob may !accept or !decline."


def second_thoughts(ctx: Ctx) -> None:
    """A test's command: writes a setting, says a line, then refuses."""
    settings = ctx.services.settings
    settings.set_setting(settings.channel_setting("timelimit", ctx.channel()), 3,
                            ctx.who, "quicker")
    ctx.say("the time limit is 3 minutes")
    raise Refusal("on second thoughts, no")


def quicker(ctx: Ctx) -> None:
    """A test's command: writes a setting and says so."""
    settings = ctx.services.settings
    settings.set_setting(settings.channel_setting("timelimit", ctx.channel()), 3,
                            ctx.who, "quicker")
    ctx.say("the time limit is 3 minutes")


def bad_read(ctx: Ctx) -> None:
    """A test's command: a read the database refuses (PostgreSQL then ends the
    transaction), before any write."""
    with ctx.services.store.unit() as unit:
        unit.session.execute(text("SELECT * FROM no_such_table"))


def broken(ctx: Ctx) -> None:
    """A test's command: writes a warrior's BP, then fails on the bot's side."""
    ctx.services.store.change_sheet("Brenna", mod_bp(5, ctx.who, "a gift"))
    raise KeyError("a bug")


@pytest.fixture
def referee(database_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Referee]:
    referee = referee_on(database_url)
    commands = Registry()
    for spec in dict.fromkeys(referee.services.commands.values()):
        commands.add(spec)
    commands.add(Spec("rethink", "!rethink", "A test's command.", second_thoughts))
    commands.add(Spec("broken", "!broken", "A test's command.", broken))
    commands.add(Spec("badread", "!badread", "A test's command.", bad_read))
    commands.add(Spec("quicker", "!quicker", "A test's command.", quicker))
    monkeypatch.setattr(referee, "services", replace(referee.services, commands=commands))
    for said in (f"gob !create {GORBAG}", f"olaf !create {OLAF}", f"bren !create {BRENNA}"):
        assert "created" in " ".join(say(referee, said)), said
    try:
        yield referee
    finally:
        referee.store.engine.dispose()


def message(said: str) -> Incoming:
    """``"[#chan] <nick> <text>"`` as a chat line from the account ``nick``."""
    channel = "#arena"
    if said.startswith("#"):
        channel, said = said.split(" ", 1)
    nick, words = said.split(" ", 1)
    return line(words, channel, nick)


def batch(referee: Referee, *said: str) -> list[list[str]]:
    """The answers of ``said`` run together, as ``"<target> <text>"``."""
    msgs = [message(s) for s in said]
    jobs = iter([(partial(referee.handle, msg, True), msg) for msg in msgs])
    answers: list[list[Outgoing] | None] = []
    while len(answers) < len(msgs):   # as the lane: a batch that broke left the rest
        answers += together(referee, jobs)
    return [[f"{o.target} {o.text}" for o in out or []] for out in answers]


def test_two_commands_in_one_batch_commit_once(referee: Referee) -> None:
    counted = Transactions(referee.store.engine)
    answers = batch(referee, "olaf !challenge Gorbag duel",
                    "#pit ulf !create Ulf goblin club spear")
    assert answers[0] == [CHALLENGE]
    assert "created" in answers[1][0]
    assert (counted.begun, counted.committed) == (1, 1)
    assert [c.target for c in referee.store.challenges()] == ["Gorbag"]
    assert referee.store.warrior("Ulf").owner == "ulf"


def test_a_command_refused_in_a_batch_takes_back_only_itself(referee: Referee) -> None:
    counted = Transactions(referee.store.engine)
    answers = batch(referee, "olaf !challenge Gorbag duel", "#pit mod !rethink",
                    "#pit bren !broken", "#pit gob !accept",
                    "#pit ulf !create Ulf goblin club spear")
    assert answers == [
        [CHALLENGE],
        ["#pit mod: on second thoughts, no"],
        ["#pit bren: that went wrong on my side and changed nothing; a moderator can check "
         "the log"],
        ["#pit gob: there is no challenge to you here"],
        [answers[4][0]],
    ]
    assert "created" in answers[4][0]
    assert (counted.begun, counted.committed) == (1, 1)
    assert referee.settings.turn_seconds("#pit") == 600          # its memory dropped too
    assert referee.store.setting("timelimit:#pit", None) is None
    assert referee.store.warrior("Brenna").sheet.bp == 0
    assert referee.tables.table("#arena").challenge is not None
    assert referee.store.verify() == []


class Savepoints:
    """SAVEPOINT, RELEASE and ROLLBACK TO statements counted on an engine."""

    def __init__(self, engine: Any) -> None:
        self.said: list[str] = []
        event.listen(engine, "before_cursor_execute", self._seen)

    def _seen(self, _conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        words = statement.split()
        if words and words[0].upper() in ("SAVEPOINT", "RELEASE", "ROLLBACK"):
            self.said.append(" ".join(words[:2]).upper())


def test_a_taken_name_in_a_batch_takes_back_only_itself_at_one_savepoint_a_writer(
    referee: Referee,
) -> None:
    """A command's savepoint is bare, taken at its first write and never released: none
    for a command refused before it wrote, and a name refused by the database (a Core
    INSERT, which leaves the batch's transaction usable) is rolled back to it."""
    counted, savepoints = Transactions(referee.store.engine), Savepoints(referee.store.engine)
    answers = batch(referee, "olaf !challenge Gorbag duel", "#pit gob !accept",
                    "#pit bad !create GORBAG goblin club spear",
                    "#pit ulf !create Ulf goblin club spear")
    assert answers[:3] == [[CHALLENGE], ["#pit gob: there is no challenge to you here"],
                           ["#pit bad: the name GORBAG is taken"]]
    assert "created" in answers[3][0]
    assert (counted.begun, counted.committed) == (1, 1)
    assert savepoints.said == ["SAVEPOINT UNIT"] * 2 + ["ROLLBACK TO", "SAVEPOINT UNIT"]
    assert [w.owner for w in referee.store.warriors()] == ["bren", "gob", "olaf", "ulf"]
    assert referee.store.verify() == []


def test_a_batch_whose_command_cannot_be_taken_back_runs_each_alone(
    referee: Referee, monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unsettled(_unit: Unit) -> None:
        raise OperationalError("ROLLBACK TO SAVEPOINT", None,
                               sqlite3.OperationalError("disk I/O error"))

    monkeypatch.setattr(Unit, "_take_back", unsettled)
    counted = Transactions(referee.store.engine)
    answers = batch(referee, "olaf !challenge Gorbag duel", "#pit bren !broken",
                    "#pit ulf !create Ulf goblin club spear")
    assert answers[0] == [CHALLENGE]
    assert "created" in answers[2][0]
    assert counted.begun == 1 + 3 and counted.committed == 2   # !broken is kept by none
    assert referee.store.warrior("Brenna").sheet.bp == 0
    assert [c.target for c in referee.store.challenges()] == ["Gorbag"]
    assert referee.store.verify() == []


def test_a_read_refused_before_a_commands_first_write_loses_no_other_command(
    referee: Referee, database_url: str,
) -> None:
    """On PostgreSQL the refused read ends the batch's transaction, and the command has
    no savepoint yet to go back to: the batch is not committed (its COMMIT would keep
    nothing and say nothing) and each command runs again alone."""
    counted = Transactions(referee.store.engine)
    answers = batch(referee, "#pit ulf !create Ulf goblin club spear", "#pit mod !badread",
                    "#pit ann !create Ann goblin club spear")
    assert "created" in answers[0][0] and "created" in answers[2][0]
    assert answers[1] == ["#pit mod: that went wrong on my side and changed nothing; a "
                          "moderator can check the log"]
    assert counted.committed == (1 if database_url.startswith("sqlite") else 2)
    assert [w.owner for w in referee.store.warriors()] == ["ann", "bren", "gob", "olaf",
                                                           "ulf"]
    assert referee.store.verify() == []


def test_a_unit_going_on_after_the_database_ended_its_transaction_is_not_acknowledged(
    referee: Referee, database_url: str,
) -> None:
    store = referee.store
    with (pytest.raises(TransactionAborted) if database_url.startswith("postgresql")
          else nullcontext()), store.unit() as unit:
        store.create_warrior(ULF, "ulf")
        with suppress(DBAPIError):
            unit.session.execute(text("SELECT * FROM no_such_table"))
    assert ("Ulf" in names(store)) == database_url.startswith("sqlite")   # SQLite goes on


def test_a_reason_too_long_is_refused_alike_on_every_database(referee: Referee) -> None:
    """PostgreSQL would refuse the row and end the batch's transaction; SQLite keep it."""
    counted = Transactions(referee.store.engine)
    answers = batch(referee, "mod !mod bp Olaf +1 " + "x" * 401, "mod !mod bp Gorbag +1 gift")
    assert answers == [["#arena mod: a reason holds at most 400 characters: say it shorter"],
                       ["#arena mod: Gorbag: +1.0 BP recorded"]]
    assert (counted.begun, counted.committed) == (1, 1)
    assert [referee.store.warrior(name).sheet.bp for name in ("Olaf", "Gorbag")] == [0, 10]


def test_a_later_command_in_a_batch_sees_what_an_earlier_one_did(
    referee: Referee, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the initiative: Olaf's
    monkeypatch.setattr(referee, "services", replace(referee.services, dice=HeldDice(50, 20)))
    counted = Transactions(referee.store.engine)
    answers = batch(referee, "olaf !challenge Gorbag duel", "gob !accept", "olaf !first")
    assert answers == [
        [CHALLENGE],
        ["#arena Duel: Olaf (olaf) vs Gorbag (gob). Olaf: axe and shield (dodge 30, "
         "block 30, parry 25). Gorbag: spear (dodge 30, parry 25). Olaf rolls 50 for "
         "initiative. Gorbag rolls 20 for initiative. Olaf (olaf) chooses: !first | !second"],
        ["#arena Olaf acts first. Olaf (olaf) to act: !attack 25 | !press 50 | !test 40 | "
         "!close 30 | !flee | !yield"],
    ]
    assert (counted.begun, counted.committed) == (1, 1)
    fight = referee.tables.table("#arena").fight
    assert fight is not None and referee.store.fight(fight.id).seq == fight.seq == 3


def test_a_batch_reads_the_club_version_once_and_again_after_its_own_change(
    referee: Referee, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The batch holds the club's write lock: only its own commands move the version."""
    reads: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "club_version" in statement:
            reads.append(statement)

    event.listen(referee.store.engine, "before_cursor_execute", seen)
    state, whole = referee.store.club_state, []
    monkeypatch.setattr(referee.store, "club_state",
                        lambda *args: whole.append(args) or state(*args))
    version = referee.store.club_version()
    reads.clear()
    batch(referee, "olaf !challenge Gorbag duel", "#pit ulf !create Ulf goblin club spear",
          "olaf !withdraw")
    assert len(reads) == 1
    reads.clear()
    answers = batch(referee, "#pit mod !rethink", "olaf !challenge Gorbag duel",
                    "#pit mod !quicker", "olaf !withdraw")
    assert answers[0] == ["#pit mod: on second thoughts, no"]
    assert answers[2] == ["#pit the time limit is 3 minutes"]
    assert len(reads) == 3   # the first, after the change taken back, after the one kept
    assert whole == []       # what it kept agreed with the club's each time: no reread
    assert referee.store.club_version() == version + 1
    assert referee.settings.turn_seconds("#pit") == 180


def test_a_batch_whose_commit_fails_answers_each_command_alone(referee: Referee) -> None:
    before = rows(referee.store.engine)

    def locked(_connection: Any) -> None:
        event.remove(referee.store.engine, "commit", locked)
        raise OperationalError("COMMIT", None, sqlite3.OperationalError("database is locked"))

    event.listen(referee.store.engine, "commit", locked)
    counted = Transactions(referee.store.engine)
    answers = batch(referee, "olaf !challenge Gorbag duel", "#pit mod !rethink",
                    "#pit ulf !create Ulf goblin club spear")
    assert answers[0] == [CHALLENGE]
    assert answers[1] == ["#pit mod: on second thoughts, no"]
    assert "created" in answers[2][0]
    assert counted.begun == 1 + 3          # the batch, then each command alone
    after = rows(referee.store.engine)
    assert after["challenges"] != before["challenges"]
    assert [w.sheet.name for w in referee.store.warriors()] == ["Brenna", "Gorbag", "Olaf",
                                                                  "Ulf"]
    assert referee.store.verify() == []


def test_a_batch_kept_though_its_commit_failed_is_not_run_again(
    referee: Referee, database_url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The connection breaks after the server committed: run again, each BP change would
    count twice. PostgreSQL says the batch was kept, so it is answered as committed;
    SQLite cannot say, so each command gets the one line that says so, and neither
    runs again."""
    real = SessionTransaction.commit

    def lost(transaction: SessionTransaction) -> None:
        real(transaction)
        bind = transaction.session.get_bind()
        if transaction.nested or transaction.parent is not None or \
                bind.get_execution_options().get(READ_ONLY):
            return   # a savepoint's, or a read's
        monkeypatch.setattr(SessionTransaction, "commit", real)
        raise OperationalError("COMMIT", None, Exception("server closed the connection"))

    monkeypatch.setattr(SessionTransaction, "commit", lost)
    answers = batch(referee, "mod !mod bp Olaf +1 gift", "mod !mod bp Gorbag +1 gift")
    if database_url.startswith("postgresql"):
        assert [a[0] for a in answers] == ["#arena mod: Olaf: +1.0 BP recorded",
                                           "#arena mod: Gorbag: +1.0 BP recorded"]
    else:
        assert answers == [["#arena mod: the database failed as that was saved and I cannot "
                            "tell whether it was kept; a moderator can check the log before "
                            "it is repeated"]] * 2
    assert [referee.store.warrior(name).sheet.bp for name in ("Olaf", "Gorbag")] == [10, 10]
    assert referee.store.verify() == []


def test_a_batch_on_a_replaced_file_says_once_that_the_records_are_lost(
    referee: Referee, database_url: str, tmp_path: Path,
) -> None:
    if not database_url.startswith("sqlite"):
        pytest.skip("a file replaced under the bot is SQLite's")
    path = database_url.removeprefix("sqlite:///")
    os.replace(path, tmp_path / "moved.sqlite3")
    Path(path).write_bytes(b"")
    answers = batch(referee, "olaf !challenge Gorbag duel", "#pit bren !challenge Gorbag")
    assert answers[1] == []
    assert all("records are gone from disk" in said for said in answers[0])
    assert referee.lost is not None


def test_a_batch_that_cannot_begin_in_the_lane_answers_every_command(
    referee: Referee, database_url: str, tmp_path: Path,
) -> None:
    """The lane's batch starts with its first command: when the batch cannot even begin
    (the file replaced), that command is still answered, alone, and the rest after it."""
    if not database_url.startswith("sqlite"):
        pytest.skip("a file replaced under the bot is SQLite's")
    path = database_url.removeprefix("sqlite:///")
    os.replace(path, tmp_path / "moved.sqlite3")
    Path(path).write_bytes(b"")
    said: list[list[str]] = []

    async def work(lanes: Lanes) -> None:
        for words in ("olaf !challenge Gorbag duel", "#pit bren !challenge Gorbag"):
            lanes.line(referee, message(words), lambda call: call(),
                       lambda out: said.append([o.text for o in out]))
        await until(lambda: len(said) == 2)

    run_lanes(0.3, work)
    assert "records are gone from disk" in said[0][0]
    assert said[1] == []


# -- the store's batch ------------------------------------------------------------------


ULF = warrior("Ulf", "goblin", "club", "spear")
VIK = warrior("Vik", "goblin", "axe", "shield")


def names(store: Store) -> list[str]:
    return [w.sheet.name for w in store.warriors()]


def test_a_unit_that_fails_in_a_batch_takes_back_only_its_rows(referee: Referee) -> None:
    store, before = referee.store, len(referee.store.ledger())
    counted = Transactions(store.engine)
    with store.batch():
        with store.unit():
            with pytest.raises(DuplicateName):   # its first write, refused and caught
                store.create_warrior(warrior("olaf", "goblin", "club", "spear"), "gob")
            store.create_warrior(ULF, "ulf")
        with pytest.raises(Refusal), store.unit():
            with pytest.raises(DuplicateName):   # its savepoint is begun again
                store.create_warrior(warrior("ulf", "goblin", "club", "spear"), "gob")
            store.create_warrior(VIK, "vik")
            raise Refusal("no, after all")
        with store.unit():
            assert "Vik" not in names(store)
            store.change_sheet("Ulf", mod_bp(2, "mod", "a gift"))
    assert (counted.begun, counted.committed) == (1, 1)
    assert names(store) == ["Brenna", "Gorbag", "Olaf", "Ulf"]
    assert [row["entry"].value for row in store.ledger()[before:]] == ["created",
                                                                       "moderator-bp"]
    assert store.verify() == []


def test_a_whole_unit_in_a_batch_that_goes_on_after_a_failed_write_keeps_nothing(
    referee: Referee,
) -> None:
    """A chat command's unit in a batch: no savepoint of its own per write; one whose
    failed write is caught and which goes on is stopped at its end, and only it is
    taken back."""
    store, before = referee.store, len(referee.store.ledger())
    counted = Transactions(store.engine)
    with store.batch():
        with store.unit(whole=True):
            store.create_warrior(ULF, "ulf")
            store.change_sheet("Ulf", mod_bp(2, "mod", "a gift"))
        with pytest.raises(RuntimeError, match="went on"), store.unit(whole=True):
            store.create_warrior(VIK, "vik")
            with pytest.raises(DuplicateName):
                store.create_warrior(warrior("ulf", "goblin", "club", "spear"), "gob")
        with store.unit(whole=True):
            assert "Vik" not in names(store)
            store.change_sheet("Ulf", mod_bp(1, "mod", "another"))
    assert (counted.begun, counted.committed) == (1, 1)
    assert names(store) == ["Brenna", "Gorbag", "Olaf", "Ulf"]
    assert [row["entry"].value for row in store.ledger()[before:]] == [
        "created", "moderator-bp", "moderator-bp"]
    assert store.warrior("Ulf").sheet.bp == 3
    assert store.verify() == []


def test_a_batch_whose_savepoint_cannot_settle_keeps_nothing(
    referee: Referee, monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = referee.store
    begin_nested = Session.begin_nested

    def unsettled(session: Session) -> SessionTransaction:
        savepoint = begin_nested(session)

        def fail() -> None:
            raise OperationalError("ROLLBACK TO SAVEPOINT", None,
                                   sqlite3.OperationalError("disk I/O error"))

        monkeypatch.setattr(savepoint, "rollback", fail)
        return savepoint

    with pytest.raises(BatchBroken), store.batch() as opened:
        with store.unit():
            store.create_warrior(ULF, "ulf")
        monkeypatch.setattr(Session, "begin_nested", unsettled)
        with pytest.raises(OperationalError), store.unit():
            raise Refusal("no")
        monkeypatch.undo()
        assert opened.broken
    assert names(store) == ["Brenna", "Gorbag", "Olaf"]


# -- the lane: a window, and nothing said before the commit ----------------------------


def run_lanes(window: float, work: Any) -> None:
    """``work(lanes)`` as a coroutine on a new event loop, the lanes closed after."""

    async def main() -> None:
        lanes = Lanes(window)
        try:
            await work(lanes)
        finally:
            lanes.close()

    asyncio.run(main())


async def until(check: Any, seconds: float = 10) -> None:
    for _ in range(int(seconds / 0.01)):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("never")


def test_a_batch_says_nothing_before_its_commit(referee: Referee,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(referee, "services", replace(referee.services, dice=HeldDice(50, 20)))
    committing, go = threading.Event(), threading.Event()

    def held(_connection: Any) -> None:
        if not committing.is_set():
            committing.set()
            assert go.wait(20)

    said: list[str] = []

    def deliver(out: list[Outgoing]) -> None:
        said.extend(f"{o.target} {o.text}" for o in out)

    async def work(lanes: Lanes) -> None:
        counted = Transactions(referee.store.engine)
        event.listen(referee.store.engine, "commit", held)
        lanes.line(referee, message("olaf !challenge Gorbag duel"), lambda call: call(), deliver)
        lanes.line(referee, message("gob !accept"), lambda call: call(), deliver)
        assert await asyncio.to_thread(committing.wait, 10)
        await asyncio.sleep(0.2)
        assert said == []
        assert referee.tables.get("#arena") is None   # nothing published yet
        lanes.line(referee, message("bren !status"), lambda call: call(), deliver)
        await until(lambda: said)
        assert said == ["#arena bren: there is no fight in this channel; start one with "
                        "!challenge"]
        go.set()
        await until(lambda: len(said) == 3)
        assert said[1] == CHALLENGE and "first" in said[2]
        assert (counted.begun, counted.committed) == (1, 1)

    try:
        run_lanes(0.5, work)
    finally:
        go.set()
    assert referee.tables["#arena"].fight is not None


@pytest.mark.parametrize("window", [0.0, 0.3])
def test_the_window_groups_commands_and_zero_runs_each_alone(referee: Referee,
                                                            window: float) -> None:
    said: list[str] = []

    async def work(lanes: Lanes) -> None:
        counted = Transactions(referee.store.engine)
        for words in ("olaf !challenge Gorbag duel", "#pit ulf !create Ulf goblin club spear",
                      "#pit vik !create Vik goblin club spear"):
            lanes.line(referee, message(words), lambda call: call(),
                       lambda out: said.extend(o.text for o in out))
        await until(lambda: len(said) == 3)
        assert counted.committed == (1 if window else 3)

    run_lanes(window, work)
    assert said[0] == CHALLENGE.removeprefix("#arena ")


def test_other_work_keeps_its_place_in_the_lane(referee: Referee) -> None:
    """A command, the clock's tick, then two commands: the tick runs after the first
    command's batch and before the next, which share one."""
    lane = RecordsLane(window=0.3)
    ran: list[str] = []

    def command(name: str) -> Any:
        def work() -> list[Outgoing]:
            ran.append(name)
            return referee.handle(message(f"#pit {name.lower()} !create {name} goblin club "
                                          "spear"), True)
        return work

    def tick() -> list[Outgoing]:
        ran.append("tick")
        return []

    try:
        counted = Transactions(referee.store.engine)
        futures = [lane.submit(command("Ulf"), referee), lane.submit(tick),
                   lane.submit(command("Vik"), referee), lane.submit(command("Wat"), referee)]
        for future in futures:
            future.result(10)
    finally:
        lane.close()
    assert ran == ["Ulf", "tick", "Vik", "Wat"]
    assert counted.committed == 2
