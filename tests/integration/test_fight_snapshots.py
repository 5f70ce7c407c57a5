"""Checked snapshots of open fights (``storage.fight_snapshots``), on every backend: a
restart takes a fight up from its snapshot and the commands after it, and the full
replay stays the oracle; a snapshot whose seal does not hold (its state, seal or count
edited, its log edited, another key) is not used: the fight is replayed whole, and a
bad log still blocks it."""

from __future__ import annotations

import logging
import random
from typing import Any

import pytest
from sqlalchemy import Engine, inspect, text
from test_storage import add_pair, open_pair

from rules.ancath import legal_actions
from rules.ancath.commands import Roll
from rules.ancath.system import AN_CATH
from storage.keys import Keyring
from storage.models import FightEvent, FightSnapshot
from storage.schema_revision import downgrade, upgrade
from storage.store import OpenFight, Store

LENGTHS = (0, 1, 2, 5, 13, 34, 60)


def advance(store: Store, fight: OpenFight, commands: int, rng: random.Random) -> OpenFight:
    """``commands`` random legal commands (fewer if the next would end the fight), each
    recorded in its own transaction, as a chat line would be."""
    for _ in range(commands):
        state = fight.state
        for _try in range(20):
            if state.awaiting.is_roll:
                command: Any = Roll(state.awaiting.side, rng.randint(1, state.awaiting.die))
            else:
                command = rng.choice(legal_actions(state)).command
            after, events = AN_CATH.apply(state, command)
            if after.outcome is None:
                break
        else:
            return fight
        fight = store.record(fight, command, "referee", after, events)
    return fight


def fights_of(store: Store, lengths: tuple[int, ...], seed: int) -> list[OpenFight]:
    rng = random.Random(seed)
    fights = []
    for n, length in enumerate(lengths):
        add_pair(store, f"A{n}", f"B{n}")
        fights.append(advance(store, open_pair(store, "duel", f"#c{n}", f"A{n}", f"B{n}"),
                              length, rng))
    return fights


def seen(fight: OpenFight) -> tuple[Any, ...]:
    return (fight.id, fight.channel, fight.kind, fight.sheets, fight.accounts, fight.state,
            fight.commands, fight.seq)


def restart(store: Store, caplog: pytest.LogCaptureFixture) -> tuple[list[OpenFight],
                                                                      list[str], str]:
    """``open_fights`` as a restart calls it, and what it says of its snapshots."""
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="storage.fights"):
        fights, problems = store.open_fights()
    said = [r.getMessage() for r in caplog.records if "open fights rebuilt" in r.getMessage()]
    return fights, problems, said[-1]


def snapshots(engine: Engine) -> dict[int, int]:
    with engine.connect() as connection:
        return dict(connection.execute(text("SELECT fight_id, seq FROM fight_snapshots")).all())


def test_a_restart_from_snapshots_gives_what_the_full_replay_gives(
        store: Store, caplog: pytest.LogCaptureFixture) -> None:
    live = fights_of(store, LENGTHS, seed=7)
    first, problems, said = restart(store, caplog)   # no snapshot yet: every fight replayed
    assert problems == []
    assert said == f"7 open fights rebuilt, 0 from their snapshots; " \
                   f"{sum(len(f.commands) for f in live)} commands replayed"
    assert [seen(f) for f in first] == [seen(f) for f in live]
    assert snapshots(store.engine) == {f.id: f.seq for f in live}

    again, problems, said = restart(store, caplog)   # nothing played since: none replayed
    assert said == "7 open fights rebuilt, 7 from their snapshots; 0 commands replayed"
    assert [seen(f) for f in again] == [seen(store.fight(f.id)) for f in live]

    rng = random.Random(8)   # play on from the restart, then restart again
    on = [advance(store, fight, n % 4 + 1, rng) for n, fight in enumerate(again)]
    later, problems, said = restart(store, caplog)
    assert problems == []
    played = sum(a.seq - b.seq for a, b in zip(on, again, strict=True))
    assert said == f"7 open fights rebuilt, 7 from their snapshots; {played} commands replayed"
    assert [seen(f) for f in later] == [seen(f) for f in on]
    assert [seen(f) for f in later] == [seen(store.fight(f.id)) for f in on]   # the oracle
    assert snapshots(store.engine) == {f.id: f.seq for f in on}


def test_an_undo_after_the_snapshot_replays_the_fight_whole(
        store: Store, caplog: pytest.LogCaptureFixture) -> None:
    fight, = fights_of(store, (12,), seed=3)
    restart(store, caplog)
    store.undo(fight.id, "mod", "a misread roll")
    fights, problems, said = restart(store, caplog)
    assert problems == [] and said.startswith("1 open fights rebuilt, 0 from their snapshots")
    assert [seen(f) for f in fights] == [seen(store.fight(fight.id))]


EDITS = {
    "its state": "UPDATE fight_snapshots SET state = replace(state, '\"turn\":', '\"turn\": 1')",
    "its seal": "UPDATE fight_snapshots SET seal = replace(seal, substr(seal, 1, 1), "
                "CASE WHEN substr(seal, 1, 1) = 'a' THEN 'b' ELSE 'a' END)",
    "its count": "UPDATE fight_snapshots SET seq = seq - 1",
}


@pytest.mark.parametrize("edited", EDITS)
def test_an_edited_snapshot_is_not_used_and_the_fight_resumes_by_replay(
        store: Store, caplog: pytest.LogCaptureFixture, edited: str) -> None:
    fight, = fights_of(store, (30,), seed=5)
    restart(store, caplog)
    with store.engine.begin() as connection:
        connection.execute(text(EDITS[edited]))
    fights, problems, said = restart(store, caplog)
    assert problems == []
    assert said == f"1 open fights rebuilt, 0 from their snapshots; {fight.seq} commands replayed"
    assert [seen(f) for f in fights] == [seen(fight)]
    assert snapshots(store.engine) == {fight.id: fight.seq}   # sealed again


def test_a_snapshot_sealed_with_another_key_is_not_used(
        store: Store, caplog: pytest.LogCaptureFixture, database_url: str) -> None:
    fight, = fights_of(store, (20,), seed=6)
    other = Store(store.engine, keyring=Keyring.of("another club's key, long enough " * 2),
                  systems=store.systems)
    other.open_fights()   # writes its own snapshot
    fights, problems, said = restart(store, caplog)
    assert problems == [] and said.startswith("1 open fights rebuilt, 0 from their snapshots")
    assert [seen(f) for f in fights] == [seen(fight)]


def test_an_edited_event_log_under_a_good_snapshot_still_blocks_the_fight(
        store: Store, caplog: pytest.LogCaptureFixture) -> None:
    fight, = fights_of(store, (30,), seed=9)
    restart(store, caplog)
    with store.engine.begin() as connection:   # the second initiative roll logged as 1 more
        row = connection.execute(FightEvent.__table__.select().where(
            FightEvent.fight_id == fight.id, FightEvent.seq == 2)).first()
        assert row is not None
        connection.execute(FightEvent.__table__.update().where(FightEvent.id == row.id)
                           .values(event={**row.event, "roll": row.event["roll"] + 1}))
    fights, problems, _ = restart(store, caplog)
    assert fights == []
    assert problems == [f"fight {fight.id} in #c0: replay of command 2 differs from the "
                        "event log"]
    with store.engine.connect() as connection:   # the snapshot is left as it was
        assert connection.execute(FightSnapshot.__table__.select()).all() != []


def test_migration_0010_down_and_up_again_drops_only_the_snapshots(
        store: Store, caplog: pytest.LogCaptureFixture) -> None:
    fight, = fights_of(store, (15,), seed=4)
    restart(store, caplog)
    downgrade(store.engine, "0009")
    assert "fight_snapshots" not in inspect(store.engine).get_table_names()
    upgrade(store.engine)
    assert snapshots(store.engine) == {}
    fights, problems, said = restart(store, caplog)   # replayed whole, sealed again
    assert problems == [] and said.startswith("1 open fights rebuilt, 0 from their snapshots")
    assert [seen(f) for f in fights] == [seen(fight)]
    assert snapshots(store.engine) == {fight.id: fight.seq}


def test_an_ended_fights_snapshot_is_dropped_at_the_next_start_that_keeps_one(
        store: Store, caplog: pytest.LogCaptureFixture) -> None:
    ended, going = fights_of(store, (6, 6), seed=2)
    restart(store, caplog)
    store.end_unread(ended.id, None, "mod", "the players left")   # a draw by a ruling
    going = advance(store, going, 2, random.Random(1))
    fights, problems, _ = restart(store, caplog)
    assert [f.id for f in fights] == [going.id] and problems == []
    assert snapshots(store.engine) == {going.id: going.seq}
