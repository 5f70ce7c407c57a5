"""Every ``Example`` a command declares (its ``!help`` text) runs as a transcript test.

Each example plays its lines (``"<nick> <text>"`` in #arena) on a fresh club with its
dice scripted first; the bot's last reply must contain the example's ``expect``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bot.app import commands_for
from bot.commands.registry import Example
from bot.systems.registry import PLUGINS

INTEGRATION = str(Path(__file__).resolve().parents[1] / "integration")
if INTEGRATION not in sys.path:
    sys.path.insert(0, INTEGRATION)

from club import Club  # noqa: E402  (tests/integration/club.py)

REGISTRY = commands_for(PLUGINS.values())
SPECS = {spec.name: spec for spec in REGISTRY.values()}
"""One entry per command (aliases share their command's spec)."""

CASES = [
    pytest.param(example, id=f"{name}-{index}")
    for name, spec in sorted(SPECS.items())
    for index, example in enumerate(spec.examples)
]


def test_there_are_examples() -> None:
    assert len(CASES) >= 5


@pytest.mark.parametrize("example", CASES)
def test_help_example(tmp_path: Path, example: Example) -> None:
    club = Club(tmp_path)
    club.dice.push(*example.dice)
    replies: list[str] = []
    for line in example.lines:
        replies = club.say(line)
    assert replies, f"no reply to {example.lines[-1]!r}"
    assert example.expect in replies[-1]
    assert club.dice.left == 0, "the example scripts dice it never rolls"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_help_for_every_command_shows_its_usage(tmp_path: Path, name: str) -> None:
    spec = REGISTRY[name]
    replies = Club(tmp_path).say(f"ann !help {name}")
    assert len(replies) == 1, replies
    reply = " ".join(r.removeprefix("#arena ") for r in replies)
    assert reply.replace(" | Example:", " Example:").startswith(
        f"ann: {spec.usage}: {spec.summary}".replace(" | Example:", " Example:"))
    if spec.examples:
        # split between words, never inside the example: it is whole on the last line
        example = "Example: " + spec.examples[0].lines[-1].split(" ", 1)[1]
        assert replies[-1].endswith(example)


def test_help_lists_every_command_in_one_line_for_the_longest_nick(tmp_path: Path) -> None:
    nick = "n" * 30   # NICKLEN is 30 on most networks (InspIRCd, ngircd allow less)
    (reply,) = Club(tmp_path).say(f"{nick} !help")
    listed = set(reply.replace(":", " ").split())
    assert listed >= set(SPECS)
    assert reply.startswith(f"#arena {nick}: fight: accept attack ")


def test_help_create_is_one_line_and_each_system_has_its_own(tmp_path: Path) -> None:
    nick = "n" * 30
    club = Club(tmp_path)
    (create,) = club.say(f"{nick} !help create")
    assert create.startswith(f"#arena {nick}: !create <name> <culture> <skill>... [armour]: ")
    assert "!help create contest|general" in create
    assert create.endswith("| Example: !create Gorbag goblin club spear")
    (contest,) = club.say(f"{nick} !help create contest")
    assert contest.endswith("e.g. !create Alain contest 15W sword^3 armour 2")
    (general,) = club.say(f"{nick} !help create general")
    assert general.startswith(f"#arena {nick}: !create <name> general health=<n> str=<n> ")


def test_help_odds_is_one_line_and_its_policy_another(tmp_path: Path) -> None:
    club = Club(tmp_path)
    (usage,) = club.say("ann !help odds")
    assert "!help odds policy" in usage
    (policy,) = club.say("ann !help odds policy")
    assert policy.startswith("#arena ann: The policy of !odds: both sides: go first")
