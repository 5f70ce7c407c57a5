"""``rules.codec.encode``'s encoders kept by type give what the plain walk by kind gave,
byte for byte once canonical: stored digests and signatures depend on it."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from enum import Enum
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.ancath import commands, events
from rules.ancath.sheet import Sheet
from rules.ancath.state import Action
from rules.codec import encode
from storage.fight_log import command_row, event_rows
from storage.ledger import canonical

CLASSES = [*typing.get_args(commands.Command), *typing.get_args(events.Event), Sheet]


def walked(value: object) -> Any:
    """``encode`` as it was before its encoders were kept by type."""
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {"type": type(value).__name__}
        for f in dataclasses.fields(value):
            data[f.name] = walked(getattr(value, f.name))
        return data
    if isinstance(value, Mapping):
        return {str(walked(k)): walked(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [walked(v) for v in value]
    return value


@settings(max_examples=300, deadline=None)
@given(st.one_of(*(st.from_type(cls) for cls in CLASSES)))
def test_every_an_cath_command_event_and_sheet_encodes_as_before(value: object) -> None:
    assert canonical(encode(value)) == canonical(walked(value))
    assert encode(value) == walked(value)


ANY = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.sampled_from(Action)
    | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=3) | st.lists(inner, max_size=3).map(tuple)
    | st.dictionaries(st.integers() | st.text(max_size=3) | st.sampled_from(Action), inner,
                      max_size=3),
    max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(ANY)
def test_nested_tuples_lists_mappings_and_enums_encode_as_before(value: object) -> None:
    assert canonical(encode(value)) == canonical(walked(value))


@settings(max_examples=200, deadline=None)
@given(st.one_of(*(st.from_type(cls) for cls in CLASSES[:-1])))
def test_a_fight_log_row_holds_the_canonical_json_of_its_command_or_event(
        value: object) -> None:
    (row,) = event_rows(7, 3, [value])
    assert row["event"] == canonical(walked(value))
    assert command_row(7, 3, value, "a0", "now")["command"] == canonical(walked(value))
