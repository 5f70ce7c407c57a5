"""Who is logged in as whom, and who shares which channel with the bot."""

from __future__ import annotations

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
