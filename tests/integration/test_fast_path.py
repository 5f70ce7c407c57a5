"""Lines that need no storage (``!roll``, ``!help``, the refusal of an unknown command)
are answered on the event loop, with no hand-off to a lane, while SQLite says without
waiting that the club's settings kept are current (``PRAGMA data_version``); an ignore
taken back by another connection still holds at the very next line, and such an answer
never overtakes an earlier line of its channel still in a lane (bot/chat/lanes.py)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from club import Club, lines

from bot.chat.lanes import Lanes
from bot.messages import Incoming, Outgoing, Sender
from bot.referee import Referee


class Transport:
    """A referee behind :class:`Lanes`, as the IRC transport runs it (on a loop)."""

    def __init__(self, referee: Referee) -> None:
        self.referee, self.lanes = referee, Lanes()
        self.said: list[str] = []
        self.answers = 0
        """How many lines were answered (an answer may be no line at all)."""

    def line(self, text: str) -> list[str]:
        """Hand ``"[#chan] <nick> <text>"`` to the lanes; what was said at once."""
        channel = "#arena"
        if text.startswith("#"):
            channel, text = text.split(" ", 1)
        nick, text = text.split(" ", 1)
        before = len(self.said)
        msg = Incoming(sender=Sender(nick=nick, account=nick), text=text, channel=channel)
        self.lanes.line(self.referee, msg, lambda call: call(), self._deliver)
        return self.said[before:]

    def _deliver(self, out: list[Outgoing]) -> None:
        self.answers += 1
        self.said += lines(out)

    async def answer(self, text: str) -> list[str]:
        """:meth:`line`, then its answer, waited for (at most 10 s)."""
        before, answers = len(self.said), self.answers
        self.line(text)
        for _ in range(1000):
            if self.answers > answers:
                break
            await asyncio.sleep(0.01)
        return self.said[before:]


def test_roll_help_and_a_refusal_are_answered_with_no_hand_off(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.dice.push(3, 4, 5)

    async def scenario() -> None:
        bot = Transport(club.referee)
        try:
            assert await bot.answer("ann !roll 1d6") == ["#arena ann rolls 1d6 = [3] = 3"]
            handed = bot.lanes.handed_off   # the first line reads the club's version
            assert bot.line("ann !roll 1d6") == ["#arena ann rolls 1d6 = [4] = 4"]
            assert bot.line("ann !help roll")[0].startswith("#arena ann: !roll <dice>")
            assert bot.line("ann !frobnicate") == [
                "#arena ann: I don't know !frobnicate; !help lists the commands"]
            assert bot.lanes.handed_off == handed <= 1
            created = await bot.answer("ann !create Gorbag goblin club spear")
            assert created[0].startswith("#arena ann: created Gorbag (goblin"), created
            assert bot.lanes.handed_off == handed + 1   # a writer: the records lane
        finally:
            bot.lanes.close()

    asyncio.run(scenario())


def test_an_ignore_taken_back_on_another_connection_holds_at_the_next_line(
    tmp_path: Path,
) -> None:
    """As ``test_two_bots``'s on PostgreSQL: a moderator of the north takes back the
    ignore of ``troll``, who plays on the south; the south answers his very next line."""
    database = f"sqlite:///{tmp_path / 'club.sqlite3'}"
    north = Club(tmp_path / "n", database=database, network="north")
    south = Club(tmp_path / "s", database=database, network="south")
    south.dice.push(2, 5, 6, 1)

    async def scenario() -> None:
        bot = Transport(south.referee)
        try:
            assert await bot.answer("puck !roll d6") == ["#arena puck rolls d6 = [2] = 2"]
            assert north.say("mod !mod ignore troll spam")[0].startswith(
                "#arena mod: ignoring troll")
            handed = bot.lanes.handed_off
            assert await bot.answer("troll !roll d6") == []   # read again: ignored
            assert bot.lanes.handed_off == handed + 1
            assert bot.line("puck !roll d6") == ["#arena puck rolls d6 = [5] = 5"]  # at once
            assert "no longer ignored" in north.say("mod !mod unignore troll ok")[0]
            assert await bot.answer("troll !roll d6") == ["#arena troll rolls d6 = [6] = 6"]
            assert bot.lanes.handed_off == handed + 2   # the north's commit was seen
            assert bot.line("troll !roll d6") == ["#arena troll rolls d6 = [1] = 1"]
        finally:
            bot.lanes.close()

    asyncio.run(scenario())


def test_a_roll_waits_behind_its_channels_line_in_a_lane_not_another_channels(
    tmp_path: Path,
) -> None:
    club = Club(tmp_path)
    club.dice.push(3, 4, 4)

    async def scenario() -> None:
        bot, go = Transport(club.referee), threading.Event()
        try:
            await bot.answer("ann !roll d6")   # the club's version read

            def held() -> None:   # the records lane busy meanwhile
                go.wait(10)

            bot.lanes.run(True, held, lambda _out: None)
            assert bot.line("ann !create Gorbag goblin club spear") == []   # waits
            assert bot.line("ann !roll d6") == []   # behind it, in a lane
            for _ in range(1000):   # the talk lane's read done (else the loop's check,
                if bot.answers == 2:   # which never waits for its lock, sends bob there)
                    break
                await asyncio.sleep(0.01)
            assert bot.line("#pit bob !roll d6") == ["#pit bob rolls d6 = [4] = 4"]
            go.set()
            for _ in range(1000):
                if bot.answers == 4:
                    break
                await asyncio.sleep(0.01)
            assert bot.said[1] == "#arena ann rolls d6 = [4] = 4", bot.said   # talk lane
            assert bot.said[3].startswith("#arena ann: created Gorbag (goblin"), bot.said
        finally:
            bot.lanes.close()

    asyncio.run(scenario())
