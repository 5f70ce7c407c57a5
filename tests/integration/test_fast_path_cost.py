"""What a line answered on the event loop costs the referee (issue 34): the command read
once for :meth:`Referee.storage_free` and the answer, a dice expression read once
however often it is rolled; the answers as ever (tests/integration/test_fast_path.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from club import Club, lines

import bot.dice
import bot.referee
from bot.messages import Incoming, Sender


def counted(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[str]:
    """Each call of ``module.name`` from now on, by its first argument."""
    calls: list[str] = []
    original: Callable[..., object] = getattr(module, name)

    def count(*args: object) -> object:
        calls.append(str(args[0]))
        return original(*args)

    monkeypatch.setattr(module, name, count)
    return calls


def test_a_roll_on_the_loop_reads_its_command_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    club = Club(tmp_path)
    club.dice.push(3, 5)
    referee = club.referee
    ann = Incoming(sender=Sender(nick="ann", account="ann"), text="!roll 1d6",
                   channel="#arena")
    assert lines(referee.handle(ann)) == ["#arena ann rolls 1d6 = [3] = 3"]
    read = counted(monkeypatch, bot.referee, "split_command")
    assert referee.storage_free(ann)
    assert lines(referee.handle(ann, False, True)) == ["#arena ann rolls 1d6 = [5] = 5"]
    assert read == ["!roll 1d6"]


def test_a_dice_expression_is_read_once_however_often_it_is_rolled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    club = Club(tmp_path)
    terms = counted(monkeypatch, bot.dice, "_term")
    club.dice.push(2, 6, 4, 1, 1, 1)
    assert club.say("ann !roll 3d7-2") == ["#arena ann rolls 3d7-2 = [2, 6, 4] - 2 = 10"]
    assert club.say("bob !roll 3d7-2") == ["#arena bob rolls 3d7-2 = [1, 1, 1] - 2 = 1"]
    assert len(terms) == 2   # 3d7 and -2, once
    refused = "#arena ann: cannot read '-' at column 4: expected a die like 2d6, d% or a number"
    assert club.say("ann !roll 3d7-") == [refused]
    assert club.say("ann !roll 3d7-") == [refused]   # a refusal is not kept: said again
