"""Two bots over IRC, killed at random moments (issue 16): ``ancath-bot run`` twice on one
PostgreSQL database, each on an ngircd of its own (:mod:`bot_pair`), with two players
in each ``#arena`` creating warriors and playing fights to their ends, one command at
a time, each answered before the next. Round after round both bots are SIGKILLed,
each at a random moment of its own, and started again; every fourth round each is also
killed once while it starts (before or after it connects, joins or resumes its
fight). After each round the database holds everything a bot said it did
(acknowledged): each warrior it said it created, each fight it said began, each move
it answered; each bot takes its network's open fight up where the database has it (its
resume line asks for the move the players then make); and at the end ``audit verify``
passes.
"""

from __future__ import annotations

import asyncio
import random
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field

import pytest
from bot_pair import NETWORKS, Bots, Side
from ircbot import BOT_NICK
from sqlalchemy import text

from storage.db_engines import make_engine

pytestmark = pytest.mark.parametrize("database_url", [pytest.param(
    "postgresql", marks=pytest.mark.postgresql)], indirect=True)

ROUNDS = 20
"""Both bots killed in each (at least 20 kills, as the issue asks, 40 in all)."""
LIVES = (0.05, 1.5)
"""How long a bot plays after both joined before its kill, in seconds (uniform)."""
STARTS = (0.0, 2.5)
"""How long after its start a bot is killed while it starts, in seconds (uniform)."""
PROMPT = re.compile(r"\(([^)\s]+)\)[^:()]*: ((?:![a-z]+(?: \d+)?(?: \| )?)+)")
"""Who is asked to move next, and the moves offered (``Olaf (olaf) to act: !attack 25 |
!press 50 | ... | !flee | !yield``): the players take the first that is not a flight
or a yield (so fights mostly end by the sword), or the first when those are all."""
RARE = {"!flee", "!yield"}
MOVES_KEPT = text(
    "SELECT COUNT(*) FROM fight_commands c JOIN fight_sides s ON s.fight_id = c.fight_id "
    "JOIN warriors w ON w.id = s.warrior_id WHERE w.name = :name "
    "AND c.command->>'type' NOT IN ('Roll', 'Undo')")
"""The players' commands stored in the one fight of warrior ``name`` (never undone
here)."""


@dataclass
class Table:
    """One network's ``#arena``: its players ``p`` and ``q``, the fight they play, and
    what its bot acknowledged."""

    network: str
    side: Side
    made: int = 0
    pair: tuple[str, str] | None = None
    """The warriors of the fight being set up or played."""
    prompt: str | None = None
    """The bot's last line asking for a move in that fight; None: a new fight next."""
    created: set[str] = field(default_factory=set)
    begun: set[str] = field(default_factory=set)
    """The challenger of each fight the bot said began."""
    moves: Counter[str] = field(default_factory=Counter)
    """Moves the bot answered, by the fight's challenger."""

    def names(self, round_: int) -> tuple[str, str]:
        self.made += 1
        stem = f"{self.network[0].upper()}{round_}x{self.made}"
        return f"{stem}a", f"{stem}b"


async def play(table: Table, round_: int) -> None:
    """Commands, each after the answer to the one before, until the bot quits."""
    side = table.side
    while True:
        if table.prompt is None:   # two new warriors, a challenge and its acceptance
            table.pair = a, b = table.names(round_)
            for nick, name in (("p", a), ("q", b)):
                said = await side.reply(nick, f"!create {name} goblin club spear")
                if said is None:
                    return
                assert f"created {name}" in said, said
                table.created.add(name)
            for nick, command, answer in (("p", "!withdraw", ""),   # one left by a kill
                                          ("p", f"!challenge {b} as {a}", "challenges you"),
                                          ("q", "!accept", "fight:")):
                said = await side.reply(nick, command)
                if said is None:
                    return
                assert answer in said, (command, said)
            table.begun.add(a)
            table.prompt = said
        assert table.prompt is not None
        asked = PROMPT.findall(table.prompt)
        assert asked, table.prompt
        nick, offered = asked[-1]
        moves = re.findall(r"![a-z]+", offered)
        move = next((m for m in moves if m not in RARE), moves[0])
        said = await side.reply(nick, move)
        if said is None:
            return
        assert table.pair is not None
        table.moves[table.pair[0]] += 1
        if PROMPT.search(said):
            table.prompt = said
        else:
            assert "ledger #" in said, (move, said)   # the fight's end, and its anchor
            table.prompt = None


def open_pair(url: str, network: str) -> tuple[str, str] | None:
    """The warriors of ``network``'s open fight (challenger first), if one is open."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            names = connection.execute(text(
                "SELECT w.name FROM fights f JOIN fight_sides s ON s.fight_id = f.id "
                "JOIN warriors w ON w.id = s.warrior_id WHERE f.network = :network "
                "AND f.ended_at IS NULL ORDER BY s.side"), {"network": network}).scalars().all()
    finally:
        engine.dispose()
    assert len(names) in (0, 2), names
    return (names[0], names[1]) if names else None


def acknowledged_kept(url: str, tables: list[Table]) -> None:
    """Every warrior, fight and move a bot acknowledged is in the database."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            warriors = set(connection.execute(text("SELECT name FROM warriors")).scalars())
            for table in tables:
                assert table.created <= warriors, table.created - warriors
                for challenger in table.begun | set(table.moves):
                    kept = connection.execute(MOVES_KEPT, {"name": challenger}).scalar_one()
                    assert kept >= table.moves[challenger], (challenger, kept, table.moves)
                fights = set(connection.execute(text(
                    "SELECT w.name FROM fight_sides s JOIN warriors w ON w.id = s.warrior_id "
                    "WHERE s.side = 0")).scalars())
                assert table.begun <= fights, table.begun - fights
    finally:
        engine.dispose()


async def resumed(table: Table, url: str) -> None:
    """After a start: the bot's resume line when its network has a fight open, which
    asks for the next move (or ends the fight, when the rolls of its start did)."""
    pair = open_pair(url, table.network)
    if pair is None:
        table.prompt = None
        return
    line = await table.side.players["watch"].expect(
        lambda line: line.nick == BOT_NICK and line.command == "PRIVMSG"
        and line.text.startswith("Fight resumed"), timeout=30)
    table.pair = pair
    table.prompt = line.text if PROMPT.search(line.text) else None


def test_both_bots_killed_at_random_moments_keep_every_acknowledged_command(
    bots: Bots, database_url: str,
) -> None:
    rng = random.Random(0x2B0751)
    starts: Counter[str] = Counter()
    """Kills while starting, by whether the bot had joined ``#arena``."""
    tables = [Table(network, Side(server)) for network, server in
              zip(NETWORKS, bots.servers, strict=True)]

    async def killed_while_starting() -> None:
        bots.start()
        await asyncio.gather(*(kill(index, STARTS) for index in range(len(tables))))
        await asyncio.sleep(0.5)   # the server has seen each connection close
        for table in tables:       # what a bot said before this kill is not awaited
            joined = [line for line in table.side.players["watch"].drain()
                      if line.nick == BOT_NICK and line.command == "JOIN"]
            starts["joined" if joined else "not joined"] += 1

    async def kill(index: int, within: tuple[float, float]) -> None:
        await asyncio.sleep(rng.uniform(*within))
        await asyncio.to_thread(bots.kill, index)

    async def rounds() -> None:
        for table in tables:
            await table.side.join("p", "q")
        for round_ in range(ROUNDS):
            if round_ % 4 == 2:
                await killed_while_starting()
            if round_:
                bots.start()
                for table in tables:
                    await table.side.wait_for_bot()
            for table in tables:
                await resumed(table, database_url)
            await asyncio.gather(*(play(table, round_) for table in tables),
                                 *(kill(index, LIVES) for index in range(len(tables))))
            acknowledged_kept(database_url, tables)

    async def scenario() -> None:
        try:
            await rounds()
        finally:
            for table in tables:
                await table.side.quit()

    asyncio.run(scenario())
    moves = sum(sum(table.moves.values()) for table in tables)
    fights = sum(len(table.begun) for table in tables)
    print(f"{ROUNDS} rounds, {2 * ROUNDS} kills: {fights} fights begun, {moves} moves "
          f"acknowledged; {starts.total()} more kills while starting: {dict(starts)}")
    assert moves >= 4 * ROUNDS, "the players hardly moved between kills"
    verified = subprocess.run([sys.executable, "-m", "bot.cli", "audit", "verify", "--config",
                               str(bots.configs[0])], capture_output=True, text=True,
                              timeout=120)
    assert verified.returncode == 0, verified.stdout + verified.stderr
