"""Running the club by moderators (issue 12, R8.2), as chat transcripts: names compared
by the network's casemapping, moderators added and removed in chat (ledger rows), the
ignore list, and each channel's time limit and ``!odds`` audience."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from club import Club

from bot.messages import Incoming, Sender

MOD_REFUSED = "only moderators use !mod"


def club_of(tmp_path: Path, *moderators: str) -> Club:
    """Masks name moderators here: the network verifies idents (``irc.verified_idents``)."""
    club = Club(tmp_path, moderators=moderators or ("boss",), verified_idents=True)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    return club


def fight(club: Club) -> None:
    """Olaf challenges Gorbag; Olaf wins the initiative (50 to 40) and acts first."""
    club.say("olaf !challenge Gorbag")
    club.dice.push(50, 40)
    club.say("gob !accept")
    club.say("olaf !first")


def masked(club: Club, mask: str, text: str, account: str | None = None) -> list[str]:
    """A line from ``mask`` (``nick!user@host``), logged in as ``account`` or not."""
    nick, user_host = mask.split("!", 1)
    sender = Sender(nick=nick, account=account, mask=mask, host=user_host)
    return club._lines(club.referee.handle(Incoming(sender=sender, text=text,
                                                    channel="#arena")))


# -- casemapping ----------------------------------------------------------------------------


def test_moderator_names_compare_by_the_networks_casemapping(tmp_path: Path) -> None:
    club = club_of(tmp_path, "Alice", "[Boss]", "Chief!chief@Staff.Example.ORG")
    assert club.say("alice !mod fairy open") == ["#arena alice: Fairy Folk creation is open"]
    # rfc1459, until the network says otherwise: [ ] \ ~ fold to { } | ^
    assert club.say("boss !mod fairy close", account="{boss}") == [
        "#arena boss: Fairy Folk creation is closed"]
    assert masked(club, "CHIEF!chief@staff.example.org", "!mod fairy open") == [
        "#arena CHIEF: Fairy Folk creation is open"]
    assert MOD_REFUSED in masked(club, "chief!Chief@staff.example.org", "!mod fairy open")[0]
    club.referee.casemapping = "ascii"  # the network's ISUPPORT says CASEMAPPING=ascii
    assert MOD_REFUSED in club.say("boss !mod fairy close", account="{boss}")[0]
    assert club.say("boss !mod fairy close", account="[BOSS]") == [
        "#arena boss: Fairy Folk creation is closed"]


# -- moderators added in chat ------------------------------------------------------------------


def test_a_file_moderator_adds_and_removes_moderators_at_once(tmp_path: Path) -> None:
    club = club_of(tmp_path)
    assert MOD_REFUSED in club.say("carol !mod bp Gorbag +1.0 prize")[0]
    assert club.say("boss !mod add Carol runs the Tuesday tourney") == [
        "#arena boss: Carol is a moderator now (!mod remove Carol <reason> takes it back)"]
    assert club.say("carol !mod bp Gorbag +1.0 prize") == ["#arena carol: Gorbag: +1.0 BP recorded"]
    row = club.referee.store.ledger()[-2]
    assert (row["entry"], row["warrior"], row["actor"], row["reason"]) == (
        "moderator-added", None, "boss", "runs the Tuesday tourney")
    # the config file stays the root
    assert club.say("carol !mod add dave pal") == [
        "#arena carol: only a moderator in the config file adds or removes moderators"]
    assert club.say("carol !mod remove boss coup") == [
        "#arena carol: only a moderator in the config file adds or removes moderators"]
    assert club.say("boss !mod remove BOSS oops") == [
        "#arena boss: BOSS is in the config file: remove them there and restart me"]
    assert club.say("boss !mod add carol again") == [
        "#arena boss: carol is a moderator already; !mod list names them"]
    assert club.say("boss !mod list") == [
        "#arena boss: moderators in the config file: boss; added in chat: Carol; ignored: 0"]
    club.restart()  # kept in the records
    assert club.say("carol !mod fairy open") == ["#arena carol: Fairy Folk creation is open"]
    assert club.say("boss !mod remove carol tourney over") == [
        "#arena boss: Carol is no longer a moderator"]
    assert MOD_REFUSED in club.say("carol !mod fairy close")[0]
    club.restart()
    assert MOD_REFUSED in club.say("carol !mod fairy close")[0]
    assert club.say("boss !mod remove carol again") == [
        "#arena boss: carol is not a moderator added in chat; !mod list names them"]
    assert club.referee.store.verify() == []


def test_only_accounts_and_verified_masks_are_added_and_masks_stay_private(
    tmp_path: Path,
) -> None:
    club = club_of(tmp_path)
    assert club.say("boss !mod add *!*@example.org wide") == [
        "#arena boss: a moderator is a services account or an exact nick!user@host mask"]
    assert club.say("boss !mod add eve!~eve@10.0.0.1 ident") == [
        "#arena boss: eve!~eve@10.0.0.1: a '~' before the user is unverified, anyone on "
        "that host can take it; add a services account or a verified mask"]
    assert club.say("boss !mod add carol") == [
        "#arena boss: usage: !mod add <account|nick!user@host> <reason>"]
    club.say("boss !mod add dan!dan@dan.example.org no services there")
    assert masked(club, "Dan!dan@DAN.example.org", "!mod fairy open") == [
        "#arena Dan: Fairy Folk creation is open"]
    assert club.say("boss !mod list") == [
        "#arena boss: moderators in the config file: boss; added in chat: 1 by host mask; "
        "ignored: 0"]
    assert club.pm("boss !mod list") == [
        "boss moderators in the config file: boss; added in chat: dan!dan@dan.example.org; "
        "ignored: none"]


def test_a_moderator_row_written_without_the_key_makes_no_moderator(tmp_path: Path) -> None:
    club = club_of(tmp_path)
    club.say("boss !mod add carol helps")
    with sqlite3.connect(club.db) as db:  # a database writer without the ledger key
        prev, = db.execute("select hash from ledger order by id desc limit 1").fetchone()
        db.execute("insert into ledger (id, warrior_id, entry, bp, spent, detail, actor, "
                   "reason, created_at, prev_hash, hash, key_id) select max(id) + 1, null, "
                   "'moderator-added', 0, 0, ?, 'boss', 'x', '', ?, ?, key_id from ledger",
                   (json.dumps({"name": "mallory"}), prev, "0" * 64))
    club.restart()
    assert MOD_REFUSED in club.say("mallory !mod fairy open")[0]
    # the ledger fails its check at the start: until it is mended, only the config file's
    # moderators rule (a deleted row could have been carol's removal)
    assert MOD_REFUSED in club.say("carol !mod list")[0]
    assert club.say("boss !mod list") == [
        "#arena boss: moderators in the config file: boss; added in chat: suspended while "
        "the ledger fails its check (!audit); ignored: 0"]
    assert any("written without the key" in problem for problem in club.referee.store.verify())


# -- the ignore list ---------------------------------------------------------------------------


def test_the_bot_ignores_whom_a_moderator_names_and_never_a_moderator(tmp_path: Path) -> None:
    club = club_of(tmp_path)
    assert club.say("boss !mod ignore Spam floods the channel") == [
        "#arena boss: ignoring Spam: I take no command from them and say nothing to them"]
    assert club.say("spam !roll d6") == []
    assert club.say("spam !help") == []
    assert club.say("spammer !help") != []   # an account, not a prefix
    assert club.say("boss !mod ignore *!*@*.bad.example bots") != []
    assert masked(club, "x!y@host.BAD.example", "!help") == []
    assert masked(club, "x!y@host.bad.example", "!help", account="boss") != []  # a moderator
    assert club.say("boss !mod ignore boss test") == [
        "#arena boss: boss is a moderator, and moderators are never ignored"]
    assert club.say("boss !mod ignore *!*@* all") == [
        "#arena boss: *!*@* would ignore everyone; name an account or a narrower mask"]
    assert club.say("boss !mod ignore spam twice") == [
        "#arena boss: spam is ignored already; !mod unignore spam <reason> ends it"]
    assert club.say("boss !mod list") == [
        "#arena boss: moderators in the config file: boss; added in chat: none; ignored: 2"]
    club.restart()
    assert club.say("spam !roll d6") == []
    assert club.say("boss !mod unignore spam apologised") == [
        "#arena boss: Spam is no longer ignored"]
    club.dice.push(4)
    assert club.say("spam !roll d6") == ["#arena spam rolls d6 = [4] = 4"]
    assert club.say("boss !mod unignore spam again") == [
        "#arena boss: spam is not ignored; !mod list says how many are"]
    assert club.say("boss !mod add carol helps") != []
    assert club.say("carol !mod ignore spam again") != []   # any moderator ignores
    assert club.say("spam !help") == []


# -- per-channel settings ----------------------------------------------------------------------


def test_a_channels_time_limit_is_a_moderators(tmp_path: Path) -> None:
    club = club_of(tmp_path)
    assert club.say("boss !mod timelimit 4 quick tourney") == [
        "#arena boss: the time to decide in #arena is now 4 min, from the next decision"]
    assert club.say("boss !mod timelimit 0") == [
        "#arena boss: the time limit is in minutes, 1 to 1440 (or default)"]
    assert club.pm("boss !mod timelimit 4") == ["boss !mod works in a channel, not in private"]
    fight(club)
    assert club.wait(1) == []
    assert club.wait(1) == [
        "#arena Olaf (olaf) has 2 min left to act; then Gorbag (gob) may !claim the fight."]
    club.restart()  # the resumed fight keeps the channel's limit
    assert club.wait(2) == [
        "#arena Olaf (olaf) has 2 min left to act; then Gorbag (gob) may !claim the fight."]
    assert club.wait(2) == ["#arena Time is up for Olaf (olaf): Gorbag (gob) may !claim the fight."]
    assert club.say("boss !mod timelimit default") == [
        "#arena boss: the time to decide in #arena is now 10 min (the default), from the "
        "next decision"]
    club.say("ulf !create Ulf free-clans axe shield")
    club.say("grak !create Grak goblin club spear")
    club.say("#side ulf !challenge Grak")   # another channel: the config's limit
    assert club.wait(9) == []
    assert club.wait(1) == ["#side Ulf's challenge to Grak has lapsed."]


def test_a_moderator_keeps_odds_for_the_fighters(tmp_path: Path) -> None:
    club = club_of(tmp_path)
    assert club.say("boss !mod odds fighters no coaching") == [
        "#arena boss: !odds in #arena is now for the fighters only"]
    refusal = ("#arena ann: in #arena only the fighters use !odds; for a matchup, /msg the "
               "bot !odds <warrior> vs <warrior>")
    assert club.say("ann !odds Olaf vs Gorbag") == [refusal]
    assert "Olaf vs Gorbag (practice)" in club.pm("bea !odds Olaf vs Gorbag")[0]
    assert "Olaf vs Gorbag (practice)" in club.say("#side cid !odds Olaf vs Gorbag")[0]
    fight(club)
    assert club.say("ann !odds") == [refusal]
    assert "Olaf's chances" in club.say("olaf !odds")[0]
    assert club.say("boss !mod odds everyone") == [
        "#arena boss: !odds in #arena is now for everyone"]
    club.clock.advance(60)
    assert "Olaf's chances" in club.say("ann !odds")[0]


def test_help_names_each_ruling_in_one_line(tmp_path: Path) -> None:
    club = club_of(tmp_path)
    (line,) = club.say("ann !help mod")
    assert "timelimit odds" in line and "!help mod <ruling> for one" in line
    assert club.say("ann !help mod ignore") == [
        "#arena ann: !mod ignore <account|mask> <reason>: take no command from them and say "
        "nothing to them (* and ? in a mask; never a moderator)"]
    assert club.say("ann !help mod nope") == ["#arena ann: no !mod nope; !help mod lists them"]
    (usage,) = club.say("boss !mod")
    assert usage.startswith("#arena boss: usage: !mod <ruling> ...; rulings: login undo")
