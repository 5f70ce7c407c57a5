"""The ignore list is read once for a line from IRC: by the referee, fresh, for a
command the transport lets through (within its sender's pace); by the transport only
for a line it drops (past the pace: no slow-down line to someone ignored). Someone
ignored is still answered nowhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from club import Club, lines

from bot.clock import FakeClock
from bot.irc.pacing import Pace
from bot.irc.supervisor import IrcBot
from bot.messages import Incoming, Sender

SPAMMER = Sender(nick="spammer", account="spammer")


def test_a_line_from_someone_ignored_reads_the_ignore_list_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    club = Club(tmp_path, channels=("#arena",))
    club.say("mod !mod ignore spammer floods the channel")
    assert club.config.irc is not None
    bot = IrcBot(club.config.irc, club.referee)
    bot.admission.pace = Pace(2, 0.5, clock=FakeClock().now)   # two at once, then paced
    identity, reads = club.referee.identity, []
    ignored = identity.is_ignored
    monkeypatch.setattr(identity, "is_ignored",
                        lambda sender: reads.append(sender.nick) or ignored(sender))

    def spammer(text: str) -> list[str] | None:
        """What the bot answers ``spammer``'s line; None when the transport drops it."""
        msg = Incoming(sender=SPAMMER, text=text, channel="#arena")
        if not bot.admission.command(msg, club.config.command_prefix):
            return None
        return lines(club.referee.handle(msg))

    try:
        assert spammer("!roll d6") == []   # a reader: the referee reads the list
        assert reads == ["spammer"]
        assert spammer("!create Spam goblin club spear") == []   # a writer, in its unit
        assert reads == ["spammer"] * 2
        assert spammer("!roll d6") is None   # past the pace: the transport drops it
        assert reads == ["spammer"] * 3
        assert len(bot.outbox) == 0   # and says nothing to someone ignored
    finally:
        bot.lanes.close()
