"""``!odds`` through the referee, as chat transcripts: the answer comes later, one
request at a time per channel, one per player every 30 s (the fake clock), and an
answer about a fight that moved on or ended; and the console's wait at end of input.

Most tests hold each simulation until ``held.finish()``, as if it were still running in
the worker; ``club.wait(0)`` then returns the answers that came meanwhile.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from club import Club

from bot import console
from bot.console import serve
from bot.odds import advisor, pending
from bot.odds.worker import InlineExecutor
from rules.ancath.state import Range

MATCHUP = re.compile(r"ann: Olaf vs Gorbag \(practice\): Olaf wins \d+\.\d% "
                     r"\(exact; policy: !help odds policy\)")
BUSY = "the odds asked for here are still being worked out; ask again once they are out"


def is_matchup(line: str, target: str = "#arena") -> bool:
    """``line`` is ann's answer for Olaf against Gorbag, sent to ``target``."""
    return line.startswith(f"{target} ") and bool(
        MATCHUP.fullmatch(line.removeprefix(f"{target} ")))


class Held(Executor):
    """Keeps every job until ``finish``: simulations still running."""

    def __init__(self) -> None:
        self.jobs: list[tuple[Future[Any], Callable[[], Any]]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self.jobs.append((future, partial(fn, *args, **kwargs)))
        return future

    def finish(self) -> None:
        jobs, self.jobs = self.jobs, []
        for future, job in jobs:
            future.set_result(job())


@pytest.fixture
def club(tmp_path: Path) -> Iterator[Club]:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    yield club


def held(club: Club) -> Held:
    executor = Held()
    pending.attach(club.referee, executor)
    return executor


def test_the_answer_comes_later_and_alone(club: Club) -> None:
    jobs = held(club)
    assert club.say("ann !odds Olaf vs Gorbag") == []  # accepted: nothing said yet
    assert len(jobs.jobs) == 1  # a matchup from the start stays at the standard range
    jobs.finish()
    (answer,) = club.wait(0)
    assert is_matchup(answer)


def test_each_range_is_worked_out_on_its_own_worker_and_the_answer_waits_for_both(
        club: Club) -> None:
    fight(club)
    workers = [Held(), Held()]
    pending.attach(club.referee, workers)
    assert club.say("ann !odds") == []
    assert [len(worker.jobs) for worker in workers] == [1, 1]
    workers[1].finish()
    assert club.wait(0) == []  # one range is not enough
    workers[0].finish()
    (answer,) = club.wait(0)
    assert answer.startswith("#arena ann: Olaf's chances (exact): !attack")
    assert "!close" in answer  # weighed from both ranges' parts


def test_the_inline_executor_answers_at_once(club: Club) -> None:
    (answer,) = club.say("ann !odds Olaf vs Gorbag")
    assert is_matchup(answer)


def test_one_request_at_a_time_per_channel(club: Club) -> None:
    jobs = held(club)
    assert club.say("ann !odds Olaf vs Gorbag") == []
    assert club.say("bob !odds Olaf vs Gorbag duel") == [f"#arena bob: {BUSY}"]
    assert club.say("#side cara !odds Olaf vs Gorbag") == []  # another channel is free
    assert club.say("#ARENA dan !odds Olaf vs Gorbag") == [f"#ARENA dan: {BUSY}"]
    jobs.finish()
    answers = club.wait(0)
    assert len(answers) == 2 and answers[1].startswith("#side cara: Olaf vs Gorbag")
    assert club.say("bob !odds Olaf vs Gorbag duel") == []  # refused ones did not count
    jobs.finish()
    assert club.wait(0)[0].startswith("#arena bob: Olaf vs Gorbag (duel): Olaf wins")


def test_one_request_per_player_every_30_seconds(club: Club) -> None:
    (answer,) = club.say("ann !odds Olaf vs Gorbag")
    assert is_matchup(answer)
    club.clock.advance(10)
    assert club.say("ann !odds Gorbag vs Olaf") == [
        "#arena ann: one !odds per player every 30 s; ask again in 20 s"]
    assert club.say("#side ann !odds Gorbag vs Olaf") == [
        "#side ann: one !odds per player every 30 s; ask again in 20 s"]
    assert club.pm("ann !odds Gorbag vs Olaf") == [
        "ann one !odds per player every 30 s; ask again in 20 s"]
    club.clock.advance(19.5)
    assert club.say("ann !odds Gorbag vs Olaf")[0].endswith("ask again in 1 s")
    club.clock.advance(0.5)
    (answer,) = club.say("ann !odds Gorbag vs Olaf")
    assert answer.startswith("#arena ann: Gorbag vs Olaf (practice): Gorbag wins")


def test_a_private_request_counts_against_the_player(club: Club) -> None:
    (answer,) = club.pm("ann !odds Olaf vs Gorbag")
    assert answer.startswith("ann Olaf vs Gorbag (practice): Olaf wins")
    assert club.say("ann !odds Olaf vs Gorbag")[0].endswith("ask again in 30 s")


def test_a_refused_request_does_not_count(club: Club) -> None:
    assert club.say("ann !odds Olaf") == [
        "#arena ann: usage: !odds <warrior> vs <warrior> [practice|duel|mortal]"]
    assert club.say("ann !odds") == [
        "#arena ann: there is no fight in this channel; start one with !challenge"]
    assert club.say("ann !odds Olaf vs Olaf") == ["#arena ann: a warrior cannot fight themself"]
    assert is_matchup(club.say("ann !odds Olaf vs Gorbag")[0])


def fight(club: Club, kind: str = "practice") -> None:
    """Olaf against Gorbag in #arena, Olaf to act on turn 1."""
    club.say(f"olaf !challenge Gorbag {kind}")
    club.dice.push(50, 40)  # initiative: Olaf 50, Gorbag 40
    club.say("gob !accept")
    assert club.say("olaf !first")[-1].startswith("#arena Olaf acts first. Olaf (olaf) to act:")


def test_in_a_fight_the_answer_weighs_each_move(club: Club) -> None:
    fight(club)
    (answer,) = club.say("ann !odds")
    assert re.fullmatch(r"#arena ann: Olaf's chances \(exact\): !attack \d+\.\d%, .*"
                        r"!yield \d+\.\d%", answer)


def test_an_answer_for_a_fight_that_moved_on_names_its_turn(club: Club) -> None:
    fight(club)
    jobs = held(club)
    assert club.say("ann !odds") == []
    club.dice.push(70)  # Olaf's attack 70 vs 25: a miss; Gorbag to act, turn 2
    assert " Gorbag (gob) to act:" in club.say("olaf !attack")[-1]
    jobs.finish()
    (answer,) = club.wait(0)
    assert answer.startswith("#arena ann: Olaf's chances (exact): !attack")
    assert answer.endswith(" (for turn 1)")


def test_an_answer_for_a_fight_that_ended_is_dropped(club: Club) -> None:
    fight(club)
    jobs = held(club)
    assert club.say("ann !odds") == []
    assert club.say("mod !mod end draw both left")[-1].startswith("#arena")
    assert club.referee.tables.table("#arena").fight is None
    jobs.finish()
    assert club.wait(0) == []
    assert club.say("bob !odds Olaf vs Gorbag") == []  # the channel is free again


def test_a_failed_simulation_says_so_once_and_frees_the_channel(
        club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("a bug in the simulator")

    with monkeypatch.context() as patch:
        patch.setattr(advisor, "chance_part", broken)
        assert club.say("ann !odds Olaf vs Gorbag") == [
            "#arena ann: the odds went wrong on my side; a moderator can check the log"]
    assert club.say("bob !odds Olaf vs Gorbag")[0].startswith("#arena bob: Olaf vs Gorbag")


def test_closing_drops_answers_not_yet_out(club: Club) -> None:
    jobs = held(club)
    assert club.say("ann !odds Olaf vs Gorbag") == []
    pending.close(club.referee)
    jobs.finish()
    assert club.wait(0) == []
    assert pending.wait(club.referee, 0)  # nothing out any more


# -- the console: at end of input it waits for the answers still due ---------------------


def test_the_console_waits_for_an_answer_from_another_thread(club: Club) -> None:
    with ThreadPoolExecutor(1) as executor:
        pending.attach(club.referee, executor)
        written: list[str] = []
        serve(club.referee, ["ann !odds Olaf vs Gorbag"], written.append)
    (answer,) = written
    assert is_matchup(answer, "#console")


def test_the_console_stops_waiting_after_its_timeout(
        club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    jobs = held(club)
    monkeypatch.setattr(console, "ANSWERS_WAIT", 0.01)
    written: list[str] = []
    serve(club.referee, ["ann !odds Olaf vs Gorbag"], written.append)
    assert written == [] and len(jobs.jobs) == 1  # never finished: nothing to write


def test_a_fight_is_worked_out_ahead_when_it_begins(club: Club) -> None:
    """On IRC the odds workers work a new fight's chances out from its start, in pieces behind
    the requests (here, inline: before ``!accept`` returns)."""
    pending.attach(club.referee, InlineExecutor(), work_ahead=True)
    advisor.forget()
    fight(club, "duel")
    table = club.referee.tables.table("#arena").fight
    assert table is not None
    assert advisor.chain(table.state).values  # grown and solved before anyone asked
    assert all(advisor.prepare(table.state, 0.0, where)  # at both ranges: no time needed
               for where in Range)
    (answer,) = club.say("ann !odds")
    assert answer.startswith("#arena ann: Olaf's chances (exact): !attack")


def test_a_fight_resumed_after_a_restart_is_worked_out_ahead_again(tmp_path: Path) -> None:
    """The worker lost its chains with the bot: a resumed fight is worked out ahead from
    where it stands (here, inline: before the restart returns)."""
    club = Club(tmp_path, odds_ahead=True)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    fight(club, "duel")
    advisor.forget()
    assert club.restart() == []
    table = club.referee.tables.table("#arena").fight
    assert table is not None
    assert advisor.chain(table.state).values  # grown and solved before anyone asked


def test_work_ahead_stops_when_its_fight_ends(club: Club) -> None:
    jobs = Held()
    pending.attach(club.referee, jobs, work_ahead=True)
    advisor.forget()
    fight(club)
    assert len(jobs.jobs) == 2  # the first piece at each range
    assert club.say("mod !mod end draw both left")[-1].startswith("#arena")
    jobs.finish()
    assert jobs.jobs == []  # not run again for a fight that is over


def test_at_most_three_fights_are_worked_out_ahead(club: Club) -> None:
    jobs = Held()
    pending.attach(club.referee, jobs, work_ahead=True)
    for _ in range(4):  # four fights begin
        pending.ahead(club.referee, [pending.Job(lambda: False)], lambda: True)
    assert len(jobs.jobs) == pending.AHEAD_FIGHTS == 3


def test_four_odds_out_at_once_over_all_channels_are_the_most(club: Club) -> None:
    held(club)
    for who in ("ann", "bob", "cara", "dan"):
        assert club.pm(f"{who} !odds Olaf vs Gorbag") == []
    assert club.pm("eve !odds Olaf vs Gorbag") == [
        "eve 4 !odds are being worked out already; ask again in a minute"]
