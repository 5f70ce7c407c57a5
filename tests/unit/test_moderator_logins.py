"""Moderator logins by password (R8.2) without a server: which chat lines are never
logged, and whose login a nick is by the network's casemapping."""

from __future__ import annotations

import pytest

from bot.chat.moderators import Logins, is_secret


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
    logins.renamed("boss[1]", "Chief")
    assert logins.name("chief", "~b@b.host") == "boss"
    assert logins.name("chief", "~b@elsewhere") is None  # another host ends it
    assert logins.name("Chief", "~b@b.host") is None
