"""The local console channel: stdin lines in, ``<target> <text>`` lines out.

A line is ``<nick> <message>`` for the default channel, or ``<#channel> <nick>
<message>`` for another. On the console a nick is its own account, so moderators are
listed by nick in the configuration.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable

from pydantic import ValidationError

from bot.messages import Incoming, Outgoing, Sender
from bot.odds import pending
from bot.referee import Referee

__all__ = ["ANSWERS_WAIT", "DEFAULT_CHANNEL", "parse_line", "serve"]

DEFAULT_CHANNEL = "#console"
ANSWERS_WAIT = 30.0
"""At end of input, the longest wait in seconds for ``!odds`` answers still due."""


def parse_line(line: str) -> Incoming | None:
    """The message a console line stands for; None for a blank or one-word line, or a
    nick longer than 64 characters."""
    words = line.strip().split(" ", 2 if line.startswith(("#", "&")) else 1)
    channel = DEFAULT_CHANNEL
    if words and words[0].startswith(("#", "&")):
        channel, words = words[0], words[1:]
    if len(words) < 2 or not words[0]:
        return None
    nick, text = words
    try:
        return Incoming(sender=Sender(nick=nick, account=nick), text=text, channel=channel)
    except ValidationError:
        return None  # a nick no IRC server would allow


def serve(
    referee: Referee, lines: Iterable[str], write: Callable[[str], None],
    tick_seconds: float = 1.0,
) -> None:
    """Feed every line to the referee and write what it says, in order; between lines
    the clock ticks about once a second, so time-limit warnings come on their own, and
    lines the referee finishes later (``!odds``) are written as they come. At end of
    input it waits for those still due (at most ``ANSWERS_WAIT``) and writes them."""
    inbox: queue.Queue[str | list[Outgoing] | None] = queue.Queue()
    referee.services.odds.deliver_answers = inbox.put

    def read() -> None:
        try:
            for line in lines:
                inbox.put(line)
        finally:
            inbox.put(None)

    threading.Thread(target=read, name="console-input", daemon=True).start()
    for table in referee.tables.values():   # a fight the records could not give back
        if table.stuck is not None:
            write(f"{table.channel} {table.stuck.line}")
    ended = False
    while True:
        try:
            line = inbox.get(timeout=tick_seconds)
        except queue.Empty:
            line = ""
        if line is None:
            if ended:
                return
            pending.wait(referee, ANSWERS_WAIT)  # end of input: the answers still due,
            inbox.put(None)  # then an end after them
            ended = True
            continue
        if isinstance(line, list):
            out = line
        else:
            msg = parse_line(line)
            out = referee.handle(msg) if msg is not None else []
        for item in out + referee.tick():
            write(f"{item.target} {item.text}")
