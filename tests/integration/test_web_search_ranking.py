"""The search box, the ranking history and the dead warrior's mark on the leadership
pages (issue 35, items 6 and 7), through Starlette's test client over clubs played
through the referee: a mortal fight to a kill, and two warriors overtaking each other
by a moderator's BP."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from html import unescape
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from club import Club
from pages_store import proved_client, read_only_store
from starlette.testclient import TestClient

from bot.web import ranking_history
from bot.web.ranking import X_UNITS, rank_chart, ranking


class Row(NamedTuple):
    """A row as ``Store.ranking_rows`` gives it."""

    id: int
    warrior_id: int | None
    entry: str
    bp: int
    fight_id: int | None
    detail: Any
    created_at: str = "2026-03-01 12:00"


def kill(club: Club) -> None:
    """Fight #1, mortal: Olaf kills Gorbag (dice 50, 40; 20 hits; dodge 80 fails, 5 kills)."""
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    club.say("olaf !challenge Gorbag mortal")
    club.dice.push(50, 40, 20, 80, 5)
    club.say("gob !accept")
    club.say("olaf !first")
    club.say("olaf !attack")
    assert "Gorbag is dead." in club.say("gob !dodge")[-1]


@pytest.fixture
def serve() -> Iterator[object]:
    with ExitStack() as opened:
        yield lambda club: proved_client(opened.enter_context(read_only_store(club.db)))


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    club = Club(tmp_path_factory.mktemp("search"))
    kill(club)
    club.say("gob !create Gorm goblin club spear")
    club.say("one !create Gorm2 free-clans axe shield")   # a name that holds a number
    with read_only_store(club.db) as store:
        yield proved_client(store)


def go(client: TestClient, q: str) -> tuple[int, str]:
    """What ``/search?q=`` answers: where it sends the browser, or the page."""
    response = client.get("/search", params={"q": q}, follow_redirects=False)
    if response.status_code == 303:
        return 303, response.headers["location"]
    return response.status_code, response.text


def words(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip())


def test_every_page_has_the_search_form_in_its_header(killed: TestClient) -> None:
    for path in ("/", "/fights", "/ledger", "/warriors/Olaf", "/nowhere"):
        header = killed.get(path).text.split("</header>")[0]
        assert '<form method="get" action="/search"' in header and 'name="q"' in header


def test_a_fight_number_goes_to_the_fight(killed: TestClient) -> None:
    assert go(killed, "#1") == go(killed, "# 001") == (303, "/fights/1")


def test_a_name_goes_to_its_warrior_folded_as_the_bot_folds_names(killed: TestClient) -> None:
    assert go(killed, "OLAF") == go(killed, " olaf ") == (303, "/warriors/Olaf")
    assert go(killed, "gorb") == (303, "/warriors/Gorbag")   # the only one found


def test_more_than_one_found_is_a_list_with_the_dead_marked(killed: TestClient) -> None:
    status, html = go(killed, "gor")
    assert status == 200
    assert "3 warriors' names hold it: Gorbag † dead Gorm Gorm2" in words(html)


def test_a_number_with_no_fight_is_looked_for_in_the_names(killed: TestClient) -> None:
    assert go(killed, "2") == (303, "/warriors/Gorm2")


def test_nothing_found_says_so(killed: TestClient) -> None:
    assert "Nothing found for <q>zz</q>: no warrior's name holds it." in unescape(
        go(killed, "zz")[1])
    assert "no warrior's name holds it, and there is no fight #99." in words(
        go(killed, "#99")[1])
    assert "Type a warrior's name" in words(go(killed, "")[1])


def test_hostile_words_are_escaped_and_long_ones_refused(killed: TestClient) -> None:
    status, html = go(killed, "<script>alert(1)</script>%_")
    assert status == 200 and "<script" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;%_" in html
    status, html = go(killed, "x" * 61)
    assert status == 400
    assert "q: a warrior's name or a fight number, at most 60 characters" in words(html)


def test_the_standings_mark_a_dead_warrior(killed: TestClient) -> None:
    html = killed.get("/").text
    assert '<a href="/warriors/Gorbag">Gorbag</a> <span class="dead">† dead</span>' in html
    assert '<a href="/warriors/Olaf">Olaf</a></td>' in html


def test_two_warriors_overtaking_each_other(tmp_path: Path, serve: object) -> None:
    club = Club(tmp_path)
    club.say("ann !create Alda free-clans axe shield")
    club.say("bob !create Bron goblin club spear")
    for line in ("mod !mod bp Bron +1.0 first", "mod !mod bp Alda +2.0 second",
                 "mod !mod bp Bron +1.5 third"):
        assert "recorded" in club.say(line)[-1]
    store = club.referee.store
    found: list[object] = []
    store.ranking_rows(99, lambda rows: found.append(ranking(rows)))
    lines, steps, _, _ = found[0]   # type: ignore[misc]
    # before any BP: Alda 1, Bron 2 (by name); then Bron 1, Alda 1, Bron 1 again
    assert steps == 3
    assert [(line.name, line.places, line.now, line.best, line.lowest) for line in lines] == [
        ("Bron", ((1, 1), (2, 2), (3, 1)), 1, 1, 2),
        ("Alda", ((1, 2), (2, 1), (3, 2)), 2, 1, 2)]

    client = serve(club)   # type: ignore[operator]
    table = client.get("/").text.split('id="ranking-table"')[1].split("</table>")[0]
    assert words(table).endswith("Now Warrior Best Lowest Changes of place "
                                 "1 Bron 1 2 2 2 Alda 1 2 2")
    club.say("mod !mod bp Alda +1.0 fourth")   # a new head: drawn again
    table = client.get("/").text.split('id="ranking-table"')[1].split("</table>")[0]
    assert "1 Alda 1 2 3 2 Bron 1 2 3" in words(table)


def test_a_fight_won_counts_for_ties_as_top_ranks_them(tmp_path: Path) -> None:
    club = Club(tmp_path)
    kill(club)
    club.say("mod !mod bp Gorbag +1.0 even")   # 1.5 each: Olaf first by his win
    found: list[object] = []
    club.referee.store.ranking_rows(99, lambda rows: found.append(ranking(rows)))
    lines = found[0][0]   # type: ignore[index]
    assert [(line.name, line.now) for line in lines] == [("Olaf", 1), ("Gorbag", 2)]
    assert club.say("ann !top")[-1].startswith("#arena ann: Standings: 1. Olaf 1.5 BP")


def test_a_slow_walk_keeps_no_page_waiting_one_at_a_time_and_rarely(
        tmp_path: Path, serve: object, monkeypatch: pytest.MonkeyPatch) -> None:
    club = Club(tmp_path)
    club.say("ann !create Alda free-clans axe shield")
    client = serve(club)   # type: ignore[operator]
    assert "1 Alda 1 1 0" in words(client.get("/").text)   # a small club: fresh at once
    history = client.app.state.ranking_history
    walked, release = [], threading.Event()
    slow = history._walk

    def walk(head: object, failed: frozenset[int]) -> object:
        walked.append(head)
        release.wait(5)
        return slow(head, failed)

    monkeypatch.setattr(history, "_walk", walk)
    monkeypatch.setattr(ranking_history, "WAIT_SECONDS", 0.05)
    club.say("bob !create Bron goblin club spear")   # a new head: the walk hangs
    start = time.monotonic()
    html, again = words(client.get("/").text), words(client.get("/").text)
    assert time.monotonic() - start < 1   # each page waited WAIT_SECONDS, not the walk
    assert "Drawn through ledger #1; the newer rows are being drawn" in html
    assert "1 Alda 1 1 0" in html and "Bron" not in html.split("Ranking history")[1]
    assert html == again and len(walked) == 1   # one walk in flight
    release.set()
    for _ in range(50):   # the walk took longer than WAIT_SECONDS: the next waits
        if "Bron" in words(client.get("/").text).split("Ranking history")[1]:
            break
        time.sleep(0.05)
    club.say("mod !mod bp Bron +1.0 busy")
    html = words(client.get("/").text)
    assert len(walked) == 1 and "drawn at most once a minute" in html   # no walk now
    assert re.search(r"Drawn through ledger #2; .* on a visit in (59|60) s\.", html)


def test_the_chart_is_bounded_by_its_resolution() -> None:
    rows = [Row(n, n, "created", 0, None, {"name": f"W{n}"}) for n in range(1, 21)]
    rows += [Row(n, 1 + n % 20, "award", (n * 7919) % 23 + 1, None, None)
             for n in range(21, 100_021)]   # 100,000 steps: the places change at each
    lines, steps, _, _ = ranking(rows)
    assert steps == 100_000 and all(len(line.places) > 10_000 for line in lines)
    chart = rank_chart(lines, steps)
    per_line = (chart.right - chart.left) // X_UNITS + 1
    for line in chart.lines:
        points = re.findall(r"[MHh]", line.path)
        assert len(points) <= per_line + 1
        assert len(re.findall(r"V", line.path)) <= 3 * per_line
        assert len(line.path) < 3_000
        heights = {float(v) for v in re.findall(r"[V ](\d+(?:\.\d+)?)", line.path)}
        assert (min(heights), max(heights)) == (   # its whole vertical extent
            round(12 + (line.best - 1) * 220 / 19), round(12 + (line.lowest - 1) * 220 / 19))


def test_a_sparse_history_keeps_every_place_change() -> None:
    rows = [Row(1, 1, "created", 0, None, {"name": "Alda"}),
            Row(2, 2, "created", 0, None, {"name": "Bron"}),
            Row(3, 2, "award", 10, None, None), Row(4, 1, "award", 20, None, None),
            Row(5, 2, "award", 15, None, None)]
    chart = rank_chart(*ranking(rows))
    assert [line.path for line in chart.lines] == ["M234 12h198V232h195V12H628",
                                                   "M234 232h198V12h195V232H628"]
