"""The coin duel of :mod:`toy_system` through the referee: a system the bot has never
seen makes its fighters with ``!create`` and plays from challenge to ledger anchor once
it is in the registries."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from toy_system import TOY

from bot.app import commands_for
from bot.systems.registry import PLUGINS
from rules.systems import SYSTEMS

INTEGRATION = str(Path(__file__).resolve().parents[1] / "integration")
if INTEGRATION not in sys.path:
    sys.path.insert(0, INTEGRATION)

from club import Club  # noqa: E402  (tests/integration/club.py)


@pytest.fixture
def club(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Club]:
    """A club whose bot knows the coin duel: one entry in each registry."""
    monkeypatch.setitem(SYSTEMS, TOY.system.name, TOY.system)
    monkeypatch.setitem(PLUGINS, TOY.system.name, TOY)
    club = Club(tmp_path)
    club.referee.commands = commands_for(PLUGINS.values())
    assert club.say("al !create Heads toy") == ["#arena al: created Heads (Coin duel, al): free"]
    assert club.say("bo !create Tails toy") == ["#arena bo: created Tails (Coin duel, bo): free"]
    yield club


def test_the_coin_duel_creates_and_describes_its_duellists(club: Club) -> None:
    assert club.say("al !create Edge toy up") == ["#arena al: usage: !create <name> toy"]
    assert club.say("ann !sheet tails") == ["#arena ann: Tails (Coin duel, bo): free"]
    assert club.say("ann !warriors al") == ["#arena ann: al: Heads (toy, free)"]
    assert club.say("ann !create Heads toy") == ["#arena ann: the name Heads is taken"]
    record = club.referee.store.warrior("Heads")
    assert (record.system, record.owner) == ("toy", "al")
    assert TOY.fighters.show(record) == {
        "name": "Heads", "owner": "al", "system": "toy", "status": "free", "captor": None}


def test_a_coin_duel_from_challenge_to_the_end(club: Club) -> None:
    assert club.say("al !challenge Tails") == [
        "#arena Tails, Heads challenges you to a toy fight: bo may !accept or !decline."]
    assert club.say("bo !accept") == ["#arena Heads (al), call: !flip | !yield"]
    assert club.say("al !attack") == [
        "#arena al: !attack is not a move in a Coin duel fight; !status shows yours"]
    assert club.say("bo !flip") == ["#arena bo: the coin waits for Heads"]
    assert club.say("al !flip") == ["#arena Heads calls the coin. Tails (bo), call: !flip | !yield"]
    assert club.say("al !status") == ["#arena Call 1. Tails (bo), call: !flip | !yield"]
    club.dice.push(2)
    assert club.say("bo !flip") == [
        "#arena Tails calls the coin. The coin lands tails. Tails wins by coin. ledger #3 <mac>"]
    assert club.referee.store.verify() == [] and club.dice.left == 0


def test_the_coin_duel_has_help(club: Club) -> None:
    assert club.say("ann !help flip") == [
        "#arena ann: !flip: Call the coin; a d2 decides when both have."]


def test_a_moderator_undoes_a_call_and_ends_the_duel(club: Club) -> None:
    club.say("al !challenge Tails")
    club.say("bo !accept")
    club.say("al !flip")
    assert club.say("mod !mod undo al misclicked") == [
        "#arena Undone: Heads's flip (al misclicked). Heads (al), call: !flip | !yield"]
    assert club.say("mod !mod end draw both left") == [   # after the undo's row, #3
        "#arena mod ends the fight: both left. The fight is a draw. ledger #4 <mac>"]
