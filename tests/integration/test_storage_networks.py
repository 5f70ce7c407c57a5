"""Several networks and several processes on one club database, on every backend
(``database_url``): fights and challenges kept by network and channel, two networks'
``#ancath`` apart, a store resuming only its own network's (and its own channels')
fights, a fight's network in its ledger digest; and, between two stores or two
processes at once, one open fight per warrior (R3.3), an intact ledger chain and an
exact count of the club's settings changes, read by another process at once.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from test_storage import KILL, START, play
from transcript import warrior  # tests/unit, put on the path by conftest.py

from bot.systems.registry import SYSTEMS
from rules.ancath.system import AN_CATH
from storage.club import VersionReader
from storage.db import open_database
from storage.db_engines import make_engine
from storage.schema_revision import head_revision
from storage.store import Busy, ChallengeRecord, OpenFight, Store

RACER = Path(__file__).with_name("racer.py")


@pytest.fixture
def stores(database_url: str) -> Iterator[Callable[..., Store]]:
    """Stores on one database, each on an engine of its own (as processes are)."""
    made: list[Store] = []

    def make(network: str = "default") -> Store:
        made.append(Store(open_database(database_url), systems=SYSTEMS.rules, network=network))
        return made[-1]

    try:
        yield make
    finally:
        for store in made:
            store.engine.dispose()


def create(store: Store, *names: str) -> None:
    for name in names:
        store.create_warrior(warrior(name, "free-clans", "broadsword", "shield"), name.lower())


def open_pair(store: Store, channel: str, a: str, b: str) -> OpenFight:
    fight, _ = store.open_fight(channel, AN_CATH, "practice",
                                [(a, a.lower()), (b, b.lower())], a.lower())
    return fight


def challenge(channel: str, challenger: str, target: str) -> ChallengeRecord:
    return ChallengeRecord(channel, challenger, challenger.lower(), target, target.lower(),
                           "practice")


def test_two_networks_each_have_a_fight_open_in_their_ancath(
    stores: Callable[..., Store],
) -> None:
    alpha, beta = stores("alpha"), stores("beta")
    create(alpha, "Olaf", "Gorbag", "Bran", "Ulf", "Aed", "Conn")
    on_alpha = open_pair(alpha, "#ancath", "Olaf", "Gorbag")
    on_beta = open_pair(beta, "#ancath", "Bran", "Ulf")
    with pytest.raises(Busy):   # one open fight per channel of a network
        open_pair(alpha, "#ancath", "Aed", "Conn")

    assert [f.id for f in alpha.open_fights()[0]] == [on_alpha.id]
    assert [f.id for f in beta.open_fights()[0]] == [on_beta.id]
    assert alpha.latest_fights() == {"#ancath": on_alpha.id}
    assert beta.latest_fights() == {"#ancath": on_beta.id}
    assert stores().open_fights() == ([], [])   # the network named default has none

    alpha.put_challenge(challenge("#duels", "Aed", "Conn"))
    beta.put_challenge(challenge("#duels", "Conn", "Aed"))
    assert [c.challenger for c in alpha.challenges()] == ["Aed"]
    assert [c.challenger for c in beta.challenges()] == ["Conn"]
    alpha.drop_challenge("#DUELS")
    assert alpha.challenges() == [] and [c.challenger for c in beta.challenges()] == ["Conn"]

    summary = alpha.fight_summary(on_beta.id)
    assert summary is not None and (summary.network, summary.place) == ("beta", "#ancath on beta")
    assert [line.place for line in alpha.fight_history("Olaf")] == ["#ancath on alpha"]
    assert alpha.verify() == []


def test_a_store_resumes_only_the_channels_it_serves(stores: Callable[..., Store]) -> None:
    east = stores()
    create(east, "Olaf", "Gorbag", "Bran", "Ulf", "Aed", "Conn")
    mine = open_pair(east, "#East", "Olaf", "Gorbag")
    open_pair(east, "#west", "Bran", "Ulf")
    east.put_challenge(challenge("#quiet", "Aed", "Conn"))

    def serves(channel: str) -> bool:
        return channel.lower() == "#east"

    assert [f.id for f in east.open_fights(serves)[0]] == [mine.id]
    assert east.challenges(serves) == []
    assert [c.channel for c in east.challenges()] == ["#quiet"]


def test_a_fights_network_is_in_its_ledger_digest(stores: Callable[..., Store]) -> None:
    """A finished fight moved to another network by a database writer fails verify;
    a fight on ``default`` keeps the digest it had before networks."""
    alpha, plain = stores("alpha"), stores()
    create(alpha, "Olaf", "Gorbag")
    fight = open_pair(alpha, "#ancath", "Olaf", "Gorbag")
    fight, _ = play(alpha, fight, START + KILL)
    assert fight.state.outcome is not None and alpha.verify() == []
    with alpha.engine.begin() as connection:
        connection.execute(text("UPDATE fights SET network = 'default' WHERE id = :id"),
                           {"id": fight.id})
    assert any(f"fight {fight.id}" in problem and "setup" in problem
               for problem in plain.verify())


def test_the_club_version_is_read_at_once_and_after_a_lost_connection(
    stores: Callable[..., Store], database_url: str,
) -> None:
    mine, other = stores(), stores("beta")
    read = VersionReader(mine)
    assert read() == 0
    other.set_setting("fairy_folk_open", True, "mod")
    other.set_moderator("carol", True, "mod", "tourney")
    assert read() == 2
    with mine.unit():   # inside a unit: in its transaction, its own writes included
        mine.set_setting("ignored", ["troll"], "mod")
        assert read() == 3
    if database_url.startswith("postgresql"):   # the server ends every other connection
        with other.engine.connect() as connection:
            connection.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                    "WHERE datname = current_database() "
                                    "AND pid <> pg_backend_pid()"))
    other.set_setting("fairy_folk_open", False, "mod")
    assert read() == 4
    read.close()
    assert mine.club_state().settings == {"fairy_folk_open": False, "ignored": ["troll"]}


def _at_once(url: str, *jobs: tuple[str, Callable[[Store], Any]]) -> list[Any]:
    """Each ``(network, job)`` on a store and thread of its own, all released at the same
    moment; the results, or the exceptions raised."""
    barrier = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)

    def run(index: int, network: str, job: Callable[[Store], Any]) -> None:
        racer = Store(make_engine(url), systems=SYSTEMS.rules, network=network)
        try:
            racer.verify()                   # connected and warm before the start
            barrier.wait(timeout=30)
            results[index] = job(racer)
        except Exception as error:           # handed to the test thread
            results[index] = error
        finally:
            racer.engine.dispose()

    threads = [threading.Thread(target=run, args=(index, *job))
               for index, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_the_same_warrior_challenged_on_two_networks_at_once(
    stores: Callable[..., Store], database_url: str,
) -> None:
    """A channel of the same name, each on its own network: exactly one fight opens, the
    other store gets the clean refusal."""
    store = stores()
    for round_ in range(6):
        hero, a, b, channel = f"Hero{round_}", f"Aed{round_}", f"Bran{round_}", f"#a{round_}"
        create(store, hero, a, b)
        results = _at_once(
            database_url,
            ("alpha", lambda racer, a=a, hero=hero, at=channel: open_pair(racer, at, a, hero).id),
            ("beta", lambda racer, b=b, hero=hero, at=channel: open_pair(racer, at, b, hero).id))
        assert sorted(type(r).__name__ for r in results) == ["Busy", "int"], results
        busy = next(r for r in results if isinstance(r, Busy))
        assert str(busy) == "a warrior is already fighting, or this channel has a fight"
    assert store.verify() == []


# -- two processes -----------------------------------------------------------------------


def _racers(url: str, *argvs: list[str]) -> list[str]:
    """Run ``racer.py`` once per argument list, at once; each one's output."""
    start = f"{time.time() + 2.0:.3f}"   # both imported and connected by then
    processes = [subprocess.Popen([sys.executable, str(RACER), url, *argv, start],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for argv in argvs]
    outputs = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        outputs.append(out)
    return outputs


def test_two_processes_append_to_the_ledger_at_once(
    stores: Callable[..., Store], database_url: str,
) -> None:
    """Two processes each write 200 ledger rows (half of them on one shared warrior) and
    change a setting 50 times (a ledger row each too), all at once: the chain verifies,
    every row and every tenth of BP is there, and the club's version counted every
    change."""
    store = stores()
    create(store, "Shared", "Olaf", "Gorbag")
    before, version = len(store.ledger()), store.club_version()
    outputs = _racers(database_url, ["alpha", "ledger", "Olaf", "Shared", "200"],
                      ["beta", "ledger", "Gorbag", "Shared", "200"])
    assert outputs == ["done\n", "done\n"]
    rows = store.ledger()
    assert len(rows) == before + 500
    assert [row["id"] for row in rows] == list(range(1, before + 501))
    assert sum(row["entry"] == "setting-changed" for row in rows) == 100
    assert (store.warrior("Shared").sheet.bp, store.warrior("Olaf").sheet.bp,
            store.warrior("Gorbag").sheet.bp) == (200, 100, 100)
    assert store.club_version() == version + 100
    assert store.verify() == []


def test_two_processes_challenge_the_same_warrior_at_once(
    stores: Callable[..., Store], database_url: str,
) -> None:
    """Round after round, a process on each network opens a fight for the same warrior
    at the same moment: each round exactly one opens it, the other is refused."""
    rounds = 20
    store = stores()
    for index in range(rounds):
        create(store, f"Hero{index}", f"Aed{index}", f"Bran{index}")
    alpha, beta = _racers(database_url, ["alpha", "open", "Aed", str(rounds)],
                          ["beta", "open", "Bran", str(rounds)])
    for index, answers in enumerate(zip(alpha.splitlines(), beta.splitlines(), strict=True)):
        if index == rounds:
            assert answers == ("done", "done")
            continue
        assert sorted(answer.split()[0] for answer in answers) == ["busy", "won"], answers
    assert len(store.open_fights()[0]) == 0   # each is on alpha or beta, not default
    with store.engine.connect() as connection:
        seats = connection.execute(text(
            "SELECT w.name, COUNT(*) FROM fight_sides s JOIN warriors w ON w.id = s.warrior_id "
            "WHERE s.active GROUP BY w.name")).all()
    assert sorted(seats) == sorted([(f"Hero{i}", 1) for i in range(rounds)] + [
        (name, 1) for line, prefix in ((alpha, "Aed"), (beta, "Bran"))
        for i, word in enumerate(line.splitlines()[:rounds]) if word.startswith("won")
        for name in [f"{prefix}{i}"]])
    assert store.verify() == []


OPEN_AT = """\
import sys, time
from storage.db import open_database
from storage.schema_revision import head_revision
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
engine = open_database(sys.argv[1])
with engine.connect() as connection:
    print(connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar_one())
"""


@pytest.mark.parametrize("database_url", [pytest.param("postgresql",
                                                       marks=pytest.mark.postgresql)],
                         indirect=True)
def test_three_processes_starting_at_once_on_a_new_database(database_url: str) -> None:
    """Compose starts every bot at once: on a new PostgreSQL database one migrates and
    the others wait for it (an advisory lock), then find the schema at its newest."""
    start = f"{time.time() + 2.0:.3f}"
    processes = [subprocess.Popen([sys.executable, "-c", OPEN_AT, database_url, start],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(3)]
    results = [process.communicate(timeout=120) for process in processes]
    assert [process.returncode for process in processes] == [0, 0, 0], results
    assert {out for out, _ in results} == {f"{head_revision()}\n"}


@pytest.mark.parametrize("database_url", [pytest.param("postgresql",
                                                       marks=pytest.mark.postgresql)],
                         indirect=True)
def test_a_dead_connection_is_found_on_both_ends_within_a_minute(database_url: str) -> None:
    """A process cut off while it held the club's write lock must not hold it for the
    system's two hours: keepalives every 10 s after 30 s idle, three missed, both ways."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            shown = {name: connection.exec_driver_sql(f"SHOW {name}").scalar_one()
                     for name in ("tcp_keepalives_idle", "tcp_keepalives_interval",
                                  "tcp_keepalives_count", "lock_timeout")}
            client = connection.connection.driver_connection.info.get_parameters()
    finally:
        engine.dispose()
    assert shown == {"tcp_keepalives_idle": "30", "tcp_keepalives_interval": "10",
                     "tcp_keepalives_count": "3", "lock_timeout": "10s"}
    assert (client["keepalives"], client["keepalives_idle"]) == ("1", "30")
