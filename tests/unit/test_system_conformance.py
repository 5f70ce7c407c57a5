"""Every registered rules system keeps the contract the bot relies on, checked by playing
random legal fights with scripted dice to their end (the coin duel of
:mod:`toy_system` runs too, plugged in by one registration).

The contract: progress never goes back; the fight awaits someone exactly while it has
no outcome; the outcome's ending is one of the system's ``Enum`` members; every verb's
sample words make a command the system's codec stores, and every command and event
round-trips through it; a refused command raises ``rules.errors.RulesError`` and
changes nothing; every wording is one non-empty line.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator, Sequence
from enum import Enum
from typing import Any

import pytest
from toy_system import TOY, Coin
from transcript import warrior

from bot.systems.plugin import Plugin, help_lines
from bot.systems.registry import PLUGINS, SYSTEMS
from bot.wording.common import Cast
from rules import common
from rules.codec import encode
from rules.contest.model import parse_fighter
from rules.errors import RulesError
from rules.general.model import GeneralFighter, parse_dice
from rules.system import RuleSystem
from storage.records import WarriorRecord

SAMPLES: dict[str, Callable[[], Sequence[object]]] = {
    "ancath": lambda: (warrior("Olaf", "free-clans", "axe", "shield"),
                       warrior("Gorbag", "goblin", "club", "spear")),
    "contest": lambda: (parse_fighter("Alain", "15W", "sword^3", 2),
                        parse_fighter("Bors", "12", "axe^2")),
    "general": lambda: (
        GeneralFighter("Olaf", 20, 12, 14, parse_dice("1d10"), parse_dice("1d8"), 2, 4),
        GeneralFighter("Lizardman", 20, 12, 12, parse_dice("1d6"), parse_dice("1d8"), 0, 0)),
    "toy": lambda: (Coin("Heads"), Coin("Tails")),
}
"""Two fighters per system; a system registered without them fails here."""

CAST = Cast(("A", "B"), ("A (a)", "B (b)"))
SEEDS = range(12)


@pytest.fixture(params=[*PLUGINS, "toy"])
def plugin(request: pytest.FixtureRequest) -> Iterator[Plugin[Any, Any]]:
    """Each registered plugin, and the coin duel added by its one registration."""
    with SYSTEMS.registered(TOY):
        yield PLUGINS[request.param]


def one_line(text: str) -> str:
    assert text and text.strip() == text and "\n" not in text and "\r" not in text, text
    return text


def round_trips(plugin: Plugin[Any, Any], value: object) -> None:
    assert plugin.system.codec.decode(encode(value)) == value, value


def decisions(plugin: Plugin[Any, Any], side: int) -> list[Any]:
    """Every command the verbs' sample words make for ``side``."""
    return [verb.parse(side, args) for verb in plugin.verbs.values() for args in verb.samples]


def legal(plugin: Plugin[Any, Any], state: Any, commands: list[Any]) -> list[Any]:
    """The commands the fight accepts now; each refused one changed nothing."""
    accepted, before = [], copy.deepcopy(state)
    for command in commands:
        try:
            plugin.system.apply(state, command)
        except RulesError:
            assert state == before, command
        else:
            accepted.append(command)
    return accepted


def play(plugin: Plugin[Any, Any], kind: str, seed: int) -> Any:
    """A random legal fight to its end, checking the contract at every step."""
    rng = random.Random(seed)
    state, events = plugin.system.start(kind, SAMPLES[plugin.system.name]())
    for event in events:
        round_trips(plugin, event)
    steps = 0
    while state.outcome is None:
        awaiting = state.awaiting
        assert awaiting is not None, "no outcome, so someone is awaited"
        one_line(plugin.status(state, False, CAST))
        one_line(plugin.prompt(state, rng.random() < 0.5, CAST))
        assert bool(plugin.waiting(state)) == awaiting.is_roll
        if rng.random() < 0.01:
            command = rng.choice([plugin.forfeit(awaiting.side), plugin.end(None, "test"),
                                  plugin.end(rng.randrange(2), "test")])
        elif awaiting.is_roll:
            assert legal(plugin, state, [plugin.roll(awaiting.side, awaiting.die + 1)]) == []
            command = plugin.roll(awaiting.side, rng.randint(1, awaiting.die))
        else:
            mine, theirs = decisions(plugin, awaiting.side), decisions(plugin, 1 - awaiting.side)
            for made in (*mine, *theirs):
                round_trips(plugin, made)
                assert one_line(plugin.word(made)).startswith("!")
            choices = legal(plugin, state, mine)
            assert choices, f"no verb moves the fight on: {plugin.prompt(state, False, CAST)}"
            legal(plugin, state, theirs)  # the foe's: some may be open to them too
            weights = [0.1 if plugin.word(c) == "!yield" else 1.0 for c in choices]
            command = rng.choices(choices, weights)[0]  # a fight, not a row of yields
            one_line(plugin.undone(command, CAST.names))
        round_trips(plugin, command)
        after, events = plugin.system.apply(state, command)
        assert after.progress >= state.progress
        for event in events:
            round_trips(plugin, event)
        if events:
            one_line(plugin.describe(events, CAST, None))
        state, steps = after, steps + 1
        assert steps < 2000, "the fight never ends"
    assert state.awaiting is None
    assert isinstance(state.outcome.ending, Enum)
    assert state.outcome.winner in (None, 0, 1)
    return state


def test_every_fight_kind_plays_to_an_end_by_the_contract(plugin: Plugin[Any, Any]) -> None:
    endings = set()
    for kind in plugin.system.kinds:
        for seed in SEEDS:
            endings.add(type(play(plugin, kind, seed).outcome.ending))
    assert len(endings) == 1, "one Ending enum per system"


def test_every_verb_has_help_and_its_words(plugin: Plugin[Any, Any]) -> None:
    for name, (usage, summary) in help_lines([plugin]).items():
        assert usage.startswith(f"!{name}")
        one_line(summary)
    for verb in plugin.verbs.values():
        for args in verb.samples:
            assert plugin.word(verb.parse(0, args)).startswith(f"!{verb.name}")


def test_every_system_has_sample_fighters() -> None:
    assert set(PLUGINS) <= set(SAMPLES)
    assert set(PLUGINS) == set(SYSTEMS.rules)


def test_every_system_creates_and_describes_its_fighters(plugin: Plugin[Any, Any]) -> None:
    words = [p.fighters.word for p in PLUGINS.values()]
    assert words.count("") == 1 and len(set(words)) == len(words), "one system per word"
    assert plugin.fighters.creates.startswith("!create <name>")
    for fighter in SAMPLES[plugin.system.name]():
        record = WarriorRecord(1, fighter, "al", None, False, plugin.system.name, "free")
        assert one_line(plugin.sheet_line(record, "al")).startswith(f"{fighter.name} (")
        assert one_line(plugin.fighters.entry(record)).startswith(f"{fighter.name} (")
        shown = plugin.fighters.show(record)
        assert (shown["name"], shown["owner"], shown["status"], shown["captor"]) == (
            fighter.name, "al", "free", None)


def test_a_plugin_is_built_by_keywords_alone() -> None:
    fields = {name: getattr(TOY, name) for name in (
        "system", "label", "verbs", "roll", "forfeit", "end", "describe", "asks", "glance",
        "waiting", "undone", "fighters")}
    assert Plugin(**fields) == TOY
    with pytest.raises(TypeError):
        Plugin(*fields.values())  # type: ignore[call-arg]  # the twelve, as once built


def test_a_rules_system_is_built_by_keywords_alone() -> None:
    rules = TOY.system
    fields = {name: getattr(rules, name) for name in (
        "name", "kinds", "codec", "start", "apply", "undo_point", "ledger_effects",
        "bp_applied")}
    assert RuleSystem(**fields) == rules
    with pytest.raises(TypeError):
        RuleSystem(*fields.values())  # type: ignore[call-arg]  # the seven, as once built


def test_every_system_undoes_by_the_one_shared_rule() -> None:
    # R8.1: an undo takes back the last decision and the rolls after it, in every system
    assert {system.undo_point for system in SYSTEMS.rules.values()} == {common.undo_point}
