"""A fight move through the referee looks its channel's fight up once (issue 33): one
``!attack`` reads the channel's table once, the open fight once and the channel's rules
(how its dice are rolled, its time to decide) once, whatever it plays and says."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from club import Club

from bot.channel_fights import ChannelFight, ChannelFights
from bot.club_settings import ClubSettings

GORBAG_TURN = "Gorbag (gob) to act: !attack 35 | !press 60 | !test 40 | !close 30 | !flee | !yield"


def _counted(monkeypatch: pytest.MonkeyPatch, reads: Counter[str], cls: type,
             *names: str) -> None:
    """Every call of ``cls``'s methods ``names`` counted in ``reads``, by name."""
    for name in names:
        method: Callable[..., Any] = getattr(cls, name)

        def counting(*args: Any, _method: Callable[..., Any] = method, _name: str = name,
                     **kwargs: Any) -> Any:
            reads[_name] += 1
            return _method(*args, **kwargs)
        monkeypatch.setattr(cls, name, counting)


def test_an_attack_reads_the_table_the_fight_and_the_channel_rules_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("olaf !challenge Gorbag")
    club.dice.push(50, 40)   # initiative: Olaf 50 beats Gorbag 40
    club.say("gob !accept")
    club.say("olaf !first")
    reads: Counter[str] = Counter()
    _counted(monkeypatch, reads, ChannelFights, "table", "get")
    _counted(monkeypatch, reads, ChannelFight, "fighting")
    _counted(monkeypatch, reads, ClubSettings, "rules_of", "rolls_mode", "turn_seconds",
             "channel_setting")
    club.dice.push(70)   # Olaf's attack 70 vs 25: a miss, rolled by the bot at once
    assert club.say("olaf !attack") == [
        f"#arena Olaf attacks [70 vs 25: miss]. {GORBAG_TURN}"]
    assert reads == {"table": 1, "fighting": 1, "rules_of": 1}
    assert club.dice.left == 0
