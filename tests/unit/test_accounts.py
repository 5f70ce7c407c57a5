"""Who is logged in as whom, who shares which channel with the bot, and who is behind
which nick: nicks and channels compared by the network's casemapping."""

from __future__ import annotations

from bot.identity.people import People
from bot.irc.accounts import Accounts, Members


def test_an_account_follows_its_nick_and_is_gone_when_logged_out() -> None:
    accounts = Accounts()
    accounts.set("Al", "AliceAcct")
    assert accounts.get("al") == "AliceAcct"
    accounts.renamed("AL", "alice")
    assert accounts.get("Al") is None and accounts.get("Alice") == "AliceAcct"
    for logged_out in ("*", "0", "", None):
        accounts.set("bo", "BoAcct")
        accounts.set("bo", logged_out)
        assert accounts.get("bo") is None
    accounts.forget("alice")
    assert accounts.get("alice") is None
    accounts.set("cy", "CyAcct")
    accounts.clear()
    assert accounts.get("cy") is None


def test_a_nick_is_gone_when_it_leaves_the_last_shared_channel() -> None:
    members = Members()
    members.joined("Al", "#A")
    members.joined("al", "#b")
    assert not members.left("AL", "#a")
    assert members.left("al", "#B")
    members.joined("bo", "#a")
    members.renamed("bo", "Bob")
    assert members.left("bob", "#a")


def test_when_the_bot_leaves_a_channel_those_it_shares_nothing_else_with_go() -> None:
    members = Members()
    members.joined("al", "#a")
    members.joined("bo", "#a")
    members.joined("bo", "#b")
    assert members.channel_gone("#a") == ["al"]
    members.quit("bo")
    assert members.channel_gone("#b") == []


def test_nicks_and_channels_fold_by_the_networks_casemapping() -> None:
    accounts, members = Accounts(), Members()  # rfc1459 until the network says
    accounts.set("Nick[a]", "olaf")
    assert accounts.get("nick{a}") == "olaf"
    members.joined("Nick[a]", "#Foo[1]")
    members.joined("nick{a}", "#foo{1}")
    assert members.left("NICK{A}", "#FOO[1]")  # one person, one channel
    ascii_accounts, ascii_members = Accounts("ascii"), Members("ascii")
    ascii_accounts.set("Nick[a]", "olaf")
    assert ascii_accounts.get("nick{a}") is None and ascii_accounts.get("NICK[A]") == "olaf"
    ascii_members.joined("Nick[a]", "#Foo[1]")
    assert ascii_members.left("nick{a}", "#Foo[1]")  # someone else, in no channel
    assert not ascii_members.left("Nick[a]", "#foo{1}")  # another channel
    assert ascii_members.left("Nick[a]", "#FOO[1]")


def test_what_is_kept_is_folded_again_when_the_mapping_changes() -> None:
    accounts, members = Accounts(), Members()
    accounts.set("Nick[a]", "olaf")
    members.joined("Nick[a]", "#Foo[1]")
    members.joined("Nick[a]", "#foo{1}")  # the same channel under rfc1459
    accounts.remap("ascii")
    members.remap("ascii")
    assert accounts.get("nick{a}") is None and accounts.get("nick[a]") == "olaf"
    assert members.left("nick[a]", "#foo{1}")  # kept once, as last spelt


def test_people_name_one_person_by_either_spelling_under_rfc1459() -> None:
    people = People()
    people.saw("Nick[a]", "olaf")
    assert people.identity("nick{a}") == "olaf" and people.nick("olaf") == "Nick[a]"
    people.gone("NICK{A}")
    assert people.identity("Nick[a]") is None and people.nick("olaf") is None
    ascii = People("ascii")
    ascii.saw("Nick[a]", "olaf")
    ascii.saw("nick{a}", "bo")
    assert ascii.identity("NICK[A]") == "olaf" and ascii.identity("nick{a}") == "bo"
    ascii.gone("nick{a}")
    assert ascii.nick("olaf") == "Nick[a]"
    people.saw("Nick[a]", "olaf")
    people.remap("ascii")
    assert people.identity("nick{a}") is None and people.identity("nick[a]") == "olaf"
