"""A fight going on, watched live: the live page shows the steps so far, and its stream
(server-sent events, through the real ``ancath-bot web`` over HTTP) brings each step
the referee stores while it is watched, and ends with the fight. One poll of the store
serves every watcher of a fight; the access token guards the stream; ``!fight N``
links the live page while the fight goes on, the replay once it ended."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from club import Club
from pages_store import read_only_store
from starlette.testclient import TestClient
from webserver import web_server

from bot.config import WebConfig
from bot.safe_text import DEFAULT_BUDGET
from bot.web import live as live_module
from bot.web.app import make_app
from bot.web.live import LiveFeeds
from storage.store import Store


def begun(tmp_path: Path) -> Club:
    """Olaf has challenged Gorbag and Gorbag accepted: fight 1 goes on at step 0."""
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("olaf !challenge Gorbag practice")
    club.dice.push(50, 40)
    club.say("gob !accept")
    return club


def finish(club: Club) -> list[str]:
    """Olaf hits, Gorbag's dodge fails, damage 5 kills: the last two steps (once Olaf
    chose to act first)."""
    club.dice.push(20)
    said = club.say("olaf !attack")
    club.dice.push(80, 5)
    return said + club.say("gob !dodge")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tuple[Club, Store]]:
    club = begun(tmp_path)
    with read_only_store(club.db) as store:
        yield club, store


def stream(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, object]]]:
    """The events of a text/event-stream, as (kind, data)."""
    kind = ""
    for line in lines:
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            yield kind, json.loads(line[6:])


def test_the_stream_brings_each_new_step_and_ends_with_the_fight(tmp_path: Path) -> None:
    club = begun(tmp_path)
    with web_server(club.db) as server, httpx.stream(
            "GET", f"{server.address}fights/1/events", timeout=10) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = stream(response.iter_lines())
        kind, step = next(events)
        assert (kind, step["number"]) == ("step", 0)
        assert "Practice fight: Olaf (olaf) vs Gorbag (gob)" in str(step["line"])
        heard = club.say("olaf !first")   # stored by the referee while the page watches
        kind, step = next(events)
        assert (kind, step["number"], step["line"]) == ("step", 1, heard[0].split(" ", 1)[1])
        assert str(step["sent"]).endswith("; olaf: !first")
        finish(club)
        got = [next(events) for _ in range(3)]
        assert [(k, d.get("number")) for k, d in got] == [("step", 2), ("step", 3), ("end", None)]
        assert "Olaf wins by a kill." in str(got[1][1]["line"])
        assert "Gorbag (spear): a killing blow; beaten by a killing blow" in str(
            got[1][1]["state"])
        assert got[2][1] == {"line": "The fight is over: its replay says how it ended.",
                             "replay": "/fights/1"}
        assert list(events) == []   # the stream ended with the fight
    assert server.process.returncode == 0, server.rest


def test_the_server_stops_at_once_with_a_stream_open(tmp_path: Path) -> None:
    club = begun(tmp_path)
    with web_server(club.db) as server, httpx.stream(
            "GET", f"{server.address}fights/1/events?from=1", timeout=10) as response:
        assert response.status_code == 200
        server.process.send_signal(2)   # Ctrl-C while a browser watches
        started = time.monotonic()
        assert server.process.wait(timeout=10) == 0
        assert time.monotonic() - started < 5
        assert list(stream(response.iter_lines())) == []


def test_every_watcher_shares_one_poll(store: tuple[Club, Store],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    club, reader = store
    monkeypatch.setattr(live_module, "POLL", 0.02)
    feeds = LiveFeeds(reader)

    async def until(ready: object, what: str) -> None:
        deadline = time.monotonic() + 5
        while not callable(ready) or not ready():
            assert time.monotonic() < deadline, what
            await asyncio.sleep(0.01)

    async def watch() -> None:
        async with feeds.watching(1) as one, feeds.watching(1) as two, \
                feeds.watching(1) as three:
            assert one is two is three
            await until(lambda: one.read, "the first poll")
            assert (feeds.reads, len(one.steps)) == (1, 1)
            await asyncio.sleep(0.2)   # polls that find nothing new read nothing more
            assert feeds.reads == 1
            club.say("olaf !first")
            await until(lambda: len(one.steps) == 2, "the new step")
            assert feeds.reads == 2 and not one.over
        assert feeds._feeds == {}   # nobody watches: no more polls

    asyncio.run(watch())


def test_the_stream_is_behind_the_token_and_resumes_after_the_last_event(
        store: tuple[Club, Store]) -> None:
    club, reader = store
    club.say("olaf !first")
    finish(club)
    client = TestClient(make_app(reader, token="s3cret"), follow_redirects=False)
    refused = client.get("/fights/1/events")
    assert refused.status_code == 401 and "event:" not in refused.text
    bearer = {"authorization": "Bearer s3cret"}
    whole = client.get("/fights/1/events", headers=bearer)
    assert whole.headers["content-type"].startswith("text/event-stream")
    assert [k for k, _ in stream(iter(whole.text.splitlines()))] == ["step"] * 4 + ["end"]
    assert "id: 2\nevent: step\n" in whole.text
    resumed = client.get("/fights/1/events", headers={**bearer, "last-event-id": "1"})
    assert [d.get("number") for _, d in stream(iter(resumed.text.splitlines()))] == [
        2, 3, None]
    assert client.get("/fights/9/events", headers=bearer).status_code == 404
    assert client.get("/fights/x1/live", headers=bearer).status_code == 404


def test_the_live_page_without_script_says_to_reload(store: tuple[Club, Store]) -> None:
    club, reader = store
    client = TestClient(make_app(reader))
    going = client.get("/fights/1/live").text
    assert "Going on: reload to see new steps." in going
    assert 'data-events="/fights/1/events?from=1"' in going
    assert '<script src="/static/live.js" defer></script>' in going
    assert "Practice fight: Olaf (olaf) vs Gorbag (gob)" in going
    assert 'href="/fights/1/live" id="watch-live"' in client.get("/fights/1").text
    club.say("olaf !first")
    finish(club)
    ended = client.get("/fights/1/live").text
    assert "The fight is over:" in ended and "data-events" not in ended
    assert "live.js" not in ended and 'id="watch-live"' not in client.get("/fights/1").text


def test_fight_links_the_live_page_while_it_goes_on(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    club = begun(tmp_path)
    web = WebConfig(base_url="https://club.example.org")
    monkeypatch.setattr(club.referee, "services", replace(
        club.referee.services, config=club.config.model_copy(update={"web": web})))
    (going,) = club.say("ann !fight 1")
    assert going.endswith("ongoing in #arena; live: https://club.example.org/fights/1/live")
    club.say("olaf !first")
    finish(club)
    (ended,) = club.say("ann !fight 1")
    assert ended.endswith("Olaf won by kill; replay: https://club.example.org/fights/1")


def test_the_live_link_stays_one_line_at_the_longest(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    club = Club(tmp_path)
    channel, first, second = "#" + "c" * 49, "A" * 24, "B" * 24   # channel: 50 characters
    club.say(f"{'p' * 30} !create {first} free-clans broadsword shield")
    club.say(f"{'q' * 30} !create {second} free-clans broadsword shield")
    club.say(f"{channel} {'p' * 30} !challenge {second}")
    club.dice.push(50, 40)
    club.say(f"{channel} {'q' * 30} !accept")
    web = WebConfig(base_url="https://" + "r" * 72)   # web.base_url's longest: 80
    monkeypatch.setattr(club.referee, "services", replace(
        club.referee.services, config=club.config.model_copy(update={"web": web})))
    (line,) = club.say(f"{channel} {'n' * 30} !fight 1")
    assert line.endswith(f"ongoing in {channel}; live: https://{'r' * 72}/fights/1/live")
    assert len(line.split(" ", 1)[1].encode()) <= DEFAULT_BUDGET
