"""Per-player pacing: a burst, then one command every 2 s; a player over it hears one
slow-down line a minute at most, and the rest stays silent. The askers of answers the
send queue dropped wait, per target, to be named in one busy line (issue 32)."""

from __future__ import annotations

from bot.clock import FakeClock
from bot.irc.pacing import NOTICE_EVERY, Busy, Pace
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


def test_askers_of_answers_dropped_are_named_once_a_minute_per_target() -> None:
    clock = FakeClock()
    busy = Busy(most=2, clock=clock.now)
    assert busy.dropped("#arena", "~c@h", "carol")
    assert busy.dropped("#arena", "~d@h", "dorothea")
    assert busy.dropped("#arena", "~c@h", "carol")  # twice: named once
    assert busy.words("#arena", 400, fights=True) == (
        "busy with fights: carol, dorothea: ask again in a minute", ["~c@h", "~d@h"])
    assert busy.words("#arena", 43, fights=False) == (  # as many as fit, then how many more
        "busy: carol, 1 more: ask again in a minute", ["~c@h", "~d@h"])
    busy.told("#arena", ["~c@h", "~d@h"])
    assert not busy.dropped("#arena", "~c@h", "carol")  # told: not again within a minute
    clock.advance(NOTICE_EVERY)
    assert busy.dropped("#side", "~c@h", "carol")
    # at most ``most`` nicks wait for a private line; channels are not bounded so
    assert busy.dropped("fl1", "~fl1@x", "fl1") and busy.dropped("fl2", "~fl2@x", "fl2")
    assert not busy.dropped("fl3", "~fl3@x", "fl3")
    assert busy.dropped("fl1", "~fl1@x", "fl1") and busy.dropped("#c", "~fl3@x", "fl3")
