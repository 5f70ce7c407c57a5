"""Issue 31, item 13: ten identities on one host flood the bot with ``!odds`` and CTCP.

On a network without services an identity costs one ``USER``: ten connections from
127.0.0.1 with ten nicks and idents are ten players to the per-player pace, and before
the fix the one send queue filled with the replies and slow-down notices owed to them
(a bystander's ``!roll`` came 59 to 103 s late in ``bench/irc_host_flood.py``). Now the
replies go first to the host, then the identity, that asked least; a reply that cannot
go out within ``reply_seconds`` is dropped; a host is owed at most ``most_owed`` lines;
and a bystander, from the same host or another, is answered within 5 s while a fight in
another channel goes on.

A real ngircd with its penalties off (``quick``), so the flooders can flood; the bot at
its default flood settings (4 lines at once, then one a second). Another host is
127.0.0.2: the whole of 127/8 is loopback, and ngircd (no DNS) names a client by its
address.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

from ircbot import BOT_NICK, bot_on, from_bot, player
from ircserver import IrcClient, NgircdServer
from test_irc_bot import quick, sync

from bot.dice import ScriptedDice
from bot.irc.outbox import Outbox

ARENA, SIDE = "#arena", "#b"
OTHER_HOST = "127.0.0.2"
MISS = 99
"""An attack's d100 that misses whoever makes it."""
FLOODERS, ODDS, CTCP = 10, 1000, 400
"""Identities on one host, their ``!odds`` and their CTCP requests (VERSION and PING)."""
BYSTANDER_SECONDS = 5.0


class FightDice:
    """Scripted dice for the fight; a one-sided die (a bystander's ``1d1``) is 1 without
    using the script, so a bystander never takes a fighter's roll."""

    def __init__(self) -> None:
        self.script = ScriptedDice([])

    def roll(self, sides: int) -> int:
        return 1 if sides == 1 else self.script.roll(sides)


async def connect_from(source: str, port: int, nick: str, user: str) -> IrcClient:
    """A client whose connection comes from ``source`` (another 127.x address: another
    host to the server)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                   local_addr=(source, 0))
    client = IrcClient(reader, writer, nick)
    await client.send_raw(f"NICK {nick}")
    await client.send_raw(f"USER {user} 0 * :{nick}")
    welcome = await client.expect(lambda line: line.command == "001")
    client.mask = welcome.text.rsplit(" ", 1)[-1]
    return client


async def fight(server: NgircdServer, dice: FightDice) -> tuple[IrcClient, IrcClient]:
    """Olaf (``olaf``) and Gorbag (``gob``) in a practice fight in ``#arena``, Olaf to act."""
    gob, olaf = await player(server, "gob"), await player(server, "olaf")
    await gob.say(ARENA, "!create Gorbag goblin club spear")
    await from_bot(gob, "created Gorbag")
    await olaf.say(ARENA, "!create Olaf free-clans broadsword shield")
    await from_bot(olaf, "created Olaf")
    await olaf.say(ARENA, "!challenge Gorbag")
    await from_bot(gob, "Olaf challenges you")
    dice.script.push(50, 40)  # initiative: Olaf 50, Gorbag 40
    await gob.say(ARENA, "!accept")
    await from_bot(olaf, "Olaf (olaf) chooses:")
    await olaf.say(ARENA, "!first")
    await from_bot(olaf, "Olaf (olaf) to act:")
    return olaf, gob


def flood_lines(odds: int, ctcp: int) -> list[str]:
    """One flooder's share, mixed evenly: ``!odds`` in ``#b``, and CTCP VERSION and PING
    to the bot."""
    lines = [(k / odds, f"PRIVMSG {SIDE} :!odds Olaf vs Gorbag") for k in range(odds)]
    lines += [(k / ctcp, f"PRIVMSG {BOT_NICK} :\x01{'VERSION' if k % 2 else f'PING {k}'}\x01")
              for k in range(ctcp)]
    return [line for _at, line in sorted(lines, key=lambda pair: pair[0])]


def test_ten_identities_on_one_host_flooding_odds_and_ctcp_cannot_hold_back_a_bystander(
    ngircd: NgircdServer, tmp_path: Path
) -> None:
    async def scenario() -> None:
        server = quick(ngircd)
        async with bot_on(server, tmp_path, channels=(ARENA, SIDE)) as run:
            outbox = run.bot.outbox
            dice = FightDice()
            run.referee.services = replace(run.referee.services, dice=dice)
            olaf, gob = await fight(server, dice)
            flooders = [await IrcClient.connect(server.port, f"flood{i}", f"fl{i}")
                        for i in range(FLOODERS)]
            near = await IrcClient.connect(server.port, "near", "near")  # the same host
            far = await connect_from(OTHER_HOST, server.port, "far", "far")
            for client in (*flooders, near, far):
                await client.join(SIDE)
            host = "127.0.0.1"
            assert {c.mask.rsplit("@", 1)[1] for c in (*flooders, near) if c.mask} == {host}
            assert far.mask is not None and far.mask.endswith(f"@{OTHER_HOST}")
            assert len({c.mask.split("!")[1] for c in flooders if c.mask}) == FLOODERS

            most = 0

            async def watch_what_the_host_is_owed() -> None:
                nonlocal most
                while True:
                    most = max(most, outbox.owes(host))
                    await asyncio.sleep(0.02)

            watcher = asyncio.create_task(watch_what_the_host_is_owed())
            for client in flooders:  # all of it at once: the server holds nothing back
                await client.send_raw("".join(f"{line}\r\n" for line in flood_lines(
                    ODDS // FLOODERS, CTCP // FLOODERS)).encode())
            await asyncio.gather(*(sync(client) for client in flooders))

            waits: list[float] = []
            for k, who in enumerate((near, far, near, far, near), start=1):
                if k == 3:  # the fight goes on meanwhile, its lines first
                    dice.script.push(MISS)
                    began = time.monotonic()
                    await olaf.say(ARENA, "!attack")
                    await from_bot(gob, "Gorbag (gob) to act:", timeout=BYSTANDER_SECONDS)
                    fight_wait = time.monotonic() - began
                text = f"{who.nickname} rolls 1d1+{k} = [1] + {k} = {k + 1}"
                began = time.monotonic()
                await who.say(SIDE, f"!roll 1d1+{k}")
                await from_bot(who, text, timeout=BYSTANDER_SECONDS)
                waits.append(time.monotonic() - began)
            print(f"bystanders answered in {', '.join(f'{w:.2f}' for w in waits)} s; the "
                  f"fight's line in {fight_wait:.2f} s; at most {most} lines owed to "
                  f"{host}; {outbox.dropped} lines dropped as too late")

            # what the host was owed stayed within what the bot sends in reply_seconds:
            # 4 at once, then one a second for 5 s
            assert outbox.most_owed == 9 and most <= outbox.most_owed
            assert outbox.dropped > 0  # the flood's replies beyond that: dropped
            said = [x for c in flooders for x in c.lines if x.nick == BOT_NICK
                    and (x.command == "NOTICE" or x.text.startswith(c.nickname + ": "))]
            assert len(said) < 5 * FLOODERS  # less than one burst's worth each

            # nothing of the flood stays queued: each line went out or was dropped
            await until_empty(outbox, host)
            watcher.cancel()
            assert outbox.owes(host) == 0

    asyncio.run(scenario())


async def until_empty(outbox: Outbox, host: str, timeout: float = 15.0) -> None:
    """Until nothing is owed to ``host`` (the flood's last lines sent or dropped)."""
    deadline = time.monotonic() + timeout
    while outbox.owes(host) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
