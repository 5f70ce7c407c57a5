"""The decision time limit as a value (R7.4): it starts again only when the fight moves
on, warns once at half time, says once when the time is up, and ``!claim`` reads it."""

from __future__ import annotations

from dataclasses import dataclass

from bot.turn_timer import Alarm, TurnTimer


@dataclass(frozen=True)
class Awaits:
    side: int
    is_roll: bool = False
    die: int = 100


@dataclass(frozen=True)
class State:
    progress: int
    awaiting: Awaits | None
    outcome: None = None


OLAF_TO_ACT = State(3, Awaits(0))


def test_a_limit_runs_from_its_start() -> None:
    timer = TurnTimer.start(OLAF_TO_ACT, now=100.0, seconds=600.0)
    assert timer.deadline == 700.0
    assert not timer.due(699.9) and timer.due(700.0)
    assert timer.remaining(400.0) == 300.0 and timer.remaining(800.0) == 0.0


def test_a_bonus_declaration_does_not_stop_the_clock() -> None:
    timer = TurnTimer.start(OLAF_TO_ACT, now=0.0, seconds=600.0)
    assert timer.restart_if_moved(State(3, Awaits(0)), now=200.0, seconds=600.0) is timer


def test_the_limit_starts_again_when_the_turn_or_the_awaited_side_changes() -> None:
    timer = TurnTimer.start(OLAF_TO_ACT, now=0.0, seconds=600.0)
    for moved in (State(4, Awaits(0)), State(3, Awaits(1)), State(3, Awaits(0, is_roll=True))):
        again = timer.restart_if_moved(moved, now=200.0, seconds=240.0)
        assert (again.started, again.seconds, again.deadline) == (200.0, 240.0, 440.0)
        assert (again.progress, again.awaiting) == (moved.progress, moved.awaiting)


def test_half_time_warns_once_then_time_up_is_said_once() -> None:
    timer = TurnTimer.start(OLAF_TO_ACT, now=0.0, seconds=240.0)
    timer, alarm = timer.alarm(119.0)
    assert alarm is None
    timer, alarm = timer.alarm(120.0)
    assert alarm is Alarm.HALF and timer.remaining(120.0) == 120.0
    timer, alarm = timer.alarm(150.0)
    assert alarm is None
    timer, alarm = timer.alarm(240.0)
    assert alarm is Alarm.UP and timer.due(240.0)
    assert timer.alarm(500.0) == (timer, None)


def test_a_lapsed_limit_unwarned_is_said_up_only() -> None:
    timer, alarm = TurnTimer.start(OLAF_TO_ACT, now=0.0, seconds=60.0).alarm(61.0)
    assert alarm is Alarm.UP and timer.warned and timer.expired
    assert timer.alarm(62.0)[1] is None


def test_a_restart_forgets_the_alarms() -> None:
    timer, _ = TurnTimer.start(OLAF_TO_ACT, now=0.0, seconds=60.0).alarm(61.0)
    again = timer.restart_if_moved(State(4, Awaits(1)), now=70.0, seconds=60.0)
    assert not again.warned and not again.expired
