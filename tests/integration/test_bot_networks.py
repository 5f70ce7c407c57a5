"""Several referees on one club database, as several bot processes are (README, "Many
networks, many processes"), on every backend (``database_url``): each ``Club`` has its
own engine, network and channels.

Two networks' ``#ancath`` each hold a fight and a restart resumes each on its own
network; one network's channels split between two referees, neither touching the
other's; the club's settings and moderators, changed by one, counting in the other
from its next command; and a fight's network named in chat and on the pages once the
club has two.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from club import Club
from sqlalchemy.exc import OperationalError
from starlette.testclient import TestClient

from bot.config import ConfigError
from bot.irc.supervisor import IrcBot
from bot.messages import Incoming, Sender
from bot.web.app import make_app


def fight(club: Club, channel: str, a: str = "Olaf", b: str = "Gorbag") -> int:
    """``a`` (Free Clans) challenges ``b`` (a goblin) in ``channel`` and ``b``'s player
    accepts; the fight's number."""
    club.say(f"{channel} {b.lower()} !create {b} goblin club spear")
    club.say(f"{channel} {a.lower()} !create {a} free-clans broadsword shield")
    club.say(f"{channel} {a.lower()} !challenge {b}")
    club.dice.push(50, 40)
    accepted = club.say(f"{channel} {b.lower()} !accept")
    assert accepted[0].startswith(f"{channel} Practice fight: {a} ({a.lower()}) vs {b}"), accepted
    number = club.referee.tables.table(channel).last_fight_id
    assert number is not None
    return number


def test_two_networks_each_have_a_fight_open_in_their_ancath(
    tmp_path: Path, database_url: str,
) -> None:
    alpha = Club(tmp_path / "alpha", database=database_url, network="alpha")
    beta = Club(tmp_path / "beta", database=database_url, network="beta")
    first = fight(alpha, "#ancath")
    second = fight(beta, "#ancath", "Bran", "Snaga")
    assert alpha.say("#ancath mod !mod rolls manual") == [
        "#ancath mod: rolls in #ancath are now manual"]
    alpha.say("#yard aed !create Aed free-clans axe shield")
    beta.say("#yard conn !create Conn goblin axe shield")
    alpha.say("#yard aed !challenge Conn")
    beta.say("#yard conn !challenge Aed")

    for club, mine in ((alpha, first), (beta, second)):
        assert club.restart() == []
        assert [f.id for f in club.referee.store.open_fights()[0]] == [mine]
        assert club.referee.tables.table("#ancath").fight.id == mine   # type: ignore[union-attr]
    assert alpha.referee.settings.rolls_mode("#ancath") == "manual"
    assert beta.referee.settings.rolls_mode("#ancath") == "auto"
    assert alpha.referee.tables.table("#yard").challenge.challenger == "Aed"   # type: ignore[union-attr]
    assert beta.referee.tables.table("#yard").challenge.challenger == "Conn"   # type: ignore[union-attr]
    assert alpha.referee.store.setting("rolls:alpha:#ancath") == "manual"

    assert beta.say(f"ann !fight {first}")[0].endswith("ongoing in #ancath on alpha")
    history = alpha.say("ann !history Snaga")
    assert history[0].startswith(f"#arena ann: Snaga's fights: fight #{second} ")
    assert history[0].endswith(" practice vs Bran: ongoing in #ancath on beta")


def test_one_network_split_between_two_referees(tmp_path: Path, database_url: str) -> None:
    """East serves #east, west serves #west and #quiet: each resumes and answers only
    its own channels; the warriors are the club's, so a warrior fighting in #east
    cannot be challenged in #west."""
    east = Club(tmp_path / "east", database=database_url, channels=("#East",))
    west = Club(tmp_path / "west", database=database_url, channels=("#west", "#quiet"))
    mine = fight(east, "#east")
    theirs = fight(west, "#west", "Bran", "Snaga")
    west.say("#quiet ulf !create Ulf free-clans axe shield")
    west.say("#quiet aed !create Aed goblin axe shield")
    assert west.say("#quiet ulf !challenge Olaf") == ["#quiet ulf: Olaf is already in a fight"]
    assert west.say("#quiet ulf !challenge Aed")[0].startswith("#quiet Aed, Ulf challenges")

    assert east.say("#west bran !status") == []   # not east's channel: not a word
    assert east.say("#quiet mod !mod rolls manual") == []
    assert west.say("#west bran !status")[0].startswith("#west ")

    east.restart()
    west.restart()
    assert sorted(east.referee.tables) == ["#east"]
    assert east.referee.tables.table("#east").fight.id == mine   # type: ignore[union-attr]
    assert sorted(west.referee.tables) == ["#quiet", "#west"]
    assert west.referee.tables.table("#west").fight.id == theirs   # type: ignore[union-attr]
    assert west.referee.tables.table("#quiet").challenge is not None
    assert west.referee.store.setting("rolls:default:#quiet") is None


def test_settings_and_moderators_changed_in_one_referee_count_in_the_other(
    tmp_path: Path, database_url: str,
) -> None:
    """Club-wide, across networks: each change is seen by the other referee at its next
    command, whichever lane that command runs on."""
    one = Club(tmp_path / "one", database=database_url, network="alpha")
    two = Club(tmp_path / "two", database=database_url, network="beta")
    assert two.say("puck !create Puck fairy shortsword lajatang")[0].startswith(
        "#arena puck: Fairy Folk")
    one.say("mod !mod fairy open festival")
    assert two.say("puck !create Puck fairy shortsword lajatang")[0].startswith(
        "#arena puck: created Puck (fairy")

    assert one.say("mod !mod add carol runs the tourney") == [
        "#arena mod: carol is a moderator now (!mod remove carol <reason> takes it back)"]
    assert two.say("carol !mod rolls manual") == ["#arena carol: rolls in #arena are now manual"]
    one.say("mod !mod remove carol tourney over")
    assert "moderators" in two.say("carol !mod rolls auto")[0]
    assert two.referee.settings.rolls_mode("#arena") == "manual"
    assert one.referee.settings.rolls_mode("#arena") == "auto"   # the channel of another network

    one.say("mod !mod ignore spammer bots")
    assert two.say("spammer !roll d6") == []   # a reading command
    assert two.say("spammer !create Spam goblin club spear") == []   # a writing one
    two.say("mod !mod unignore spammer sorry")
    one.dice.push(4)
    assert one.say("spammer !roll d6") == ["#arena spammer rolls d6 = [4] = 4"]


def test_two_moderators_ignoring_at_once_in_two_referees_both_count(
    tmp_path: Path, database_url: str,
) -> None:
    """The second ignore's referee last read the list before the first was added: its
    command reads the list again inside its own transaction, so it adds to it rather
    than write its old list back."""
    one = Club(tmp_path / "one", database=database_url)
    two = Club(tmp_path / "two", database=database_url)
    assert two.referee.settings.ignore_list() == []
    one.say("mod !mod ignore spammer bots")
    two.say("mod !mod ignore troll trolls")
    assert one.referee.store.setting("ignored") == ["spammer", "troll"]
    assert one.say("mod !mod list")[0].endswith("ignored: 2")


def test_the_pages_name_a_fights_network_once_the_club_has_two(
    tmp_path: Path, database_url: str,
) -> None:
    alpha = Club(tmp_path / "alpha", database=database_url, network="alpha")
    first = fight(alpha, "#ancath")
    pages = TestClient(make_app(alpha.referee.store))
    assert "<dd>#ancath</dd>" in pages.get(f"/fights/{first}").text   # one network: no name
    beta = Club(tmp_path / "beta", database=database_url, network="beta")
    second = fight(beta, "#ancath", "Bran", "Snaga")
    assert "<dd>#ancath on alpha</dd>" in pages.get(f"/fights/{first}").text
    listed = pages.get("/fights").text
    assert '<td data-label="Channel">#ancath on alpha</td>' in listed
    assert '<td data-label="Channel">#ancath on beta</td>' in listed
    assert beta.say(f"ann !fight {second}")[0].endswith("ongoing in #ancath on beta")


def test_a_writer_never_waits_for_the_reading_lanes_refresh(tmp_path: Path,
                                                            database_url: str) -> None:
    """A writing command holds the club's write lock, which every process waits for: it
    reads the settings on its own transaction, never behind a slow read of the reading
    lane (held here for the whole command)."""
    club = Club(tmp_path, database=database_url)
    one = Club(tmp_path / "one", database=database_url, network="alpha")
    one.say("mod !mod fairy open festival")   # the version moved: the writer reads all
    answers: list[str] = []
    with club.referee.settings._refreshing:
        writer = threading.Thread(target=lambda: answers.extend(
            club.say("puck !create Puck fairy shortsword lajatang")))
        writer.start()
        writer.join(timeout=30)
        assert not writer.is_alive(), "the writer waited for the reading lane"
    assert answers[0].startswith("#arena puck: created Puck (fairy"), answers


def test_reading_commands_answer_while_the_database_cannot_be_read(
    tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``!roll`` and ``!help`` need no records: a failed read of the club's version keeps
    the settings as last read (logged), and they answer."""
    club = Club(tmp_path, database=database_url)

    def down() -> int:
        raise OperationalError("SELECT version", None, Exception("connection refused"))

    monkeypatch.setattr(club.referee.settings, "_version", down)
    club.dice.push(4)
    assert club.say("ann !roll d6") == ["#arena ann rolls d6 = [4] = 4"]
    assert "settings were not read again" in caplog.text
    assert club.say("ann !create Gorbag goblin club spear")[0] == (
        "#arena ann: that went wrong on my side and changed nothing; a moderator can check "
        "the log")


def test_an_account_on_another_network_is_not_the_clubs_own(
    tmp_path: Path, database_url: str,
) -> None:
    """Accounts are a network's own: the first network an IRC bot starts on is the
    club's home, and on any other the IRC session names its ``olaf`` ``beta:olaf``
    (bot/irc/session.py), who neither owns the home network's Olaf nor moderates as its
    ``mod``; ``beta:mod`` in the config file does."""
    alpha = Club(tmp_path / "alpha", database=database_url, network="alpha")
    beta = Club(tmp_path / "beta", database=database_url, network="beta",
                moderators=("mod", "beta:mod"))
    assert alpha.referee.store.home_network("alpha") == "alpha"   # the first to start
    assert beta.referee.store.home_network("beta") == "alpha"
    fight(alpha, "#ancath")
    assert beta.say("#yard olaf !challenge Gorbag", account="beta:olaf") == [
        "#yard olaf: you have no warrior yet; make one with !create"]
    assert beta.say("#yard olaf !warriors", account="beta:olaf") == [
        "#yard olaf: olaf has no warriors; !create makes one"]
    assert beta.say("#yard mod !mod bp Olaf +1 a gift", account="beta:Mod") == [
        "#yard mod: Olaf: +1.0 BP recorded"]
    assert alpha.say("#yard mod !mod bp Olaf +1 a gift", account="beta:mod") == [
        "#yard mod: only moderators use !mod (by services account or host mask; without "
        "services: /msg <bot> !mod login <password>)"]


def test_the_first_irc_bot_names_the_home_network_and_a_config_must_agree(
    tmp_path: Path, database_url: str,
) -> None:
    """``home_network`` unset: the first IRC bot's network is the home; set, it must be
    the club's, or the bot does not start (one line, naming the fix)."""
    def irc_bot(network: str, home: str | None = None, shared: bool = False) -> IrcBot:
        club = Club(tmp_path / network, database=database_url, network=network,
                    channels=("#ancath",))
        assert club.config.irc is not None
        club.referee.config = club.config.model_copy(update={"home_network": home})
        bot = IrcBot(club.config.irc.model_copy(update={"shared_accounts": shared}),
                     club.referee)
        bot.lanes.close()
        return bot

    assert irc_bot("alpha").foreign_network is None                   # the first: the home
    beta = irc_bot("beta")
    identity = beta.referee.identity
    assert beta.foreign_network == identity.foreign_network == "beta"   # names typed there too
    assert irc_bot("gamma", home="alpha").foreign_network == "gamma"
    assert irc_bot("delta", shared=True).foreign_network is None      # the same people as alpha's
    with pytest.raises(ConfigError, match="the club's home network is alpha"):
        irc_bot("beta", home="beta")


def test_names_typed_on_another_network_are_that_networks(
    tmp_path: Path, database_url: str,
) -> None:
    """On a network that is not the club's home, a name typed in chat is that network's
    (``bob`` is ``beta:bob``), unless it names one; and a ``user@host`` ignore matches
    that network's ``user@host``."""
    alpha = Club(tmp_path / "alpha", database=database_url, network="alpha")
    beta = Club(tmp_path / "beta", database=database_url, network="beta",
                moderators=("beta:mod",), verified_idents=True)   # masks may be added
    beta.referee.identity.foreign_network = "beta"   # as its IRC bot sets it (the test above)
    alpha.say("#yard alice !create Astrid free-clans axe shield")

    def said(line: str, account: str | None = None) -> list[str]:
        nick = line.split()[1]
        return beta.say(line, account=account or f"beta:{nick}")

    assert said("#yard mod !mod add bob regular") == [
        "#yard mod: beta:bob is a moderator now (!mod remove beta:bob <reason> takes it back)"]
    assert said("#yard bob !mod list")[0].startswith("#yard bob: moderators in the config")
    assert said("#yard bob !mod list", account="bob")[0].endswith(
        "only moderators use !mod (by services account or host mask; without services: "
        "/msg <bot> !mod login <password>)")
    assert said("#yard mod !mod ignore spammer floods") == [
        "#yard mod: ignoring beta:spammer: I take no command from them and say nothing to "
        "them"]
    assert said("#yard spammer !warriors") == []
    assert said("#yard spammer !warriors", account="spammer") != []   # the home's spammer
    assert said("#yard mod !mod ignore * everyone") == [
        "#yard mod: beta:* would ignore everyone; name an account or a narrower mask"]
    assert said("#yard mod !mod ignore ~sp@spam.host floods")[0].startswith(
        "#yard mod: ignoring beta:~sp@spam.host")
    host = Sender(nick="sp", mask="beta:sp!~sp@spam.host", host="beta:~sp@spam.host")
    assert beta.referee.handle(Incoming(sender=host, text="!warriors", channel="#yard")) == []
    assert said("#yard mod !mod add bob!b@2001:db8::5 regular")[0].startswith(
        "#yard mod: beta:bob!b@2001:db8::5 is a moderator now")   # an IPv6 host's ':'
    assert said("#yard mod !mod add libera:bob regular")[0].startswith(
        "#yard mod: libera:bob is a moderator now")   # named with its network: as written
    assert said("#yard mod !mod unignore spammer sorry") == [
        "#yard mod: beta:spammer is no longer ignored"]
    assert said("#yard carl !warriors alice") == [
        "#yard carl: alice has no warriors; !create makes one"]   # beta:alice, not Astrid's
    assert said("#yard carl !warriors alpha-only:alice") == [
        "#yard carl: alpha-only:alice has no warriors; !create makes one"]
