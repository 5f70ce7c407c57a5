"""A fight's command and event log digests, kept as the fight goes.

A ``fight-closed`` row holds SHA-256 digests of the fight's whole command and event logs
(``fight_digests.fight_digest``: the canonical JSON of the list of rows). That JSON is
``[``, the rows' own canonical JSON joined by ``,``, then ``]``, so the hash can be fed
a row at a time as each is written and finished at the end, instead of reading both
logs back and hashing them again. A fight loaded from the database (a restart, an
undo) has none, and its end reads the logs as before; ``storage.audit`` always
recomputes them from the stored rows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii as quoted
from typing import Any

from storage.ledger import canonical

__all__ = ["LogDigests"]


@dataclass(frozen=True, slots=True)
class _Running:
    """The hash of a list's JSON up to its last row (never fed again: adding copies)."""

    hash: Any
    rows: int

    def add(self, rows: Iterable[str]) -> _Running:
        """With ``rows``, each a row's canonical JSON text."""
        texts = list(rows)
        if not texts:
            return self
        fed = self.hash.copy()
        fed.update((("," if self.rows else "") + ",".join(texts)).encode())
        return _Running(fed, self.rows + len(texts))

    def hexdigest(self) -> str:
        ended = self.hash.copy()
        ended.update(b"]")
        return str(ended.hexdigest())


@dataclass(frozen=True, slots=True)
class LogDigests:
    """The digests of a fight's command rows ``[seq, command, actor, created_at]`` and
    event rows ``[seq, idx, event]`` up to command ``seq``, as stored."""

    commands: _Running
    events: _Running
    seq: int

    @classmethod
    def start(cls, events: Iterable[dict[str, Any]]) -> LogDigests:
        """A new fight's, with the event rows of its start (command 0)."""
        empty = _Running(hashlib.sha256(b"["), 0)
        return cls(empty, empty, 0).add((), events, 0)

    def add(self, commands: Iterable[dict[str, Any]], events: Iterable[dict[str, Any]],
            seq: int) -> LogDigests:
        """With the rows of the commands up to ``seq`` written, as their INSERTs' values
        (``storage.fight_log``: the command and the event already canonical JSON text,
        so a row's text is put together, the same as ``canonical`` of its list)."""
        return LogDigests(
            self.commands.add(f'[{row["seq"]},{row["command"]},{canonical(row["actor"])},'
                              f'{canonical(row["created_at"])}]' for row in commands),
            self.events.add(f'[{row["seq"]},{row["idx"]},{row["event"]}]' for row in events),
            seq)

    def add_stored(self, commands: Iterable[tuple[int, str, str, str]],
                   events: Iterable[tuple[int, int, str]], seq: int) -> LogDigests:
        """With rows as read back, ``(seq, command, actor, created_at)`` and ``(seq, idx,
        event)``, each JSON cell the text stored (``storage.fight_resume``); the strings
        quoted as ``canonical`` quotes them."""
        return LogDigests(
            self.commands.add(f'[{seq_},{command},{quoted(actor)},{quoted(created)}]'
                              for seq_, command, actor, created in commands),
            self.events.add(f"[{seq_},{idx},{event}]" for seq_, idx, event in events), seq)

    def hexdigests(self) -> dict[str, str]:
        return {"commands": self.commands.hexdigest(), "events": self.events.hexdigest()}
