"""Per-player pacing: a burst, then one command every 2 s; a player over it hears one
slow-down line a minute at most, and the rest stays silent."""

from __future__ import annotations

from bot.clock import FakeClock
from bot.irc.pacing import NOTICE_EVERY, Pace
from bot.irc.supervisor import USER_BURST, USER_RATE


def test_one_slow_down_line_a_minute_per_player() -> None:
    clock = FakeClock()
    pace = Pace(USER_BURST, USER_RATE, clock=clock.now)
    assert pace.notice == "slow down: one command every 2 s"
    assert all(pace.allowed("spam") for _ in range(USER_BURST))
    assert not pace.allowed("spam")
    assert pace.tell("spam")            # the first one dropped: one line
    assert not pace.tell("spam")        # the next ones: silence
    assert pace.tell("other")           # per identity
    assert pace.allowed("ann")          # another player's budget is untouched
    clock.advance(2)
    assert pace.allowed("spam") and not pace.allowed("spam")
    clock.advance(NOTICE_EVERY - 2 - 0.1)
    assert not pace.tell("spam")
    clock.advance(0.1)
    assert pace.tell("spam")            # a minute on: one line again
