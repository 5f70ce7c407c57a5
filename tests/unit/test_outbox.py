"""The send queue without a server: its budgets on a fake clock, its order, its cap."""

from __future__ import annotations

import logging

import pytest

from bot.clock import FakeClock
from bot.config import FloodConfig
from bot.irc.budget import Budget, TokenBucket
from bot.irc.line import Line
from bot.irc.outbox import CONTROL, Outbox
from bot.messages import Priority


def drain(outbox: Outbox) -> list[str]:
    """Every line the budget lets out now, in the order they would go."""
    out = []
    while (line := outbox.next_line()[0]) is not None:
        outbox.sent()
        out.append(line.format())
    return out


def test_a_bucket_refills_at_its_rate_up_to_its_burst() -> None:
    clock = FakeClock()
    bucket = TokenBucket(4, 2.0, clock.now)
    assert [bucket.take() for _ in range(5)] == [True] * 4 + [False]
    assert bucket.wait_time() == pytest.approx(0.5)
    assert bucket.wait_time(3) == pytest.approx(1.5)
    clock.advance(0.5)
    assert bucket.take() and not bucket.take()
    clock.advance(60)
    assert bucket.wait_time(4) == 0 and bucket.tokens == 4  # never more than the burst
    bucket.spend(6)  # more than it holds: a debt that the rate pays off
    assert bucket.wait_time() == pytest.approx(1.5)
    bucket.fill()
    assert bucket.take(4)


def test_a_line_costs_its_commands_weight_and_its_bytes() -> None:
    budget = Budget(FloodConfig(burst=4), FakeClock().now)
    assert budget.cost("PRIVMSG #a :hi") == (1, 16)
    assert budget.cost("JOIN #arena") == (2, 13)
    assert budget.cost("NICK AnCath") == (4, 13)
    assert budget.cost("PART #arena") == (4, 13)  # 5, capped to the burst: it can go
    assert budget.cost("WHO #arena %tnuhact,42")[0] == 1
    assert budget.cost("PRIVMSG #a :é")[1] == len("PRIVMSG #a :é".encode()) + 2


def test_a_400_byte_line_spends_more_than_a_40_byte_one() -> None:
    """Ten at once pass the line budget; in bytes, ten 40-byte lines fit and ten
    400-byte lines (4 KB, InspIRCd's whole receive queue) do not."""
    clock = FakeClock()
    flood = FloodConfig(burst=10, per_second=1.0)  # 2048 bytes at once, 512 a second
    short, long = Outbox(flood, clock.now), Outbox(flood, clock.now)
    long.prefix = "Ref!~ancath@127.0.0.1"  # text up to 475 bytes in one line
    for i in range(10):
        short.message("#a", f"{i} " + "s" * 30)  # 40-byte lines with the command
        long.message("#a", f"{i} " + "x" * 386)  # 400-byte lines
    assert len(drain(short)) == 10
    assert len(drain(long)) == 5  # 5 x 402 bytes = 2010
    line, wait = long.next_line()
    assert line is None and wait == pytest.approx((402 - 38) / 512)
    clock.advance(wait)
    assert len(drain(long)) == 1


def test_protocol_lines_are_paced_like_messages() -> None:
    clock = FakeClock()
    outbox = Outbox(FloodConfig(burst=4, per_second=1.0), clock.now)
    for channel in ("#a", "#b", "#c"):
        outbox.raw(f"JOIN {channel}")
    assert drain(outbox) == ["JOIN #a", "JOIN #b"]  # 2 units each
    line, wait = outbox.next_line()
    assert line is None and wait == pytest.approx(2.0)
    clock.advance(2.0)
    assert drain(outbox) == ["JOIN #c"]
    outbox.raw("PING :1\r\nQUIT :injected")  # cleaned like every parameter
    clock.advance(1.0)
    assert drain(outbox) == ["PING :1  QUIT :injected"]


def test_the_queue_holds_lines_that_only_the_sender_writes_as_text() -> None:
    """The session's JOIN and a fight's line wait as ``Line`` values; the sender gets
    them as values and writes them (``Line.format``), the same bytes as ever."""
    outbox, wire = Outbox(FloodConfig(burst=4)), []
    outbox.raw(Line("JOIN", ["#arena"]))
    outbox.message("#arena", "Olaf (olaf) to act: !attack | !yield", Priority.FIGHT)
    while (line := outbox.next_line()[0]) is not None:
        assert isinstance(line, Line)
        wire.append(line.format())
        outbox.sent()
    assert wire == ["JOIN #arena", "PRIVMSG #arena :Olaf (olaf) to act: !attack | !yield"]


def test_protocol_lines_then_fight_output_then_chatter_each_oldest_first() -> None:
    clock = FakeClock()
    outbox = Outbox(FloodConfig(burst=50, per_second=20.0), clock.now)
    outbox.message("#a", "chatter 1")
    outbox.message("#a", "fight 1", Priority.FIGHT)
    outbox.raw("WHO #a", Priority.FIGHT)
    outbox.raw("JOIN #b")
    outbox.message("#a", "chatter 2")
    outbox.message("#a", "fight 2", Priority.FIGHT)
    outbox.raw("PING :1", CONTROL)
    assert drain(outbox) == ["JOIN #b", "PING :1", "PRIVMSG #a :fight 1", "WHO #a",
                             "PRIVMSG #a :fight 2", "PRIVMSG #a :chatter 1",
                             "PRIVMSG #a :chatter 2"]


def test_past_the_backlog_the_newest_chatter_goes_first(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    outbox = Outbox(FloodConfig(max_backlog=10), clock.now)
    outbox.raw("JOIN #a")  # a protocol line: not counted in the backlog
    outbox.message("#a", "fight", Priority.FIGHT)
    for i in range(10):
        outbox.message("#a", f"chatter {i}")
    assert len(outbox) == 11
    dropped = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert dropped == ["send backlog full, dropped: PRIVMSG #a :chatter 9"]
    clock.advance(3600)
    assert drain(outbox)[:3] == ["JOIN #a", "PRIVMSG #a :fight", "PRIVMSG #a :chatter 0"]


def test_a_join_or_who_in_turn_with_fights_is_never_dropped_by_the_backlog(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Review of issue 32: JOIN and WHO queue at fight priority (so a channel's resume
    line follows its own JOIN); past the backlog the newest of those went, the JOIN, and
    its answer's timer never started: no channel was joined after it. Now they keep
    their place and are never dropped, nor counted."""
    clock = FakeClock()
    outbox = Outbox(FloodConfig(burst=1, max_backlog=10), clock.now)
    for i in range(10):
        outbox.message("#a", f"fight {i}", Priority.FIGHT)
    outbox.raw("JOIN #b", Priority.FIGHT)
    outbox.raw("WHO #b %tnuhact,42", Priority.FIGHT)
    outbox.message("#b", "Fight resumed: Olaf (olaf) to act", Priority.FIGHT)
    assert len(outbox) == 12  # the newest message went, not the JOIN or the WHO
    assert [r.getMessage() for r in caplog.records] == [
        "send backlog full, dropped: PRIVMSG #b :Fight resumed: Olaf (olaf) to act"]
    sent = []
    for _ in range(20):
        sent += drain(outbox)
        clock.advance(2.0)
    assert sent == [f"PRIVMSG #a :fight {i}" for i in range(10)] + [
        "JOIN #b", "WHO #b %tnuhact,42"]


def test_a_new_session_keeps_the_messages_and_drops_its_protocol_lines() -> None:
    clock = FakeClock()
    outbox = Outbox(FloodConfig(burst=3), clock.now)
    outbox.message("#a", "x" * 300)
    outbox.message("#a", "said before the link dropped", Priority.FIGHT)
    outbox.raw("JOIN #a")
    outbox.raw("WHO #a", Priority.FIGHT)
    assert drain(outbox) == ["JOIN #a", "PRIVMSG #a :said before the link dropped"]
    outbox.new_session()  # full budgets again: the server counts from nothing
    assert drain(outbox) == ["PRIVMSG #a :" + "x" * 300]


def test_a_bucket_takes_nothing_it_cannot_pay_for() -> None:
    clock = FakeClock()
    bucket = TokenBucket(2, 1.0, clock.now)
    assert not bucket.take(3) and bucket.tokens == 2  # refused: nothing spent
    assert bucket.take(2) and bucket.wait_time(2) == pytest.approx(2.0)
    clock.advance(1.0)
    assert not bucket.take(2) and bucket.take(1)


def test_the_byte_budget_holds_a_line_the_line_budget_would_pass() -> None:
    clock = FakeClock()
    budget = Budget(FloodConfig(burst=50, per_second=20.0, burst_bytes=512,
                                bytes_per_second=512.0), clock.now)
    line = "PRIVMSG #a :" + "x" * 300  # 314 bytes with CR LF
    assert budget.take(line) and not budget.take(line)
    assert budget.wait_time(line) == pytest.approx((314 - (512 - 314)) / 512)
    clock.advance(budget.wait_time(line))
    assert budget.take(line)


def test_text_is_split_within_what_the_bots_own_prefix_leaves() -> None:
    clock = FakeClock()
    outbox = Outbox(FloodConfig(burst=50, per_second=20.0, burst_bytes=65536), clock.now)
    outbox.prefix = "Ref!~ancath@127.0.0.1"
    assert outbox.message("#a", "y" * 600) == 2
    lines = drain(outbox)
    overhead = len(":Ref!~ancath@127.0.0.1 PRIVMSG #a :")
    assert [len(x) - len("PRIVMSG #a :") for x in lines] == [510 - overhead, 600 - 475]


def test_an_invalid_target_is_never_queued(caplog: pytest.LogCaptureFixture) -> None:
    outbox = Outbox(FloodConfig(), FakeClock().now)
    assert outbox.message("#a\rJOIN #evil", "hi") == 0
    assert outbox.message("no spaces", "hi") == 0
    assert len(outbox) == 0
    assert "not sending to invalid target" in caplog.text
    assert outbox.message("Ref_", "hi", command="NOTICE") == 1
    assert drain(outbox) == ["NOTICE Ref_ :hi"]


# -- issue 31, item 13: what the bot owes a host, and replies too late to send ------------

FLOODER = ("127.0.0.1", "~fl0@127.0.0.1")
NEAR = ("127.0.0.1", "~near@127.0.0.1")
FAR = ("127.0.0.2", "~far@127.0.0.2")


def test_a_reply_that_cannot_go_out_in_time_is_dropped_not_queued() -> None:
    clock = FakeClock()
    outbox = Outbox(FloodConfig(burst=1, per_second=1.0), clock.now)
    for i in range(6):
        outbox.message("#a", f"fight {i}", Priority.FIGHT)  # one a second
    # chatter's share (issue 32): a reply goes after three fight lines at most: in 3 s
    assert outbox.message("#a", "late", owed=NEAR, within=2.0) == 0
    assert outbox.message("#a", "in time", owed=NEAR, within=3.0) == 1
    # the next one waits for that one and its share of fight lines, then three more: 7 s
    assert outbox.message("#a", "next, late", owed=NEAR, within=6.0) == 0
    assert outbox.message("#a", "next", owed=NEAR, within=7.0) == 1
    assert outbox.dropped == 2 and len(outbox) == 8
    # a fight's line and a line kept whole for its anchor are never too late
    assert outbox.message("#a", "fight", Priority.FIGHT, owed=NEAR, within=0.1) == 1
    assert outbox.message("#a", "anchor", owed=NEAR, within=0.1, fit=lambda _n: "anchor") == 1
    assert outbox.dropped == 2
    sent = []
    for _ in range(12):
        sent += drain(outbox)
        clock.advance(1.0)
    assert sent == [f"PRIVMSG #a :fight {i}" for i in range(3)] + [
        "PRIVMSG #a :in time"] + [
        f"PRIVMSG #a :fight {i}" for i in range(3, 6)] + [
        "PRIVMSG #a :next", "PRIVMSG #a :fight", "PRIVMSG #a :anchor"]
    assert outbox.dropped == 2  # "next" went out 7 s after it came: in time


def test_a_reply_whose_time_comes_while_it_waits_is_dropped_with_all_its_lines(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    outbox = Outbox(FloodConfig(burst=1, per_second=1.0), clock.now)
    assert outbox.message("#a", "y" * 600, owed=NEAR, within=2.5) == 2
    for i in range(6):  # the fight goes first: three lines before the reply's turn
        outbox.message("#a", f"fight {i}", Priority.FIGHT)
    sent = []
    for _ in range(10):
        sent += drain(outbox)
        clock.advance(1.0)
    assert sent == [f"PRIVMSG #a :fight {i}" for i in range(6)]
    assert outbox.dropped == 2 and len(outbox) == 0
    assert [(r.levelname, r.getMessage().partition(": PRIVMSG")[0])
            for r in caplog.records] == [
        ("WARNING", "too late to send, dropped a reply to ~near@127.0.0.1 (not named in a "
                    "busy line)")]  # no nick given: no one to name


def test_chatter_goes_to_the_host_that_asked_least_first_then_its_lightest_identity() -> None:
    clock = FakeClock()
    outbox = Outbox(FloodConfig(burst=1, per_second=1.0), clock.now)
    for _ in range(30):  # ten identities' worth of asking from one host
        outbox.asked(FLOODER)
    outbox.asked(NEAR)
    outbox.asked(FAR)
    outbox.message("#a", "to the flooder", owed=FLOODER, within=60.0)
    outbox.message("#a", "to near", owed=NEAR, within=60.0)
    outbox.message("#a", "to far", owed=FAR, within=60.0)
    sent = []
    for _ in range(3):
        sent += drain(outbox)
        clock.advance(1.0)
    assert sent == ["PRIVMSG #a :to far", "PRIVMSG #a :to near", "PRIVMSG #a :to the flooder"]


def test_a_host_is_owed_at_most_what_the_budget_sends_in_reply_seconds() -> None:
    clock = FakeClock()
    outbox = Outbox(FloodConfig(burst=2, per_second=1.0, reply_seconds=3.0), clock.now)
    assert outbox.most_owed == 5  # 2 at once, then 3 s at one a second
    flooders = [("127.0.0.1", f"~fl{i}@127.0.0.1") for i in range(8)]
    for who in flooders:
        for _ in range(10):
            outbox.asked(who)
        outbox.message("#a", f"to {who[1]}", owed=who, within=3600.0)
    assert outbox.owes("127.0.0.1") == 5 and outbox.dropped == 3
    outbox.asked(NEAR)  # a bystander on the same host, who asked once
    assert outbox.message("#a", "to near", owed=NEAR, within=3600.0) == 1
    assert outbox.owes("127.0.0.1") == 5 and outbox.dropped == 4  # a flooder's went
    assert outbox.message("#a", "to far", owed=FAR, within=3600.0) == 1  # another host
    assert drain(outbox)[:2] == ["PRIVMSG #a :to far", "PRIVMSG #a :to near"]
