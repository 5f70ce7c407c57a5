"""Hostile and malformed lines: the IRC session changes nothing it should not and never
raises, whatever the server (or someone through it) sends."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.irc.events import Action, Joined, Prefix, Send, Unreadable, WhoDone
from bot.irc.line import Line, parse
from bot.irc.session import _HANDLERS, IrcSession, SaslLogin

LOGINS = {"none": None, "PLAIN": SaslLogin("PLAIN", "RefAcct", "s3cret"),
          "EXTERNAL": SaslLogin("EXTERNAL")}
CAPS = "account-tag extended-join account-notify message-tags sasl"


def fresh(sasl: str) -> IrcSession:
    return IrcSession("Ref", ["Ref_"], ["#arena", "#b"], LOGINS[sasl], version="v1")


def welcomed(sasl: str) -> IrcSession:
    """Past CAP (everything acknowledged), SASL, the welcome, ISUPPORT and one JOIN."""
    session = fresh(sasl)
    for line in (f":srv CAP * LS :{CAPS}", f":srv CAP * ACK :{CAPS}", "AUTHENTICATE +",
                 ":srv 903 Ref :SASL successful", ":srv 001 Ref :Welcome",
                 ":srv 005 Ref WHOX STATUSMSG=@+ CASEMAPPING=rfc1459 :are supported",
                 ":Ref!~ref@bot.host JOIN #arena"):
        session.receive(line)
    return session


@pytest.mark.parametrize("line", [
    ":! PRIVMSG #arena :x", ":!@ PRIVMSG #arena :x", ":!@ PRIVMSG Ref :!mod login pw",
    "PRIVMSG #arena :!fight", "JOIN #arena", ":!u@h JOIN #arena", "ACCOUNT olaf",
    ":!~o@h ACCOUNT olaf", "QUIT :bye", "PART #arena", "NICK al", ":!x@h KICK #arena Ref",
])
def test_a_line_from_nobody_changes_nothing(line: str) -> None:
    session = welcomed("none")
    assert session.receive(line) == []
    assert "#arena" in session.joined and session.waiting_who == "WHO #arena %tnuhact,42"


def test_an_own_join_without_a_channel_asks_no_who() -> None:
    session = fresh("none")
    session.receive(":srv 001 Ref :Welcome")
    assert session.receive(":Ref!u@h JOIN") == []
    assert session.receive(":Ref!u@h JOIN :") == []
    assert session.waiting_who is None and session.who_timed_out() == []
    assert session.receive(":srv 315 Ref * :End of WHO") == []
    assert session.receive(":Ref!u@h JOIN #arena") == [
        Prefix("Ref!u@h"), Joined("#arena"), Send(parse("WHO #arena"), in_turn=True),
        Send(parse("JOIN #b"), in_turn=True)]
    assert session.receive(":Ref!u@h JOIN #b") == [Prefix("Ref!u@h"), Joined("#b")]
    assert session.receive(":srv 315 Ref #arena :End of WHO") == [
        WhoDone("#arena"), Send(parse("WHO #b"), in_turn=True)]
    assert session.who_timed_out() == [WhoDone("#b")]


def test_an_echo_that_cannot_be_written_back_asks_nothing() -> None:
    """A channel that could not be one parameter of a WHO is never asked of; a PING's
    CR never reaches the PONG (it would end the line there)."""
    session = fresh("none")
    session.receive(":srv 001 Ref :Welcome")
    assert session.receive(":Ref!u@h JOIN ::arena") == []
    assert session.receive("PING :a\rQUIT") == [Send(parse("PONG :a QUIT"), at_once=True)]


def test_a_rule_that_fails_on_a_line_is_reported_not_raised(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_session: IrcSession, _line: Line) -> list[Action]:
        raise ValueError("!mod login s3cret")

    monkeypatch.setitem(_HANDLERS, "PRIVMSG", broken)
    session = welcomed("none")
    assert session.receive(":al!~al@h PRIVMSG Ref :!mod login s3cret") == [
        Unreadable("PRIVMSG", "ValueError")]  # never the text: it may hold a password
    assert session.receive("PING :srv") == [Send(parse("PONG :srv"), at_once=True)]


_WORD = st.text(st.sampled_from("aZ09#&+!@:;=\\*~[]{}|^-_.,\x01 "), max_size=12)
_PARAM = _WORD.filter(lambda w: w != "" and " " not in w and not w.startswith(":"))
_SOURCES = st.sampled_from(["", "!", "!@", "@", "srv", "Ref!u@h", "al!~al@h"]) | _WORD


@st.composite
def _structured(draw: st.DrawFn) -> str:
    """``@tags :source COMMAND params :trailing``, each part odd or missing."""
    tags, source, trailing = (draw(st.none() | part) for part in (_WORD, _SOURCES, _WORD))
    command = draw(st.sampled_from([*sorted(_HANDLERS), "NOTICE", "", "999", "privmsg"]))
    return " ".join([*([f"@{tags}"] if tags is not None else []),
                     *([f":{source}"] if source is not None else []),
                     command, *draw(st.lists(_PARAM, max_size=8)),
                     *([f":{trailing}"] if trailing is not None else [])])


_ANY_TEXT = st.text(st.characters(min_codepoint=1, exclude_characters="\r\n"),
                    max_size=80)
_LINES = st.lists(_structured() | _ANY_TEXT, min_size=1, max_size=12)


@pytest.mark.parametrize("sasl", sorted(LOGINS))
@pytest.mark.parametrize("start", [fresh, welcomed], ids=["unregistered", "registered"])
@settings(max_examples=150, deadline=None)
@given(lines=_LINES)
def test_no_line_makes_the_session_raise(start: Callable[[str], IrcSession], sasl: str,
                                         lines: list[str]) -> None:
    session = start(sasl)
    for line in lines:
        out = session.receive(line)
        assert not [a for a in out if isinstance(a, Unreadable)], line
    session.who_timed_out()
    session.joins.timed_out()
    session.regain()
