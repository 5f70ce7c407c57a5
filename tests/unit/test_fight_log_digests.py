"""A fight's running log digests, fed the JSON text its rows are written with
(``storage.fight_log``), equal the digests ``audit verify`` recomputes from the rows
read back (``ledger``: the canonical JSON of the list of rows)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from storage.fight_log import command_row, event_rows
from storage.ledger import canonical
from storage.log_digests import LogDigests

SCALARS = st.none() | st.booleans() | st.integers() | st.text() | \
    st.floats(allow_nan=False, allow_infinity=False)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
COMMANDS = st.lists(st.tuples(VALUES, st.text(max_size=20), st.text(max_size=32),
                              st.lists(VALUES, max_size=3)), max_size=6)


def read_back(text: str) -> Any:
    """A JSON column's value as a reader gets it."""
    return json.loads(text)


def digest(rows: list[list[Any]]) -> str:
    return hashlib.sha256(canonical(rows).encode()).hexdigest()


@given(st.lists(VALUES, max_size=3), COMMANDS)
def test_running_digests_are_the_digests_of_the_rows_read_back(
        start: list[Any], commands: list[tuple[Any, str, str, list[Any]]]) -> None:
    started = event_rows(7, 0, start)
    logs = LogDigests.start(started)
    command_log: list[list[Any]] = []
    event_log = [[row["seq"], row["idx"], read_back(row["event"])] for row in started]
    for seq, (command, actor, created_at, events) in enumerate(commands, start=1):
        row, caused = command_row(7, seq, command, actor, created_at), event_rows(7, seq, events)
        logs = logs.add([row], caused, seq)
        command_log.append([seq, read_back(row["command"]), actor, created_at])
        event_log += [[row["seq"], row["idx"], read_back(row["event"])] for row in caused]
    assert logs.hexdigests() == {"commands": digest(command_log), "events": digest(event_log)}
