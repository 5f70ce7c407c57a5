"""The codec for An Cath's commands, events and sheets (see ``rules.codec``)."""

from __future__ import annotations

import typing

from rules.ancath import commands, events
from rules.ancath.sheet import Sheet
from rules.codec import Codec

__all__ = ["CODEC"]

CODEC = Codec(
    [*typing.get_args(commands.Command), *typing.get_args(events.Event), Sheet]
)
"""Decodes every An Cath command, event and sheet by its ``type`` name."""
