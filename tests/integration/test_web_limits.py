"""Hostile numbers and crowds on the leadership pages (issue 35's review): a number in
an address past what the database's ids hold is a 400 (or, as a fight's number, a 404)
on every backend, never the 500 PostgreSQL's ``integer`` would give; a live stream past
the most open at once is refused as busy (503), not left to use up the connections."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from club import Club
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.testclient import TestClient

from bot.web import live as live_module
from bot.web.app import make_app
from bot.web.live import events
from bot.web.query import NotNow

PAST = 2**31   # one past PostgreSQL's integer


def test_numbers_past_the_databases_ids_are_refused_not_failed(database_url: str,
                                                               tmp_path: Path) -> None:
    club = Club(tmp_path, database=database_url)
    club.say("gob !create Gorbag goblin club spear")
    club.say("mod !mod bp Gorbag +0.1 a start")
    app = make_app(club.referee.store)
    assert app.state.site.proof.wait(30)
    web = TestClient(app)
    for path, status in (
            (f"/ledger?before={PAST}", 400), (f"/ledger?after={PAST}", 400),
            (f"/ledger?at={PAST - 1}", 400), (f"/ledger?fight={PAST}", 400),
            (f"/ledger?warrior=Gorbag&before={PAST}", 400),
            (f"/ledger.csv?fight={10**12}", 400),
            (f"/fights?before={PAST}", 400), (f"/fights?at={PAST - 1}", 400),
            (f"/fights/{PAST}", 404), (f"/fights/{10**11}/live", 404),
            (f"/fights/{PAST}/events", 404),
            (f"/moderators?before=2026-03-01T20:15:00~r{PAST}", 400),
            (f"/moderators?after=2026-03-01T20:15:00~u{10**11}", 400),
            (f"/ledger?before={PAST - 1}", 200), (f"/ledger?at={PAST - 2}", 200),
            (f"/fights/{PAST - 1}", 404), (f"/integrity?anchor={PAST}:deadbeef", 200)):
        response = web.get(path)
        assert response.status_code == status, (path, response.text[-300:])
        assert "Traceback" not in response.text
    assert "there is no row 2147483648: no ledger row id is over 2147483647" in web.get(
        f"/integrity?anchor={PAST}:deadbeef").text
    assert "before: a whole number from 1 to 2147483647" in web.get(
        f"/ledger?before={PAST}").text
    app.state.site.proof.stop()


def test_a_stream_past_the_most_open_at_once_is_refused_busy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("olaf !challenge Gorbag practice")
    club.dice.push(50, 40)
    club.say("gob !accept")   # fight 1 goes on
    monkeypatch.setattr(live_module, "WATCHERS", 2, raising=False)
    app = make_app(club.referee.store)
    feeds = app.state.live

    def asked() -> Request:
        return Request({"type": "http", "method": "GET", "path": "/fights/1/events",
                        "path_params": {"number": "1"}, "query_string": b"",
                        "headers": [], "app": app})

    async def crowd() -> None:
        async with feeds.watching(1):
            assert isinstance(await events(asked()), StreamingResponse)   # the second
            async with feeds.watching(1):
                with pytest.raises(NotNow, match="2 streams are open, the most at once"):
                    await events(asked())
        assert feeds.watchers == 0
        assert isinstance(await events(asked()), StreamingResponse)   # room again

    asyncio.run(crowd())
    app.state.site.proof.stop()
