"""SASL where the server cannot do the configured mechanism (issue 32, item 11), as a
transcript of the session: ``sasl`` is requested all the same, as Sopel and Limnoria do;
then the bot QUITs (``irc.sasl_required``, the default) or ends negotiation and goes on
without its account."""

from __future__ import annotations

import pytest

from bot.config import IrcConfig
from bot.irc import logbook
from bot.irc.events import Action, CapsRefused, Registered, SaslFailed, SaslUnavailable, Send
from bot.irc.line import parse
from bot.irc.session import IrcSession, SaslLogin

QUIT = Send(parse("QUIT :SASL PLAIN is not available"))


def plain(required: bool) -> IrcSession:
    return IrcSession("AnCath", sasl=SaslLogin("PLAIN", "RefAcct", "s3cret", required))


def sent(actions: list[Action]) -> list[str]:
    return [a.line.format() for a in actions if isinstance(a, Send)]


@pytest.mark.parametrize(("required", "then"), [(True, QUIT), (False, Send(parse("CAP END")))],
                         ids=["required", "not-required"])
def test_plain_where_only_external_is_offered_requests_sasl_then_quits_or_goes_on(
        required: bool, then: Send) -> None:
    """irctest's testPlainNotAvailable: only EXTERNAL offered, PLAIN configured."""
    session = plain(required)
    assert session.receive(":srv CAP * LS :sasl=EXTERNAL account-tag") == [
        Send(parse("CAP REQ :account-tag sasl"))]
    assert session.receive(":srv CAP * ACK :account-tag sasl") == [
        SaslUnavailable("PLAIN", "EXTERNAL", required), then]  # no AUTHENTICATE


@pytest.mark.parametrize(("required", "then"), [
    (True, [QUIT]), (False, [Send(parse("CAP REQ :account-tag"))])],
    ids=["required", "not-required"])
def test_no_sasl_on_offer_quits_or_goes_on(required: bool, then: list[Send]) -> None:
    assert plain(required).receive(":srv CAP * LS :account-tag") == [
        SaslUnavailable("PLAIN", None, required), *then]


@pytest.mark.parametrize(("required", "then"), [(True, QUIT), (False, Send(parse("CAP END")))],
                         ids=["required", "not-required"])
def test_908_naming_other_mechanisms_before_904_is_the_mechanism_unavailable(
        required: bool, then: Send) -> None:
    """A server that lists no mechanisms in CAP LS names them in 908 when it refuses."""
    session = plain(required)
    session.receive(":srv CAP * LS :sasl")
    assert sent(session.receive(":srv CAP * ACK :sasl")) == ["AUTHENTICATE PLAIN"]
    assert session.receive(":srv 908 AnCath EXTERNAL :are available SASL mechanisms") == []
    assert session.receive(":srv 904 AnCath :SASL authentication failed") == [
        SaslUnavailable("PLAIN", "EXTERNAL", required), then]


def test_a_904_after_908_naming_ours_is_a_refused_login() -> None:
    session = plain(True)
    session.receive(":srv CAP * LS :sasl")
    session.receive(":srv CAP * ACK :sasl")
    session.receive(":srv 908 AnCath PLAIN,EXTERNAL :are available SASL mechanisms")
    assert session.receive(":srv 904 AnCath :SASL authentication failed") == [
        SaslFailed("saslfail"), Send(parse("CAP END"))]


def test_a_refused_request_of_sasl_quits_when_required() -> None:
    session = plain(True)
    session.receive(":srv CAP * LS :sasl=PLAIN account-tag")
    assert session.receive(":srv CAP * NAK :account-tag sasl") == [
        CapsRefused("account-tag sasl"), SaslUnavailable("PLAIN", None, True), QUIT]
    session = IrcSession("AnCath")  # no login: a NAK only ends negotiation
    session.receive(":srv CAP * LS :account-tag")
    assert session.receive(":srv CAP * NAK :account-tag") == [
        CapsRefused("account-tag"), Send(parse("CAP END"))]


def test_external_where_only_plain_is_offered_quits() -> None:
    session = IrcSession("AnCath", sasl=SaslLogin("EXTERNAL"))
    session.receive(":srv CAP * LS :sasl=PLAIN")
    assert session.receive(":srv CAP * ACK :sasl") == [
        SaslUnavailable("EXTERNAL", "PLAIN", True),
        Send(parse("QUIT :SASL EXTERNAL is not available"))]


@pytest.mark.parametrize("required", [True, False], ids=["required", "not-required"])
def test_a_server_that_never_answers_cap_ls_offers_no_sasl(
        required: bool, caplog: pytest.LogCaptureFixture) -> None:
    """Review of issue 32: a server that ignores ``CAP LS`` welcomed the bot, and it
    joined without its account and said nothing, ``sasl_required`` or not. Now the
    welcome is the end of negotiation: an ERROR and a QUIT before any JOIN when required,
    else a WARNING and on without SASL."""
    session = IrcSession("AnCath", channels=["#a"],
                         sasl=SaslLogin("PLAIN", "RefAcct", "s3cret", required))
    said = SaslUnavailable("PLAIN", None, required, caps=False)
    out = session.receive(":srv 001 AnCath :Welcome")
    assert out == ([said, QUIT] if required else
                   [said, Registered("AnCath"), Send(parse("JOIN #a"), in_turn=True)])
    assert session.registered is not required
    logbook.note(said, IrcConfig(server="irc.example.org", sasl_account="RefAcct"))
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("ERROR" if required else "WARNING",
         "SASL PLAIN is configured but irc.example.org offers no capabilities (no answer to "
         "CAP LS), so no SASL: " + (
             "quitting, to try again later (set irc.sasl_mechanism to one it offers, or "
             "irc.sasl_required: false to go on without SASL)" if required else
             "going on without SASL (irc.sasl_required: false)"))]


def test_without_a_login_a_server_that_ignores_cap_ls_is_joined() -> None:
    session = IrcSession("AnCath", channels=["#a"])
    assert session.receive(":srv 001 AnCath :Welcome") == [
        Registered("AnCath"), Send(parse("JOIN #a"), in_turn=True)]
