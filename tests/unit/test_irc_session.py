"""The IRC session without a server: literal protocol lines in, exact lines and events
out."""

from __future__ import annotations

import base64
import random

import pytest

from bot.irc.events import (
    Action,
    CapsRefused,
    Casemapping,
    CtcpRequest,
    Farewell,
    Gone,
    Joined,
    Kicked,
    Left,
    LoggedIn,
    Message,
    Prefix,
    Registered,
    Renamed,
    SaslFailed,
    SaslNoPassword,
    Seen,
    Send,
    WhoDone,
)
from bot.irc.line import Line, ctcp_parts, parse
from bot.irc.session import IrcSession, SaslLogin
from bot.messages import Sender

PLAIN = SaslLogin("PLAIN", "RefAcct", "s3cret")


def sent(actions: list[Action]) -> list[str]:
    return [a.line.format() for a in actions if isinstance(a, Send)]


def news(actions: list[Action]) -> list[Action]:
    return [a for a in actions if not isinstance(a, Send)]


def registered(session: IrcSession, *isupport: str) -> IrcSession:
    """``session`` past CAP, the welcome and ISUPPORT."""
    session.receive(":srv CAP * LS :")
    session.receive(f":srv 001 {session.nick} :Welcome")
    session.receive(f":srv 005 {session.nick} {' '.join(isupport)} :are supported")
    return session


def in_channel(*isupport: str, caps: str = "") -> IrcSession:
    """A session with ``caps`` acknowledged that has joined #arena and heard its WHO end."""
    session = IrcSession("AnCath", channels=["#arena"])
    session.receive(f":srv CAP * LS :{caps}")
    if caps:
        session.receive(f":srv CAP * ACK :{caps}")
    registered(session, *isupport)
    session.receive(":AnCath!~ancath@bot.host JOIN #arena")
    session.receive(":srv 315 AnCath #arena :End of WHO list")
    return session


# -- the line -------------------------------------------------------------------------


def test_a_line_has_its_tags_source_command_and_params() -> None:
    line = parse(r"@account=al\sice;time=x;flag :al!~a@h.example privmsg #arena :!roll 1d6")
    assert line == Line("PRIVMSG", ["#arena", "!roll 1d6"], "al!~a@h.example",
                        {"account": "al ice", "time": "x", "flag": None})
    assert line.nick == "al"
    assert parse("PING :irc.test") == Line("PING", ["irc.test"])
    assert parse(":srv 005 me WHOX CASEMAPPING=ascii :are supported").params == [
        "me", "WHOX", "CASEMAPPING=ascii", "are supported"]
    assert parse(r"@k=a\:b\\c\ :s X").tags == {"k": "a;b\\c"}


def test_a_message_splits_into_its_text_and_ctcp_requests() -> None:
    assert ctcp_parts("!roll 1d6") == ["!roll 1d6"]
    assert ctcp_parts("\x01VERSION\x01") == [("VERSION", "")]
    assert ctcp_parts("\x01ACTION waves\x01") == [("ACTION", "waves")]
    assert ctcp_parts("hi \x01PING 1\x01 there") == ["hi ", ("PING", "1"), " there"]
    assert ctcp_parts("a\x01b") == ["a", "\x01b"]  # a lone delimiter is text
    assert ctcp_parts("a\x10nb") == ["a\nb"]  # CTCP low-level quoting undone


# -- capabilities and SASL ------------------------------------------------------------


def test_the_wanted_caps_on_offer_are_requested_then_cap_end() -> None:
    session = IrcSession("AnCath")
    out = session.receive(":srv CAP * LS :multi-prefix account-tag extended-join sasl")
    assert sent(out) == ["CAP REQ :account-tag extended-join"]  # sasl not configured
    assert sent(session.receive(":srv CAP * ACK :account-tag extended-join")) == ["CAP END"]
    assert session.caps == {"account-tag", "extended-join"}


def test_a_multi_line_ls_is_answered_after_its_last_line() -> None:
    session = IrcSession("AnCath")
    assert session.receive(":srv CAP * LS * :account-tag") == []
    assert sent(session.receive(":srv CAP * LS :account-notify")) == [
        "CAP REQ :account-tag account-notify"]


def test_nothing_wanted_on_offer_ends_negotiation_at_once() -> None:
    assert sent(IrcSession("AnCath").receive(":srv CAP * LS :multi-prefix")) == ["CAP END"]


def test_a_nak_ends_negotiation() -> None:
    session = IrcSession("AnCath")
    session.receive(":srv CAP * LS :account-tag")
    out = session.receive(":srv CAP * NAK :account-tag")
    assert out == [CapsRefused("account-tag"), Send(parse("CAP END"))]


def test_sasl_plain_sends_the_account_twice_and_the_password() -> None:
    session = IrcSession("AnCath", sasl=PLAIN)
    assert sent(session.receive(":srv CAP * LS :sasl=PLAIN,EXTERNAL account-tag")) == [
        "CAP REQ :account-tag sasl"]
    assert sent(session.receive(":srv CAP * ACK :account-tag sasl")) == [
        "AUTHENTICATE PLAIN"]
    token = base64.b64encode(b"RefAcct\0RefAcct\0s3cret").decode()
    assert sent(session.receive("AUTHENTICATE +")) == [f"AUTHENTICATE {token}"]
    assert session.receive(":srv 900 AnCath AnCath!a@h RefAcct :You are now logged in") == []
    assert session.receive(":srv 903 AnCath :SASL authentication successful") == [
        LoggedIn(), Send(parse("CAP END"))]


def test_a_sasl_token_of_400_bytes_is_followed_by_a_plus() -> None:
    password = "p" * (300 - len("RefAcct\0RefAcct\0"))  # 300 bytes: 400 in base64
    session = IrcSession("AnCath", sasl=SaslLogin("PLAIN", "RefAcct", password))
    session.receive(":srv CAP * LS :sasl")
    session.receive(":srv CAP * ACK :sasl")
    lines = sent(session.receive("AUTHENTICATE +"))
    assert [len(x) for x in lines] == [len("AUTHENTICATE ") + 400, len("AUTHENTICATE +")]
    assert lines[-1] == "AUTHENTICATE +"


def test_sasl_external_answers_plus_for_the_certificate() -> None:
    session = IrcSession("AnCath", sasl=SaslLogin("EXTERNAL"))
    session.receive(":srv CAP * LS :sasl=EXTERNAL")
    assert sent(session.receive(":srv CAP * ACK :sasl")) == ["AUTHENTICATE EXTERNAL"]
    assert sent(session.receive("AUTHENTICATE +")) == ["AUTHENTICATE +"]


@pytest.mark.parametrize(("numeric", "reason"), [
    ("904", "saslfail"), ("905", "sasltoolong"), ("906", "saslaborted")])
def test_a_failed_login_still_ends_negotiation(numeric: str, reason: str) -> None:
    session = IrcSession("AnCath", sasl=PLAIN)
    session.receive(":srv CAP * LS :sasl")
    session.receive(":srv CAP * ACK :sasl")
    assert session.receive(f":srv {numeric} AnCath :SASL authentication failed") == [
        SaslFailed(reason), Send(parse("CAP END"))]


def test_no_password_aborts_the_login() -> None:
    session = IrcSession("AnCath", sasl=SaslLogin("PLAIN", "RefAcct", None))
    session.receive(":srv CAP * LS :sasl")
    session.receive(":srv CAP * ACK :sasl")
    assert session.receive("AUTHENTICATE +") == [SaslNoPassword(), Send(parse("AUTHENTICATE *"))]


# -- registration and nicks -----------------------------------------------------------


def test_the_welcome_registers_and_joins_the_first_channel() -> None:
    session = IrcSession("AnCath", channels=["#arena", "#side"])
    session.receive(":srv CAP * LS :")
    assert session.receive(":srv 001 AnCath :Welcome to the network") == [
        Registered("AnCath"), Send(parse("JOIN #arena"), in_turn=True)]  # #side after its answer
    assert session.registered and not session.wants_nick


def test_a_taken_nick_tries_the_alternatives_then_random_digits() -> None:
    session = IrcSession("AnCath", alt_nicks=["AnCath_"], rng=random.Random(7))
    out = session.receive(":srv 433 * AnCath :Nickname is already in use")
    assert out == [Send(parse("NICK AnCath_"))]
    same = random.Random(7)
    first, second = same.randint(100, 999), same.randint(100, 999)
    assert sent(session.receive(":srv 433 * AnCath_ :Nickname is already in use")) == [
        f"NICK AnCath{first}"]
    assert sent(session.receive(":srv 432 * x :Erroneous nickname")) == [
        f"NICK AnCath{second}"]  # a nick not in the list: digits again


def test_the_nick_is_regained_after_registering_under_another() -> None:
    session = IrcSession("AnCath", alt_nicks=["AnCath_"])
    session.receive(":srv 433 * AnCath :Nickname is already in use")
    assert session.regain() == []  # not registered yet
    assert session.receive(":srv 001 AnCath_ :Welcome")[0] == Registered("AnCath_")
    assert session.wants_nick
    assert session.regain() == [Send(parse("NICK AnCath"))]
    assert session.receive(":srv 433 AnCath_ AnCath :Nickname is already in use") == []
    assert session.receive(":AnCath_!~a@h NICK AnCath") == [
        Renamed("AnCath_", "AnCath"), Prefix("AnCath!~a@h")]
    assert not session.wants_nick and session.regain() == []


def test_isupport_gives_casemapping_whox_and_prefixes() -> None:
    session = IrcSession("AnCath")
    out = session.receive(":srv 005 AnCath WHOX PREFIX=(qov)~@+ CASEMAPPING=ascii :are "
                          "supported by this server")
    assert out == [Casemapping("ascii")]
    assert session.whox and session.prefixes == "~@+" and session.casemapping == "ascii"


def test_nicks_compare_by_the_networks_casemapping() -> None:
    session = IrcSession("Ref[1]")
    assert session.is_me("ref{1}")  # rfc1459 until told
    session.receive(":srv 005 Ref[1] CASEMAPPING=ascii :are supported")
    assert not session.is_me("ref{1}") and session.is_me("REF[1]")


# -- channels and WHO -----------------------------------------------------------------


def test_whox_asks_one_channel_at_a_time() -> None:
    session = IrcSession("AnCath", channels=["#a", "#b"])
    registered(session, "WHOX")
    assert session.receive(":AnCath!~ancath@bot.host JOIN #a") == [
        Prefix("AnCath!~ancath@bot.host"), Joined("#a"),
        Send(parse("WHO #a %tnuhact,42"), in_turn=True), Send(parse("JOIN #b"), in_turn=True)]
    assert session.receive(":AnCath!~ancath@bot.host JOIN #b") == [
        Prefix("AnCath!~ancath@bot.host"), Joined("#b")]  # #a's WHO still waits
    out = session.receive(":srv 354 AnCath 42 #a ~al al.host al AliceAcct")
    assert out == [Seen("al", "AliceAcct")]
    assert session.receive(":srv 354 AnCath 42 #a ~bo bo.host bo 0") == [
        Seen("bo", "~bo@bo.host")]  # not logged in: user@host
    assert session.receive(":srv 354 AnCath 42 #a ~ancath bot.host AnCath 0") == []
    assert session.accounts.get("AL") == "AliceAcct"
    assert session.receive(":srv 315 AnCath #b :End of /WHO list.") == []  # not ours
    assert session.receive(":srv 315 AnCath #A :End of /WHO list.") == [
        WhoDone("#a"), Send(parse("WHO #b %tnuhact,42"), in_turn=True)]
    assert session.waiting_who == "WHO #b %tnuhact,42"
    assert session.who_timed_out() == [WhoDone("#b")]
    assert session.waiting_who is None and session.who_timed_out() == []


def test_a_plain_who_gives_user_at_host() -> None:
    session = IrcSession("AnCath", channels=["#arena"])
    registered(session)
    assert sent(session.receive(":AnCath!~ancath@bot.host JOIN #arena")) == ["WHO #arena"]
    assert session.receive(":srv 352 AnCath #arena ~al al.host srv al H :0 Al") == [
        Seen("al", "~al@al.host")]


def test_the_account_tag_counts_only_when_acknowledged() -> None:
    tagged = "@account=AliceAcct :al!~al@al.host JOIN #arena"
    assert in_channel().receive(tagged) == [Seen("al", "~al@al.host")]
    assert in_channel(caps="account-tag").receive(tagged) == [Seen("al", "AliceAcct")]
    session = in_channel(caps="account-tag extended-join")
    assert session.receive(":bo!~bo@bo.host JOIN #arena BoAcct :Bo") == [
        Seen("bo", "~bo@bo.host")]  # no tag on the line: not logged in, for ownership
    assert session.accounts.get("bo") == "BoAcct"  # but known, for naming


def test_on_a_network_not_the_clubs_home_every_identity_carries_its_name() -> None:
    """An account is its network's own: ``AliceAcct`` on OFTC is not the club's
    ``AliceAcct`` (its home network's), so the session names it ``oftc:AliceAcct``;
    likewise a ``user@host`` and the mask moderators are matched against."""
    session = IrcSession("AnCath", channels=["#arena"], foreign_network="oftc")
    session.receive(":srv CAP * LS :account-tag account-notify extended-join")
    session.receive(":srv CAP * ACK :account-tag account-notify extended-join")
    registered(session, "WHOX")
    session.receive(":AnCath!~ancath@bot.host JOIN #arena")
    assert session.receive(":srv 354 AnCath 42 #arena ~al al.host al AliceAcct") == [
        Seen("al", "oftc:AliceAcct")]
    assert session.receive(":srv 354 AnCath 42 #arena ~bo bo.host bo 0") == [
        Seen("bo", "oftc:~bo@bo.host")]
    assert session.receive("@account=CyAcct :cy!~cy@cy.host JOIN #arena CyAcct :Cy") == [
        Seen("cy", "oftc:CyAcct")]
    assert session.receive("@account=BoAcct :bo!~bo@bo.host ACCOUNT BoAcct") == [
        Seen("bo", "oftc:BoAcct")]
    (said,) = session.receive("@account=AliceAcct :al!~al@al.host PRIVMSG #arena :!sheet")
    assert isinstance(said, Message)
    assert said.sender == Sender(nick="al", account="oftc:AliceAcct",
                                 mask="oftc:al!~al@al.host", host="oftc:~al@al.host")
    assert session.accounts.get("al") == "AliceAcct"   # the network's own name, for WHO
    for tag in ("@account=", "@account=*", "@account=home:alice"):   # none: user@host
        (said,) = session.receive(f"{tag} :dd!~dd@dd.host PRIVMSG #arena :!sheet")
        assert isinstance(said, Message) and said.sender.account is None
        assert said.sender.identity == "oftc:~dd@dd.host"
    home = in_channel(caps="account-tag")   # at home, no account passes for another's
    assert home.receive("@account=oftc:AliceAcct :al!~al@al.host JOIN #arena") == [
        Seen("al", "~al@al.host")]


def test_account_notify_and_nick_changes_follow_the_account() -> None:
    session = in_channel(caps="account-notify account-tag")
    session.receive(":al!~al@al.host JOIN #arena")
    assert session.receive("@account=AliceAcct :al!~al@al.host ACCOUNT AliceAcct") == [
        Seen("al", "AliceAcct")]
    assert session.receive(":al!~al@al.host NICK alice") == [Renamed("al", "alice")]
    assert session.accounts.get("alice") == "AliceAcct"
    session.receive(":alice!~al@al.host ACCOUNT *")
    assert session.accounts.get("alice") is None


def test_leaving_the_last_shared_channel_forgets_the_nick() -> None:
    session = IrcSession("AnCath", channels=["#a", "#b"])
    registered(session)
    session.receive(":srv 353 AnCath = #a :@al +bo AnCath")
    session.receive(":srv 353 AnCath = #b :al")
    assert session.receive(":al!~al@h PART #a") == []  # still in #b
    assert session.receive(":al!~al@h PART #b :bye") == [Gone("al")]
    assert session.receive(":op!~op@h KICK #a bo :out") == [Gone("bo")]


def test_the_bots_own_part_kick_and_quit() -> None:
    session = in_channel()
    session.receive(":al!~al@h JOIN #arena")
    assert session.receive(":AnCath!~ancath@bot.host PART #arena") == [
        Left("#arena"), Gone("al")]
    session = in_channel()
    assert session.receive(":op!~op@h KICK #arena AnCath :go away") == [
        Kicked("#arena", "op", "go away")]
    assert session.receive(":AnCath!~ancath@bot.host QUIT :Ping timeout") == [
        Farewell("Ping timeout")]
    assert session.receive("ERROR :Closing link") == [Farewell("Closing link")]


def test_someone_elses_quit_forgets_them() -> None:
    session = in_channel(caps="extended-join")
    session.receive(":al!~al@h JOIN #arena AliceAcct :Al")
    assert session.receive(":al!~al@h QUIT :gone") == [Gone("al")]
    assert session.accounts.get("al") is None


def test_lines_it_does_not_handle_change_nothing() -> None:
    session = in_channel()
    assert session.receive(":srv 372 AnCath :- message of the day") == []
    assert session.receive(":al!~al@h NOTICE #arena :!roll 1d6") == []  # never answered


# -- pings and what people say --------------------------------------------------------


def test_a_ping_is_answered_with_its_pong_at_once() -> None:
    session = IrcSession("AnCath")
    assert session.receive("PING :x") == [Send(parse("PONG :x"), at_once=True)]  # registering
    registered(session)
    assert session.receive(":irc.test PING :irc.test") == [
        Send(parse("PONG :irc.test"), at_once=True)]


def test_a_message_is_from_the_account_its_own_tag_names() -> None:
    session = in_channel(caps="account-tag")
    out = session.receive("@account=olaf;time=2026-12-01T10:00:00Z "
                          ":Olaf!~o@o.host PRIVMSG #arena :!roll 1d6")
    olaf = Sender(nick="Olaf", account="olaf", mask="Olaf!~o@o.host", host="~o@o.host")
    assert out == [Message(olaf, "#arena", "!roll 1d6", "#arena",
                           {"account": "olaf", "time": "2026-12-01T10:00:00Z"})]
    assert olaf.identity == "olaf"
    untagged = session.receive(":Olaf!~o@o.host PRIVMSG AnCath :!sheet")
    assert untagged == [Message(Sender(nick="Olaf", mask="Olaf!~o@o.host",
                                       host="~o@o.host"), "AnCath", "!sheet", None)]
    assert isinstance(untagged[0], Message)
    assert untagged[0].sender.identity == "~o@o.host"  # no tag: not logged in
    forged = in_channel().receive("@account=olaf :Olaf!~o@o.host PRIVMSG #arena :!x")
    assert isinstance(forged[0], Message) and forged[0].sender.account is None


def test_ctcp_version_is_answered_and_a_me_is_not_a_command() -> None:
    session = IrcSession("AnCath", channels=["#arena"], version="ancath-bot 0.1")
    registered(session)
    al = Sender(nick="al", mask="al!~al@h", host="~al@h")
    assert session.receive(":al!~al@h PRIVMSG AnCath :\x01VERSION\x01") == [
        CtcpRequest(al, "VERSION", "\x01VERSION ancath-bot 0.1\x01")]
    assert session.receive(":al!~al@h PRIVMSG #arena :\x01TIME\x01") == [
        CtcpRequest(al, "TIME", None)]
    assert session.receive(":al!~al@h PRIVMSG #arena :\x01ACTION rolls d100\x01") == []
    assert session.receive(":al!~al@h NOTICE AnCath :\x01VERSION x\x01") == []
    assert IrcSession("AnCath").receive(":al!~al@h PRIVMSG AnCath :\x01VERSION\x01") == [
        CtcpRequest(al, "VERSION", None)]  # no version configured: no answer


def test_a_message_to_a_channel_in_another_case_is_the_joined_channel() -> None:
    session = IrcSession("AnCath", channels=["#Foo[1]"])
    registered(session)
    assert news(session.receive(":AnCath!~a@h JOIN #foo{1}")) == [
        Prefix("AnCath!~a@h"), Joined("#Foo[1]")]  # rfc1459: the configured spelling
    assert sent(session.receive(":srv 315 AnCath #FOO{1} :End")) == []
    out = session.receive(":al!~al@h PRIVMSG #FOO{1} :!fight")
    assert [(m.target, m.channel) for m in out if isinstance(m, Message)] == [
        ("#FOO{1}", "#Foo[1]")]
    assert session.receive(":AnCath!~a@h PART #foo{1}") == [Left("#Foo[1]")]
    ascii = IrcSession("AnCath", channels=["#Foo[1]"])
    registered(ascii, "CASEMAPPING=ascii")
    assert news(ascii.receive(":AnCath!~a@h JOIN #foo{1}")) == [
        Prefix("AnCath!~a@h"), Joined("#foo{1}")]  # ascii: another channel
    out = ascii.receive(":al!~al@h PRIVMSG #FOO{1} :!fight")
    assert [m.channel for m in out if isinstance(m, Message)] == ["#foo{1}"]
    out = ascii.receive(":al!~al@h PRIVMSG #FOO[1] :!fight")
    assert [m.channel for m in out if isinstance(m, Message)] == ["#FOO[1]"]  # not joined


def test_nicks_are_one_person_under_rfc1459_and_two_under_ascii() -> None:
    session = in_channel("WHOX")
    session.receive(":srv 354 AnCath 42 #arena ~o o.host Nick[a] olaf")
    assert session.accounts.get("nick{a}") == "olaf"
    assert session.receive(":nick{a}!~o@o.host QUIT :bye") == [Gone("nick{a}")]
    assert session.accounts.get("Nick[a]") is None
    ascii = in_channel("WHOX", "CASEMAPPING=ascii")
    ascii.receive(":srv 354 AnCath 42 #arena ~o o.host Nick[a] olaf")
    assert ascii.accounts.get("nick{a}") is None and ascii.accounts.get("NICK[A]") == "olaf"


def test_what_it_knows_is_folded_again_when_isupport_names_the_mapping() -> None:
    session = IrcSession("AnCath", channels=["#arena"])
    session.receive(":srv 001 AnCath :Welcome")
    session.receive(":AnCath!~a@h JOIN #arena")
    session.receive(":srv 354 AnCath 42 #arena ~o o.host Nick[a] olaf")
    session.receive(":srv 353 AnCath = #arena :Nick[a]")
    assert session.accounts.get("nick{a}") == "olaf"
    session.receive(":srv 005 AnCath CASEMAPPING=ascii :are supported")
    assert session.accounts.get("nick{a}") is None and session.accounts.get("nick[a]") == "olaf"
    assert session.receive(":nick{a}!~o@o.host PART #arena") == [Gone("nick{a}")]
    assert session.accounts.get("Nick[a]") == "olaf"  # another nick left, not Nick[a]


def test_a_message_to_the_ops_of_a_channel_is_said_in_that_channel() -> None:
    session = in_channel("STATUSMSG=@+")
    al = ":al!~al@al.host PRIVMSG"
    said = [m for line in (f"{al} @#arena :!mod login pw", f"{al} +#Arena :!fight",
                           f"{al} @+#arena :!fight", f"{al} AnCath :!mod login pw")
            for m in session.receive(line) if isinstance(m, Message)]
    assert [(m.target, m.channel) for m in said] == [
        ("@#arena", "#arena"), ("+#Arena", "#arena"), ("@+#arena", "#arena"),
        ("AnCath", None)]  # only the last is private: the login refuses the others
    assert [m.channel for m in session.receive(f"{al} +chat :!fight")
            if isinstance(m, Message)] == ["+chat"]  # a + channel, not a status prefix


def test_without_statusmsg_no_prefix_is_a_status_prefix() -> None:
    session = in_channel()
    assert session.statusmsg == ""
    assert [m.channel for m in session.receive(":al!~al@h PRIVMSG +#arena :!fight")
            if isinstance(m, Message)] == ["+#arena"]
