"""Moderator logins by password (R8.2) without a server: which chat lines are never
logged, whose login a nick is by the network's casemapping, and how wrong passwords
are counted (by host, whatever the ident, and by the club, each more doubling the
wait)."""

from __future__ import annotations

import pytest

from bot.chat.moderators import host_of, is_secret, wait_words
from bot.identity.logins import CLUB_FREE, HOST_FREE, Logins


@pytest.mark.parametrize(("text", "prefix"), [
    ("!mod login hunter2", "!"), ("!mod  login hunter2", "!"), ("!MOD LOGIN hunter2", "!"),
    ("!mod\tlogin hunter2", "!"), ("!mod login", "!"), (".mod login hunter2", "."),
    ("ref: mod Login hunter2", "ref: "),
])
def test_a_login_line_is_a_secret_however_it_is_typed(text: str, prefix: str) -> None:
    assert is_secret(text, prefix)


@pytest.mark.parametrize(("text", "prefix"), [
    ("!mod add olaf", "!"), ("!mod", "!"), ("!modlogin x", "!"), ("!fight olaf", "!"),
    ("!mod login hunter2", "."), ("login hunter2", "!"), ("/roll d100", "!"),
])
def test_other_lines_are_not_secrets(text: str, prefix: str) -> None:
    assert not is_secret(text, prefix)


def test_a_login_follows_the_nick_by_the_networks_casemapping() -> None:
    logins = Logins()
    logins.login("Boss[1]", "~b@b.host", "boss")
    assert logins.name("boss{1}", "~b@b.host") == "boss"  # rfc1459: one nick
    logins.remap("ascii")
    assert logins.name("boss{1}", "~b@b.host") is None  # ascii: another nick
    assert logins.name("BOSS[1]", "~b@b.host") == "boss"
    assert logins.name("BOSS[1]", "~b@elsewhere") is None  # another host ends it
    assert logins.name("BOSS[1]", "~b@b.host") is None
    logins.login("Boss[1]", "~b@b.host", "boss")
    logins.renamed("boss[1]", "Chief")  # a nick change ends it too: log in again
    assert logins.name("chief", "~b@b.host") is None
    assert logins.name("Boss[1]", "~b@b.host") is None


@pytest.mark.parametrize(("user_host", "counted_as"), [
    ("~a1@10.0.0.66", "10.0.0.66"), ("a2@10.0.0.66", "10.0.0.66"),  # any ident: one host
    ("x@Evil.Example", "evil.example"), ("oftc:~x@evil.example", "evil.example"),
    ("x@2001:db8:0:1:aa::5", "2001:db8:0:1::/64"), ("y@2001:db8:0:1:bb::9", "2001:db8:0:1::/64"),
    ("x@::ffff:10.0.0.66", "10.0.0.66"), ("x@fe80::1%eth0", "fe80::/64"), ("x@", ""),
])
def test_new_idents_from_one_host_are_counted_as_that_host(user_host: str,
                                                           counted_as: str) -> None:
    assert host_of(user_host) == counted_as


def test_each_wrong_password_past_the_free_ones_doubles_the_hosts_wait() -> None:
    logins, now = Logins(), 1000.0
    for _ in range(HOST_FREE - 1):
        logins.failed("10.0.0.66", now)
    assert logins.wait("10.0.0.66", now) is None
    waits = []
    for _ in range(4):
        logins.failed("10.0.0.66", now)
        wait = logins.wait("10.0.0.66", now)
        assert wait is not None and wait[0] == "host"
        waits.append(wait[1])
        now += wait[1]   # the attacker waits it out, and guesses again
    assert waits == [60.0, 120.0, 240.0, 480.0]
    assert logins.wait("10.0.0.9", now) is None   # another host is not held up


def test_guesses_from_many_hosts_meet_the_clubs_limit() -> None:
    logins, now = Logins(), 1000.0
    for host in range(CLUB_FREE):
        assert logins.wait(f"10.0.1.{host}", now) is None
        logins.failed(f"10.0.1.{host}", now)
    assert logins.wait("10.0.2.1", now) == ("club", 60.0)   # a fresh host waits too
    logins.succeeded("10.0.2.1")   # a right password forgets its host's, not the club's
    assert logins.wait("10.0.2.1", now + 59) == ("club", 1.0)
    assert logins.wait("10.0.2.1", now + 60) is None


def test_a_wait_is_said_in_seconds_then_minutes() -> None:
    assert [wait_words(s) for s in (0.2, 45, 59.5, 60, 61, 3600)] == [
        "1 s", "45 s", "60 s", "1 min", "2 min", "60 min"]


def test_no_login_is_kept_for_a_nick_that_shares_no_channel_now() -> None:
    logins = Logins()
    assert not logins.login("boss", "~b@b.host", "boss", shares=lambda nick: False)
    assert logins.name("boss", "~b@b.host") is None
    assert logins.login("boss", "~b@b.host", "boss", shares=lambda nick: nick == "boss")
    assert logins.name("boss", "~b@b.host") == "boss"
