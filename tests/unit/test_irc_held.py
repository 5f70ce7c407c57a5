"""The lines held for a channel the bot is not in (bot/irc/held.py): a fight's lines and
ledger anchors are never dropped there; chatter is, newest first, each drop a WARNING."""

from __future__ import annotations

import logging

import pytest

from bot.irc.held import Held
from bot.messages import Outgoing, Priority


def anchor(text: str, channel: str = "#arena") -> Outgoing:
    """A line kept whole for its ledger anchor, as a fight's end is."""
    return Outgoing(channel, text, Priority.CHATTER, fit=lambda _n: text)


def test_past_its_bound_the_newest_chatter_goes_never_a_fight_line_or_an_anchor(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Review of issue 32: past the bound the OLDEST line went, whatever it was, so a
    fight's end with its ``ledger #N`` anchor could go while chatter stayed."""
    held = Held(3)
    end = anchor("Olaf wins by a kill. BP: Olaf +0.2, Gorbag +0.1. ledger #5 2f468e30a1b2c3d4")
    held.hold(end)
    held.hold(Outgoing("#arena", "Olaf (olaf) to act: !attack 25", Priority.FIGHT))
    held.hold(Outgoing("#arena", "ann: !top: 1. Olaf 3.2 BP"))
    held.hold(Outgoing("#arena", "bob: odds: Olaf 62%"))
    held.hold(Outgoing("#arena", "Gorbag (gob) to act: !dodge 30", Priority.FIGHT))
    assert caplog.messages == [
        "too many lines wait for their channel, dropped: bob: odds: Olaf 62%",
        "too many lines wait for their channel, dropped: ann: !top: 1. Olaf 3.2 BP"]
    for n in range(3):  # only fight lines: more than the bound, never dropped
        held.hold(Outgoing("#arena", f"fight line {n}", Priority.FIGHT))
    assert [line.text for line in held.release("#ARENA", "rfc1459")] == [
        end.text, "Olaf (olaf) to act: !attack 25", "Gorbag (gob) to act: !dodge 30",
        "fight line 0", "fight line 1", "fight line 2"]
    assert len(held) == 0


def test_a_channel_the_bot_is_out_of_keeps_its_fight_lines_and_drops_its_chatter(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Review of issue 32: every line for a channel the bot was kicked from (or refused,
    or whose JOIN had no answer) was dropped, a forfeit's anchor too. Now those wait for
    a later JOIN (a reconnect, an invite); chatter goes, counted in the log."""
    caplog.set_level(logging.WARNING)
    held = Held(200)
    held.hold(Outgoing("#side", "ann: !help: the commands"))  # before the refusal
    held.hold(Outgoing("#side", "Olaf (olaf) to act", Priority.FIGHT))
    held.hold(Outgoing("#arena", "bob: odds: Olaf 62%"))
    held.out_of({"#Side": "banned"}, "rfc1459")
    forfeit = anchor("Gorbag forfeits by the time limit. ledger #9 0123456789abcdef",
                     "#side")
    held.hold(forfeit, not_in="banned")
    held.hold(Outgoing("#side", "cid: !odds: no fight here"), not_in="banned")
    assert caplog.messages == [
        "not in #Side (banned): dropped 1 lines held for it, kept 1 fight lines until it "
        "is joined again",
        f"not in #side (banned): kept until it is joined again (2 lines wait): {forfeit.text}",
        "not in #side (banned), dropped: cid: !odds: no fight here"]
    assert [line.text for line in held.release("#side", "rfc1459")] == [
        "Olaf (olaf) to act", forfeit.text]
    assert [line.text for line in held.release("#arena", "rfc1459")] == [
        "bob: odds: Olaf 62%"]
