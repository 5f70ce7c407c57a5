"""What people say on IRC that goes on: a command within its player's pace, a CTCP
VERSION answered by one NOTICE; chatter, an ignored player and a flood go nowhere."""

from __future__ import annotations

from bot.clock import FakeClock
from bot.irc.admission import Admission
from bot.irc.events import CtcpRequest
from bot.irc.outbox import Outbox
from bot.irc.pacing import Pace
from bot.messages import Incoming, Sender

OLAF = Sender(nick="olaf", account="olaf", host="~o@h")
EVE = Sender(nick="eve", host="~e@spam")


def admission() -> tuple[Admission, Outbox]:
    clock = FakeClock()
    outbox = Outbox(clock=clock.now)
    return Admission(outbox, Pace(2, 0.5, clock=clock.now), lambda s: s is EVE, 30), outbox


def said(outbox: Outbox) -> list[str]:
    lines = []
    while (line := outbox.next_line()[0]) is not None:
        lines.append(line.format())
        outbox.sent()
    return lines


def test_commands_go_on_within_the_pace_and_chatter_never() -> None:
    gate, outbox = admission()
    assert not gate.command(Incoming(sender=OLAF, text="hello all", channel="#a"), "!")
    assert gate.command(Incoming(sender=OLAF, text="!roll 1d6", channel="#a"), "!")
    assert gate.command(Incoming(sender=OLAF, text="/rol d100", channel="#a"), "!")
    assert not gate.command(Incoming(sender=OLAF, text="!roll 1d6", channel="#a"), "!")
    assert said(outbox) == ["NOTICE olaf :slow down: one command every 2 s"]


def test_an_ignored_player_goes_on_unpaced_by_a_slow_down_line_and_hears_no_ctcp() -> None:
    gate, outbox = admission()
    assert gate.command(Incoming(sender=EVE, text="!top", channel="#a"), "!")  # re-read
    gate.ctcp(CtcpRequest(EVE, "VERSION", "\x01VERSION v1\x01"))
    gate.ctcp(CtcpRequest(OLAF, "VERSION", "\x01VERSION v1\x01"))
    gate.ctcp(CtcpRequest(OLAF, "PING", None))
    assert said(outbox) == ["NOTICE olaf :\x01VERSION v1\x01"]
