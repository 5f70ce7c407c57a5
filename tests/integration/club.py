"""A club for bot transcript tests: a real SQLite file, scripted dice, a fake clock,
and the referee behind a fake transport that records every line it would send.

    club = Club(tmp_path)
    club.dice.push(50, 40)            # the next rolls the bot makes
    club.say("olaf !challenge Gorbag")
    assert club.last() == "#arena Gorbag, Olaf challenges you ..."

``say`` takes ``"<nick> <text>"`` (default channel ``#arena``) or ``"#chan <nick>
<text>"``, like the console, and returns the lines sent, as ``"<target> <text>"``, split
as IRC would split them (the budget before the bot knows its own prefix), so a test
that compares lists counts the lines a command costs. ``!odds`` simulations run in the
caller's thread, so their answers (``OddsRequests.deliver_answers``) are ready at once
and come in what ``say`` returns. A fight's closing line ends with its ledger anchor,
``ledger #<row> <mac>``; the MAC depends on the club's random key, so the lines say
``<mac>`` for it (``test_ledger_trust`` checks real anchors).

Several clubs may share one database as processes do (``database`` a URL, each with its
``network`` and its ``channels``, as ``irc.channels`` lists them). ``verified_idents``
is ``irc.verified_idents``: host masks name moderators only with it.
"""

from __future__ import annotations

import re
from pathlib import Path

from bot.app import build_referee
from bot.clock import FakeClock
from bot.config import BotConfig, IrcConfig
from bot.dice import ScriptedDice
from bot.messages import Incoming, Outgoing, Sender
from bot.odds.worker import InlineExecutor
from bot.referee import Referee
from bot.safe_text import split_utf8
from rules.ancath.sheet import Sheet

__all__ = ["Club", "lines"]

_MAC = re.compile(r"(ledger #\d+) [0-9a-f]{16}\b")


def lines(out: list[Outgoing]) -> list[str]:
    """``"<target> <text>"`` per line as the IRC transport would send them (a ledger
    anchor's MAC as ``<mac>``)."""
    return [_MAC.sub(r"\1 <mac>", f"{o.target} {piece}")
            for o in out for piece in split_utf8(o.text, fit=o.fit)]


class Club:
    def __init__(self, tmp_path: Path, *, moderators: tuple[str, ...] = ("mod",),
                 rolls: str = "auto", timeout_minutes: float = 10,
                 fairy: bool = False, odds_ahead: bool = False, database: str | None = None,
                 network: str = "default", channels: tuple[str, ...] = (),
                 verified_idents: bool = False) -> None:
        self.db = database or str(tmp_path / "club.sqlite3")
        irc = IrcConfig(server="irc.example.org", channels=list(channels),
                        verified_idents=verified_idents) \
            if channels or verified_idents else None
        self.config = BotConfig(database=self.db, moderators=list(moderators), rolls=rolls,
                                turn_timeout_minutes=timeout_minutes, fairy_folk_open=fairy,
                                network=network, irc=irc)
        self.dice = ScriptedDice([])
        self.clock = FakeClock()
        self.sent: list[str] = []
        self.odds_ahead = odds_ahead
        self._later: list[Outgoing] = []
        self.referee = self._referee()

    def _referee(self) -> Referee:
        referee = build_referee(self.config, dice=self.dice, clock=self.clock,
                                odds_workers=InlineExecutor(), odds_ahead=self.odds_ahead)
        referee.odds.deliver_answers = self._later.extend
        return referee

    def _lines(self, out: list[Outgoing]) -> list[str]:
        """``out`` and then the lines that came later, as ``"<target> <text>"``."""
        out, self._later[:] = out + self._later, []
        return lines(out)

    def restart(self) -> list[str]:
        """A new referee on the same database (as after a crash); returns problems."""
        self.referee = self._referee()
        return self.referee.store.open_fights()[1]

    def say(self, line: str, *, account: str | None = None, mask: str | None = None) -> list[str]:
        channel = "#arena"
        if line.startswith("#"):
            channel, line = line.split(" ", 1)
        nick, text = line.split(" ", 1)
        host = mask.split("!", 1)[1] if mask and "!" in mask else None
        sender = Sender(nick=nick, account=account if account is not None else nick, mask=mask,
                        host=host)
        said = self._lines(self.referee.handle(Incoming(sender=sender, text=text,
                                                        channel=channel)))
        self.sent += said
        return said

    def pm(self, line: str) -> list[str]:
        """A private message to the bot."""
        nick, text = line.split(" ", 1)
        return self._lines(self.referee.handle(Incoming(sender=Sender(nick=nick, account=nick),
                                                        text=text)))

    def wait(self, minutes: float) -> list[str]:
        """Let time pass and return what the referee says about it."""
        self.clock.advance(minutes * 60)
        said = self._lines(self.referee.tick())
        self.sent += said
        return said

    def last(self) -> str:
        return self.sent[-1] if self.sent else ""

    def warrior(self, name: str) -> dict[str, object]:
        record = self.referee.store.warrior(name)
        sheet = record.sheet_as(Sheet)
        return {"bp": sheet.bp, "spent": sheet.bp_spent,
                "status": sheet.status.value, "captor": record.captor,
                "skills": {s.value: v for s, v in sheet.skills.items()},
                "in_fight": record.in_fight}
