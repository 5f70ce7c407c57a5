"""What one reply costs the send queue on the event loop (issue 34): a line written
(``Line.format``) once to be costed, the text budget reckoned once per target while
our prefix stays, the host a reply is owed to read once per mask; the same order and
the same budgets as ever."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterator

import pytest

from bot.clock import FakeClock
from bot.config import FloodConfig
from bot.irc import fair
from bot.irc.line import Line
from bot.irc.outbox import Outbox
from bot.messages import Sender


@pytest.fixture
def formats(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every line written while the test runs."""
    written: list[str] = []
    original = Line.format

    def counted(line: Line) -> str:
        written.append(text := original(line))
        return text

    monkeypatch.setattr(Line, "format", counted)
    yield written


def test_a_reply_is_written_once_to_be_queued(formats: list[str]) -> None:
    outbox = Outbox(FloodConfig(burst=4, per_second=1.0), FakeClock().now)
    outbox.prefix = "Ref!~ref@127.0.0.1"
    outbox.message("#arena", "ann rolls 1d6 = [3] = 3", owed=("127.0.0.1", "ann"),
                   within=30.0, nick="ann")
    formats.clear()
    outbox.message("#arena", "bob rolls 1d6 = [4] = 4", owed=("10.0.0.2", "bob"),
                   within=30.0, nick="bob")
    assert formats == ["PRIVMSG #arena :bob rolls 1d6 = [4] = 4"]   # its cost
    assert drain(outbox) == ["PRIVMSG #arena :ann rolls 1d6 = [3] = 3",
                             "PRIVMSG #arena :bob rolls 1d6 = [4] = 4"]


def test_the_text_budget_follows_our_prefix() -> None:
    outbox = Outbox(FloodConfig(burst=10, per_second=1.0), FakeClock().now)
    text = "x " * 300   # 600 bytes: two lines after either prefix

    def first_line() -> str:
        assert outbox.message("#arena", text) == 2
        lines = drain(outbox)
        assert len(lines) == 2
        return lines[0]

    outbox.prefix = "Ref!~r@h"
    short = first_line()
    outbox.prefix = "Ref!~ref@" + "h" * 59   # 60 bytes longer: 60 bytes less text
    assert len(first_line()) == len(short) - 60


def drain(outbox: Outbox) -> list[str]:
    out = []
    while (line := outbox.next_line()[0]) is not None:
        outbox.sent()
        out.append(line.format())
    return out


def test_a_hosts_address_is_read_once_for_its_replies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[str] = []
    original: Callable[[str], object] = ipaddress.ip_address

    def counted(host: str) -> object:
        read.append(host)
        return original(host)

    monkeypatch.setattr(ipaddress, "ip_address", counted)
    ann = Sender(nick="ann", mask="ann!~ann@2001:db8::7", host="~ann@2001:db8::7")
    assert fair.owed(ann) == fair.owed(ann) == ("2001:db8::/64", "~ann@2001:db8::7")
    assert read == ["2001:db8::7"]
