"""Two bot processes on one PostgreSQL database (issue 16): ``ancath-bot run`` twice, each
on an ngircd of its own as the networks ``north`` and ``south``, each refereeing its
network's ``#arena``; the players' hosts are one machine, so ``hero`` is the same person
(``~hero@127.0.0.1``) on both networks, and both configs say so (``shared_accounts``:
else ``south``, not the club's home, would name him ``south:~hero@127.0.0.1``).

Round after round, Hero is challenged in both ``#arena`` at once and ``hero`` accepts
both at the same moment: exactly one fight opens, and the other bot refuses. And a
moderator closing or opening Fairy Folk creation in one process counts at the other's
next command; and one taking back an ignore counts in the other's next line from that
player. The bots run as :mod:`bot_pair` says (penalties off, no per-player pace: at the
defaults, one command every 2 s a player, 200 rounds would take over 7 minutes).
"""

from __future__ import annotations

import asyncio

import pytest
from bot_pair import NETWORKS, PASSWORD, Bots, Side
from ircbot import BOT_NICK
from sqlalchemy import text

from storage.db_engines import make_engine

pytestmark = pytest.mark.parametrize("database_url", [pytest.param(
    "postgresql", marks=pytest.mark.postgresql)], indirect=True)

ROUNDS = 200
FAIRY_EVERY = 40


def open_fights(url: str) -> list[tuple[str, int]]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return [(network, count) for network, count in connection.execute(text(
                "SELECT network, COUNT(*) FROM fights WHERE ended_at IS NULL "
                "GROUP BY network ORDER BY network")).all()]
    finally:
        engine.dispose()


def test_the_same_warrior_accepted_in_two_processes_at_once_fights_once(
    bots: Bots, database_url: str,
) -> None:
    north, south = (Side(server) for server in bots.servers)
    challengers = {"north": ("aed", "Aed"), "south": ("bran", "Bran")}

    async def scenario() -> tuple[int, int]:
        try:
            return await rounds()
        finally:
            for side in (north, south):
                await side.quit()

    async def rounds() -> tuple[int, int]:
        await north.join("hero", "aed", "mod")
        await south.join("hero", "bran", "mod", "puck")
        assert "created Hero" in await north.answer("hero", "!create Hero goblin club spear")
        assert "created Aed" in await north.answer("aed", "!create Aed goblin club spear")
        assert "created Bran" in await south.answer("bran", "!create Bran goblin club spear")
        for side in (north, south):
            assert "logged in as moderator mod" in await side.answer(
                "mod", f"!mod login {PASSWORD}", target=BOT_NICK)
        sides = {"north": north, "south": south}
        pending = dict.fromkeys(NETWORKS, False)
        won = dict.fromkeys(NETWORKS, 0)
        fairy = 0
        for round_ in range(ROUNDS):
            for network, side in sides.items():   # a refused accept leaves its challenge
                if not pending[network]:
                    nick, mine = challengers[network]
                    said = await side.answer(nick, f"!challenge Hero as {mine}")
                    assert f"{mine} challenges you" in said, said
                    pending[network] = True
            accepted = dict(zip(NETWORKS, await asyncio.gather(
                north.answer("hero", "!accept"), south.answer("hero", "!accept")),
                strict=True))
            refused = [n for n in NETWORKS if "already fighting" in accepted[n]]
            assert len(refused) == 1, (round_, accepted)
            (winner,) = set(NETWORKS) - set(refused)
            assert open_fights(database_url) == [(winner, 1)], (round_, accepted)
            won[winner] += 1
            pending[winner] = False
            said_end = await sides[winner].answer("mod", f"!mod end draw round {round_}")
            assert "draw" in said_end, said_end
            if round_ % FAIRY_EVERY == FAIRY_EVERY - 1:
                fairy += 1
                await fairy_folk_seen_across(sides, fairy)
            if round_ == ROUNDS // 2:
                await ignore_taken_back_across(north, south)
        return won["north"], won["south"]

    won = asyncio.run(scenario())
    print(f"{ROUNDS} rounds: north opened {won[0]}, south {won[1]}")
    assert open_fights(database_url) == []
    assert all(won), "one process won every race: the accepts were never at once"


async def ignore_taken_back_across(north: Side, south: Side) -> None:
    """A moderator on the north ignores ``troll``, who plays on the south, and takes it
    back: the south bot, which last read the list with troll in it, reads it again before
    it drops his line."""
    if "troll" not in south.players:
        await south.join("troll")
    ignoring = await north.answer("mod", "!mod ignore *!~troll@* spam")
    assert ignoring.startswith("mod: ignoring *!~troll@*"), ignoring
    await south.say("troll", "!roll d6")
    assert (await south.answer("puck", "!roll d6")).startswith("puck rolls d6")
    assert "no longer ignored" in await north.answer("mod", "!mod unignore *!~troll@* ok")
    answered = await south.answer("troll", "!roll d6")
    assert answered.startswith("troll rolls d6"), answered


async def fairy_folk_seen_across(sides: dict[str, Side], turn: int) -> None:
    """A moderator on one network closes, then opens, Fairy Folk creation: ``puck`` on
    the other network meets each at his next command."""
    changer, creator = (sides["north"], sides["south"]) if turn % 2 else \
        (sides["south"], sides["north"])
    if "puck" not in creator.players:
        await creator.join("puck")
    assert "closed" in await changer.answer("mod", "!mod fairy close for now")
    refused = await creator.answer("puck", f"!create Puck{turn} fairy shortsword lajatang")
    assert refused.startswith("puck: Fairy Folk"), refused
    assert "open" in await changer.answer("mod", "!mod fairy open again")
    created = await creator.answer("puck", f"!create Puck{turn} fairy shortsword lajatang")
    assert f"created Puck{turn}" in created, created

