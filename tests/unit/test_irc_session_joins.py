"""Joining the configured channels, as a transcript of the session (issue 32): one JOIN
at a time, each channel's WHO right behind its own JOIN, and every JOIN the server
refuses said with its reason."""

from __future__ import annotations

import pytest

from bot.config import IrcConfig
from bot.irc import logbook
from bot.irc.events import Joined, JoinRefused, Kicked, Prefix, Registered, Send, WhoDone
from bot.irc.line import parse
from bot.irc.session import IrcSession

ME = ":AnCath!~ancath@bot.host"


def welcomed(*channels: str) -> IrcSession:
    session = IrcSession("AnCath", channels=list(channels))
    session.receive(":srv CAP * LS :")
    assert session.receive(":srv 001 AnCath :Welcome") == [
        Registered("AnCath"), Send(parse(f"JOIN {channels[0]}"), in_turn=True)]
    return session


def test_each_channel_is_asked_who_before_the_next_is_joined() -> None:
    """Issue 32, item 7: the WHO of #a (and so its resume line) queues right behind its
    JOIN, ahead of #b's JOIN, not behind every channel's."""
    session = welcomed("#a", "#b", "#c")
    assert session.receive(f"{ME} JOIN #a") == [
        Prefix("AnCath!~ancath@bot.host"), Joined("#a"),
        Send(parse("WHO #a"), in_turn=True), Send(parse("JOIN #b"), in_turn=True)]
    assert session.receive(":srv 315 AnCath #a :End of WHO list") == [WhoDone("#a")]
    assert session.receive(f"{ME} JOIN #b")[1:] == [
        Joined("#b"), Send(parse("WHO #b"), in_turn=True), Send(parse("JOIN #c"), in_turn=True)]
    assert session.joins.line == "JOIN #c" and session.waiting_who == "WHO #b"
    assert session.receive(f"{ME} JOIN #c")[1:] == [Joined("#c")]  # #b's WHO waits
    assert session.receive(":srv 315 AnCath #b :End") == [
        WhoDone("#b"), Send(parse("WHO #c"), in_turn=True)]
    assert session.joins.line is None and session.joins.timed_out() == []


@pytest.mark.parametrize(("numeric", "why"), [
    ("405", "too many channels"), ("471", "channel is full"), ("473", "invite only"),
    ("474", "banned"), ("475", "needs a key"), ("477", "needs a registered nick"),
    ("403", "no such channel"), ("437", "temporarily unavailable"), ("480", "throttled"),
])
def test_a_refused_join_is_said_with_the_servers_reason_and_the_next_goes(
        numeric: str, why: str) -> None:
    """Issue 32, item 10: ngircd refused 11 of 21 channels (MaxJoins 10) with no word."""
    session = welcomed("#a", "#b")
    out = session.receive(f":srv {numeric} AnCath #a :Cannot join channel")
    assert out == [JoinRefused("#a", why, numeric, "Cannot join channel"),
                   Send(parse("JOIN #b"), in_turn=True)]
    assert dict(session.joins.not_in) == {"#a": why}
    assert session.waiting_who is None  # no WHO of a channel it is not in


def test_ngircds_too_many_channels_in_another_case_is_the_configured_channel() -> None:
    session = welcomed("#Arena", "#side")
    assert session.receive(":irc.test 405 AnCath #ARENA :You have joined too many "
                           "channels") == [
        JoinRefused("#Arena", "too many channels", "405",
                    "You have joined too many channels"),
        Send(parse("JOIN #side"), in_turn=True)]


def test_a_refusal_of_a_channel_it_did_not_ask_for_changes_nothing() -> None:
    session = welcomed("#a", "#b")
    assert session.receive(":srv 474 AnCath #elsewhere :Cannot join channel (+b)") == []
    session.receive(f"{ME} JOIN #a")
    assert session.receive(":srv 403 AnCath #a :No such channel") == []  # in it
    assert session.joins.line == "JOIN #b" and not session.joins.not_in


def test_437_of_a_nick_is_still_a_taken_nick() -> None:
    session = IrcSession("AnCath", alt_nicks=["AnCath_"], channels=["#a"])
    assert session.receive(":srv 437 * AnCath :Nick/channel is temporarily "
                           "unavailable") == [Send(parse("NICK AnCath_"))]


def test_a_join_with_no_answer_is_given_up_and_the_next_goes() -> None:
    session = welcomed("#a", "#b")
    assert session.joins.timed_out() == [Send(parse("JOIN #b"), in_turn=True)]
    assert dict(session.joins.not_in) == {"#a": "no answer"}
    assert session.receive(f"{ME} JOIN #a")[1] == Joined("#a")  # late after all
    assert session.joins.line == "JOIN #b" and not session.joins.not_in


def test_a_kick_leaves_the_channel_unserved_until_the_bot_is_back() -> None:
    session = welcomed("#a")
    session.receive(f"{ME} JOIN #a")
    assert session.receive(":op!~op@h KICK #a AnCath :out") == [Kicked("#a", "op", "out")]
    assert dict(session.joins.not_in) == {"#a": "kicked by op"}
    session.receive(f"{ME} JOIN #a")
    assert not session.joins.not_in


@pytest.mark.parametrize(("line", "code", "reason"), [
    (":srv 495 AnCath #a :You must wait 60 seconds after being kicked to rejoin (+J)",
     "495", "You must wait 60 seconds after being kicked to rejoin (+J)"),
    (":srv 459 AnCath #A :Cannot join channel (+z: TLS users only)",
     "459", "Cannot join channel (+z: TLS users only)"),
    (":srv FAIL JOIN CHANNEL_CLOSED #a :The channel is closed for the night",
     "CHANNEL_CLOSED", "The channel is closed for the night"),
], ids=["495", "459-other-case", "FAIL-JOIN"])
def test_any_error_naming_the_channel_being_joined_refuses_it_in_the_servers_words(
        line: str, code: str, reason: str, caplog: pytest.LogCaptureFixture) -> None:
    """Review of issue 32: a refusal not in the table (or an IRCv3 ``FAIL JOIN``) waited
    the whole timeout and was recorded as "no answer": 20 such channels, 10 minutes."""
    session = welcomed("#a", "#b")
    out = session.receive(line)
    assert out == [JoinRefused("#a", reason, code, reason), Send(parse("JOIN #b"), in_turn=True)]
    assert dict(session.joins.not_in) == {"#a": reason}  # what !status says
    logbook.note(out[0], IrcConfig(server="irc.example.org"))
    assert caplog.messages == [f"cannot join #a: {reason} ({code})"]


@pytest.mark.parametrize("line", [
    ":srv 482 AnCath #b :You're not a channel operator",  # another channel
    ":srv 421 AnCath WHOX :Unknown command",               # no channel at all
    ":srv FAIL NICK NICKNAME_RESERVED #a :Reserved",       # another command's failure
    ":srv 495 AnCath :#a",                                  # the channel only as text
])
def test_an_error_that_does_not_name_the_channel_being_joined_changes_nothing(
        line: str) -> None:
    session = welcomed("#a", "#b")
    assert session.receive(line) == []
    assert session.joins.line == "JOIN #a" and not session.joins.not_in
    session.receive(f"{ME} JOIN #a")
    assert session.receive(":srv 495 AnCath #a :Too soon") == []  # in it: no JOIN waits
