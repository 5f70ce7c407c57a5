"""Crash-test worker for group commit: plays fights in many channels through the
referee and its lanes, as the IRC transport does, until it is killed.

    python group_commit_worker.py DATABASE_URL RUN [--channels N] [--seconds S]
                                  [--network NAME]

The referee runs with group commit (``group_commit_ms`` 1.0): every channel has one
chat line out at a time, and its next is sent as soon as the answer is delivered, so the
records lane takes several channels' commands into each transaction. Decisions come
from ``random.Random(RUN)``, dice from the OS. It picks up the fights and challenges a
killed run left open. After the lines of a command are handed out (the transport's
``deliver``), it prints what that command did, and then only::

    ready N              start-up done, N fights picked up
    other create NAME    a warrior created
    open F               fight F opened
    rec F S              fight F has at least S commands
    end F                fight F ended
    batches C A          C commits so far for A commands answered (now and then)

Each of those is read back at once from another connection to the database; one that is
not there yet (said before it was committed) is printed as ``early <what>``. It stops by
itself after ``--seconds`` (default 120). With ``--network`` it plays that network's
channels, so several workers (with different RUNs: RUN names the warriors) can share one
PostgreSQL database as bot processes do.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from bot_inprocess import CAST, decide  # the benchmark's players  # noqa: E402
from sqlalchemy import Engine, event, text  # noqa: E402

from bot.app import build_referee  # noqa: E402
from bot.chat.lanes import Lanes  # noqa: E402
from bot.config import BotConfig  # noqa: E402
from bot.messages import Incoming, Outgoing, Sender  # noqa: E402
from bot.odds.worker import InlineExecutor  # noqa: E402
from bot.referee import Referee  # noqa: E402
from storage.db_engines import make_engine  # noqa: E402

KINDS = ("practice", "duel", "mortal")
TICK = 0.05
"""Seconds between the clock's ticks, which run on the records lane between batches."""

READ_BACK = {
    "open": "SELECT COUNT(*) FROM fights WHERE id = :id",
    "rec": "SELECT COUNT(*) FROM fight_commands WHERE fight_id = :id AND seq >= :seq",
    "end": "SELECT COUNT(*) FROM fights WHERE id = :id AND ended_at IS NOT NULL",
    "create": "SELECT COUNT(*) FROM warriors WHERE name = :name",
}


def say(*words: object) -> None:
    print(*words, flush=True)


class Players:
    """Every channel's two players, one chat line out at a time each channel."""

    def __init__(self, referee: Referee, lanes: Lanes, records: Engine, run: int,
                 channels: int) -> None:
        self.referee, self.lanes, self.records, self.run = referee, lanes, records, run
        self.rng = random.Random(run)
        self.channels = [f"#g{n}" for n in range(channels)]
        self.bouts = dict.fromkeys(self.channels, 0)
        self.created: set[str] = set()
        self.answered = self.commits = 0
        self.stopped = False
        event.listen(referee.store.engine, "commit", self._committed)

    def _committed(self, _connection: Any) -> None:
        self.commits += 1

    def pair(self, channel: str) -> tuple[tuple[str, str], tuple[str, str]]:
        """(name, account) of this bout's two warriors in ``channel``."""
        stem = f"R{self.run}C{channel[2:]}B{self.bouts[channel]}"
        return (f"{stem}x", f"p{channel[2:]}a"), (f"{stem}y", f"p{channel[2:]}b")

    def next_line(self, channel: str) -> tuple[str, str]:
        """(account, text) of the channel's next line, from what is committed."""
        table = self.referee.tables.get(channel)
        if table is not None and table.fight is not None:
            step = decide(self.referee, channel, self.rng)
            if step is not None:
                return step
        if table is not None and table.challenge is not None:
            return table.challenge.target_account, "!accept"
        (mine, me), (theirs, _) = self.pair(channel)
        for name, account in self.pair(channel):
            if name not in self.created:
                return account, f"!create {name} {self.rng.choice(CAST)}"
        return me, f"!challenge {theirs} as {mine} {self.rng.choice(KINDS)}"

    def send(self, channel: str) -> None:
        if self.stopped:
            return
        account, said = self.next_line(channel)
        table = self.referee.tables.get(channel)
        fight = table.fight if table is not None else None
        before = (fight.id, fight.seq) if fight is not None else None
        msg = Incoming(sender=Sender(nick=account, account=account), text=said, channel=channel)

        def deliver(out: list[Outgoing]) -> None:
            handed = [f"{o.target} {o.text}" for o in out]   # the transport's part
            self.acknowledge(channel, said, before, handed)
            asyncio.get_running_loop().call_soon(self.send, channel)

        self.lanes.line(self.referee, msg, lambda call: call(), deliver)

    def acknowledge(self, channel: str, said: str, before: tuple[int, int] | None,
                    handed: list[str]) -> None:
        """Print what the command did, each part read back from the database first."""
        table = self.referee.tables.get(channel)
        done: list[tuple[Any, ...]] = []
        if said.startswith("!create") and any(": created " in line for line in handed):
            name = said.split()[1]
            self.created.add(name)
            done.append(("other", "create", name))
        elif table is not None and table.fight is not None and (
                before is None or table.fight.id != before[0]):
            done.append(("open", table.fight.id))
        elif before is not None and table is not None:
            if table.fight is not None and table.fight.seq > before[1]:
                done.append(("rec", before[0], table.fight.seq))
            elif table.fight is None and table.last_fight_id == before[0]:
                done += [("rec", before[0], before[1] + 1), ("end", before[0])]
                self.bouts[channel] += 1
        if said.startswith("!challenge") and (table is None or table.challenge is None):
            self.bouts[channel] += 1   # refused (a warrior busy elsewhere): new warriors
        for what in done:
            self.read_back(what)
        self.answered += 1
        if self.answered % 25 == 0:
            say("batches", self.commits, self.answered)

    def read_back(self, what: tuple[Any, ...]) -> None:
        kind = what[1] if what[0] == "other" else what[0]
        values = {"name": what[2]} if kind == "create" else \
            {"id": what[1], "seq": what[2] if len(what) > 2 else 0}
        with self.records.connect() as connection:
            there = connection.execute(text(READ_BACK[kind]), values).scalar_one()
        say(*what) if there else say("early", *what)


async def play(url: str, run: int, channels: int, seconds: float, network: str) -> None:
    config = BotConfig(database=url, moderators=["mod"], rolls="auto", fairy_folk_open=True,
                       group_commit_ms=1.0, network=network)
    referee = build_referee(config, odds_workers=InlineExecutor())
    lanes = Lanes(config.group_commit_ms / 1000)
    records = make_engine(url)
    players = Players(referee, lanes, records, run, channels)
    say("ready", sum(t.fight is not None for t in referee.tables.values()))
    for channel in players.channels:
        players.send(channel)
    ticking: asyncio.Future[Any] | None = None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        await asyncio.sleep(TICK)
        if ticking is None or ticking.done():
            ticking = lanes.run(True, referee.tick, lambda out: None)
    players.stopped = True
    lanes.close()
    say("done")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("run", type=int)
    parser.add_argument("--channels", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--network", default="default")
    args = parser.parse_args()
    asyncio.run(play(args.url, args.run, args.channels, args.seconds, args.network))
    return 0


if __name__ == "__main__":
    sys.exit(main())
