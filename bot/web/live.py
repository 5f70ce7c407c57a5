"""A fight going on, live: ``/fights/<n>/live`` shows the steps so far as the replay
words them (:mod:`bot.web.replay`), and ``/fights/<n>/events`` streams each new step as
the bot stores it (server-sent events: ``event: step``, its number as the event's id,
so a browser that reconnects goes on where it stopped; ``event: end`` once the fight is
over, and the stream ends). ``static/live.js`` appends the new steps; without script
the page says to reload it.

The store is polled off the event loop, in a thread, about once a second, by one task
for every fight anyone watches (:class:`LiveFeeds`): one cheap query per fight
(``Store.fight_progress``, its newest command), and the fight read and replayed only
when that moved, however many watch it. The access gate applies to the stream as to
every page. At most ``WATCHERS`` streams are open at once (each holds a connection):
one more is refused (503) rather than let watchers use up the server's connections."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from bot.web.glance import Glance
from bot.web.query import LARGEST, NotFound, NotNow, number
from bot.web.replay import Step, replay
from bot.web.site import render
from storage.ledger_view import LedgerFilter
from storage.store import Store

__all__ = ["KEEPALIVE", "POLL", "WATCHERS", "LiveFeeds", "events", "live", "state_words"]

POLL = 1.0
"""Seconds between two polls of the store."""
KEEPALIVE = 15.0
"""Seconds of quiet after which a stream sends a comment (proxies keep it open)."""
WATCHERS = 200
"""Streams open at once at most, over every fight."""
_log = logging.getLogger(__name__)


def state_words(state: Glance) -> str:
    """The state after a step in one line, as the replay's list says it."""
    sides = " / ".join(f"{s.name} ({s.weapon}): {s.injuries}" + (f"; {s.holds}" if s.holds
                       else "") + (f"; {s.fate}" if s.fate else "") for s in state.sides)
    return (f"After it: {state.line}" + (f". {sides}." if sides else "")
            + (f" The end: {state.ends}." if state.ends else ""))


def _shown(step: Step) -> dict[str, Any]:
    """A step as the live page shows it (and the stream sends it)."""
    sent = "; ".join([step.at[:19].replace("T", " ")]
                     + [f"{s.who}: {s.words}" for s in step.sent])
    return {"number": step.number, "line": step.line, "sent": sent,
            "state": state_words(step.state)}


@dataclass(eq=False)
class _Feed:
    """One watched fight: its steps as last read, and who watches."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    progress: tuple[int, bool] | None = None
    """Its newest command and whether it goes on, as last read."""
    read: bool = False
    watchers: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the steps change, then replaced."""

    @property
    def over(self) -> bool:
        return self.read and (self.progress is None or not self.progress[1])


class LiveFeeds:
    """Every watched fight's feed, and the one task that polls them."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.reads = 0
        """How many times a fight was read and replayed (the tests count them)."""
        self.closing = False
        self.watchers = 0
        """Streams open now, over every fight."""
        self._feeds: dict[int, _Feed] = {}
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def read(self, fight_id: int) -> tuple[Any, list[Step]]:
        """Fight ``fight_id``'s summary and steps, of one moment (None, [] if none)."""
        store = self.store
        with store.reading():
            summary = store.fight_summary(fight_id)
            if summary is None:
                return None, []
            log = store.command_log(fight_id)
            rows = list(store.ledger_rows(where=LedgerFilter(fight=fight_id)))
        return summary, replay(summary, log, rows).steps

    def _poll(self, known: dict[int, tuple[int, bool] | None]
              ) -> dict[int, tuple[tuple[int, bool] | None, list[dict[str, Any]] | None]]:
        """In a thread: each fight's progress, and its steps where that moved."""
        out: dict[int, tuple[tuple[int, bool] | None, list[dict[str, Any]] | None]] = {}
        for fight_id, was in known.items():
            now = self.store.fight_progress(fight_id)
            steps = None
            if now is not None and now != was:
                self.reads += 1
                steps = [_shown(step) for step in self.read(fight_id)[1]]
            out[fight_id] = (now, steps)
        return out

    async def _run(self) -> None:
        try:
            while self._feeds and not self.closing:
                known = {fight_id: feed.progress for fight_id, feed in self._feeds.items()}
                try:
                    found = await run_in_threadpool(self._poll, known)
                except Exception as error:   # the records cannot be read now: next time
                    _log.warning("the live pages could not read the fights: %s", error)
                    found = {}
                for fight_id, (progress, steps) in found.items():
                    feed = self._feeds.get(fight_id)
                    if feed is None:
                        continue
                    feed.steps = steps if steps is not None else feed.steps
                    feed.progress, feed.read = progress, True
                    feed.changed.set()
                    feed.changed = asyncio.Event()
                await asyncio.sleep(POLL)
        finally:
            self._task = None

    @asynccontextmanager
    async def watching(self, fight_id: int) -> AsyncIterator[_Feed]:
        """Fight ``fight_id``'s feed, polled for as long as someone watches it."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:   # a new event loop (a test client's): start afresh
            self._loop, self._feeds, self._task, self.watchers = loop, {}, None, 0
        feed = self._feeds.setdefault(fight_id, _Feed())
        feed.watchers += 1
        self.watchers += 1
        if self._task is None:
            self._task = loop.create_task(self._run())
        try:
            yield feed
        finally:
            feed.watchers -= 1
            self.watchers -= 1
            if not feed.watchers:
                self._feeds.pop(fight_id, None)

    def close(self) -> None:
        """The server is stopping: every stream ends now (they would hold it open)."""
        self.closing = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            for feed in list(self._feeds.values()):
                loop.call_soon_threadsafe(feed.changed.set)


def _fight_id(request: Request) -> int:
    text = request.path_params["number"]
    if not (text.isascii() and text.isdecimal() and 0 < len(text) <= 12) \
            or int(text) > LARGEST:
        raise NotFound(f"no fight number {text[:60]}")
    return int(text)


def live(request: Request) -> Response:
    """The live page: the steps so far, and the stream's address for live.js."""
    fight_id = _fight_id(request)
    summary, steps = request.app.state.live.read(fight_id)
    if summary is None:
        raise NotFound(f"no fight number {fight_id}")
    return render(request, "live.html", fight=summary, steps=[_shown(s) for s in steps])


def _event(kind: str, data: dict[str, Any], ident: int | None = None) -> str:
    head = f"id: {ident}\n" if ident is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data)}\n\n"


def _start(request: Request) -> int:
    """The first step to send: after the ``Last-Event-ID`` a reconnecting browser
    sends, else ``?from=N`` (the steps the page shows already), else 0."""
    last = request.headers.get("last-event-id", "")
    if last.isascii() and last.isdecimal() and len(last) <= 12:
        return int(last) + 1
    return number(request.query_params, "from", low=0) or 0


async def events(request: Request) -> Response:
    """The stream of fight ``number``'s new steps (text/event-stream)."""
    fight_id = _fight_id(request)
    feeds: LiveFeeds = request.app.state.live
    if await run_in_threadpool(feeds.store.fight_progress, fight_id) is None:
        raise NotFound(f"no fight number {fight_id}")
    if feeds.watchers >= WATCHERS:
        raise NotNow(f"{WATCHERS} streams are open, the most at once: reload the page in "
                     "a minute")
    start = _start(request)

    async def stream() -> AsyncIterator[str]:
        sent = start
        async with feeds.watching(fight_id) as feed:
            while not feeds.closing:
                changed = feed.changed
                for step in feed.steps[sent:]:
                    yield _event("step", step, step["number"])
                sent = max(sent, len(feed.steps))
                if feed.over:
                    yield _event("end", {"line": "The fight is over: its replay says "
                                         "how it ended.", "replay": f"/fights/{fight_id}"})
                    return
                try:
                    await asyncio.wait_for(changed.wait(), KEEPALIVE)
                except TimeoutError:
                    yield ": still watching\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"x-accel-buffering": "no"})
