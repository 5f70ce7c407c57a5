"""The coin duel of :mod:`toy_system` through the referee: a system the bot has never
seen makes its fighters with ``!create`` and plays from challenge to ledger anchor once
it is in the registry: one registration, nothing rebuilt."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from toy_system import TOY

from bot.commands.registry import Ctx, Spec
from bot.systems.registry import SYSTEMS, UnknownSystem

INTEGRATION = str(Path(__file__).resolve().parents[1] / "integration")
if INTEGRATION not in sys.path:
    sys.path.insert(0, INTEGRATION)

from club import Club  # noqa: E402  (tests/integration/club.py)


@pytest.fixture
def club(tmp_path: Path) -> Iterator[Club]:
    """A club whose bot knows the coin duel: its one registration."""
    with SYSTEMS.registered(TOY):
        club = Club(tmp_path)
        assert club.say("al !create Heads toy") == [
            "#arena al: created Heads (Coin duel, al): free"]
        assert club.say("bo !create Tails toy") == [
            "#arena bo: created Tails (Coin duel, bo): free"]
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


def test_the_coin_duel_adds_its_create_words_to_the_help(club: Club) -> None:
    assert "Other rules: !help create contest|general|toy" in club.say("ann !help create")[0]


def _coin(ctx: Ctx) -> None:
    ctx.reply("a d2 decides: 1 heads, the challenger wins; 2 tails, the defender does")


def test_a_system_brings_its_own_command_by_its_plugin_alone(tmp_path: Path) -> None:
    coin = Spec("coin", "!coin", "What the coin's d2 means", _coin, reads_only=True)
    (tmp_path / "with").mkdir()
    with SYSTEMS.registered(replace(TOY, commands=(coin,))):
        club = Club(tmp_path / "with")
    assert club.say("ann !coin") == [
        "#arena ann: a d2 decides: 1 heads, the challenger wins; 2 tails, the defender does"]
    assert Club(tmp_path).say("ann !coin") == [
        "#arena ann: I don't know !coin; !help lists the commands"]


def test_the_odds_advisor_asks_the_plugin_and_knows_no_coin_duel(club: Club) -> None:
    assert [p.system.name for p in SYSTEMS if p.advised] == ["ancath"]
    club.say("al !challenge Tails")
    club.say("bo !accept")
    assert club.say("al !odds") == ["#arena al: the odds advisor knows An Cath fights only"]


def test_a_moderator_undoes_a_call_and_ends_the_duel(club: Club) -> None:
    club.say("al !challenge Tails")
    club.say("bo !accept")
    club.say("al !flip")
    assert club.say("mod !mod undo al misclicked") == [
        "#arena Undone: Heads's flip (al misclicked). Heads (al), call: !flip | !yield"]
    assert club.say("mod !mod end draw both left") == [   # after the undo's row, #3
        "#arena mod ends the fight: both left. The fight is a draw. ledger #4 <mac>"]


def test_the_registry_finds_a_system_by_name_or_label_and_names_the_known_ones() -> None:
    assert SYSTEMS.find("CONTEST") is SYSTEMS.find("Simple Contest") is SYSTEMS.plugins["contest"]
    with pytest.raises(UnknownSystem) as refused:
        SYSTEMS.find("toy")
    assert str(refused.value) == "no rules system 'toy'; systems: ancath, contest, general"
    with SYSTEMS.registered(TOY):
        assert SYSTEMS.find("Coin duel") is TOY and [p.label for p in SYSTEMS][-1] == "Coin duel"
        assert SYSTEMS.rules["toy"] is TOY.system   # what storage decodes the toy's rows by
    assert "toy" not in SYSTEMS.rules and len(SYSTEMS) == 3
