"""The leadership pages' pagers and filters (issue 35, item 2) through Starlette's test
client, on the played club (``club_history.played``) grown by two moderators: ``mod``
gives Gorbag and Olaf BP row after row, ``carol`` gives some back, so the ledger, the
moderators' page and a warrior's chart run to many pages (the pages' sizes are made
small here, so a few dozen rows make many pages).

Each pager: Newest, Newer, Older, Oldest, a count, a jump; Newer after Older gives the
same rows back; the filters are kept on every link; a warrior's running balance is the
sum of its ledger rows (every kind) up to each row, on the page and in its CSV."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from html import unescape
from pathlib import Path

import httpx
import pytest
from club import Club
from club_history import played
from pages_store import proved_client, read_only_store
from starlette.testclient import TestClient

from bot import ledger_csv
from bot.web import chart
from bot.web import fights as fights_page
from bot.web import ledger as ledger_page
from bot.web import moderators as moderators_page
from bot.web import warriors as warrior_page
from bot.web.ledger import disposition, filename
from storage.ledger_view import LedgerFilter
from storage.models import Entry
from storage.store import Store

TODAY = datetime.now(UTC).date()


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Club:
    club = played(tmp_path_factory.mktemp("paging"))
    for turn in range(30):
        assert "recorded" in club.say(f"mod !mod bp Gorbag +0.1 round {turn}")[-1]
        if turn % 3 == 0:
            assert "recorded" in club.say(f"mod !mod bp Olaf +0.2 bonus {turn}")[-1]
    assert "moderator now" in club.say("mod !mod add carol runs the Tuesday tourney")[-1]
    for turn in range(4):
        assert "recorded" in club.say(f"carol !mod bp Gorbag -0.1 fine {turn}")[-1]
    return club


@pytest.fixture(scope="module")
def store(club: Club) -> Iterator[Store]:
    with read_only_store(club.db) as store:
        yield store


@pytest.fixture(scope="module")
def client(store: Store) -> TestClient:
    return proved_client(store)   # the ledger's first walk, made as it starts, done


def page(client: TestClient, path: str, status: int = 200) -> httpx.Response:
    response = client.get(path)
    assert response.status_code == status, (path, response.text[-400:])
    return response


def column(html: str, label: str) -> list[str]:
    """The text of each body cell of the column ``label`` (the tables' ``data-label``,
    else the first cell of each row), in order."""
    body = "".join(re.findall(r"<tbody>(.*?)</tbody>", html, re.S))
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    out = []
    for row in rows:
        heads = [unescape(re.sub(r"<[^>]+>", "", h)).strip() for h in re.findall(
            r"<th[^>]*>(.*?)</th>", html[:html.index("<tbody>")].rsplit("<thead>", 1)[1],
            re.S)]
        tds = [unescape(re.sub(r"<[^>]+>", "", c)).strip()
               for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        if len(tds) == len(heads):
            out.append(tds[heads.index(label)])
    return out


def ids(html: str) -> list[int]:
    """The ledger page's row ids (the first word of each Row cell)."""
    return [int(cell.split()[0]) for cell in column(html, "Row")]


def count(html: str) -> str:
    (said,) = re.findall(r'<span class="count">(.*?)</span>', html)
    return unescape(said)


def link(html: str, rel: str) -> str | None:
    found = re.search(rf'<a href="([^"]+)" rel="{rel}">', html)
    return unescape(found[1]) if found else None


def walk(client: TestClient, path: str, rel: str) -> list[tuple[str, list[int]]]:
    """Every page from ``path`` on by the ``rel`` link: each page's count and rows."""
    pages = []
    next_path: str | None = path
    while next_path:
        html = page(client, next_path).text
        pages.append((count(html), ids(html)))
        next_path = link(html, rel)
    return pages


def test_the_ledger_paged_older_then_newer_gives_the_same_rows_with_their_count(
        client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ledger_page, "PAGE", 7)
    wanted = [r["id"] for r in store.ledger_rows(where=LedgerFilter(
        warrior="Gorbag", entries=(Entry.MODERATOR_BP,)))][::-1]
    older = walk(client, "/ledger?warrior=Gorbag&kind=moderator-bp", "next")
    assert [row for _, rows in older for row in rows] == wanted
    assert [said for said, _ in older] == [
        f"Rows {start}-{min(start + 6, len(wanted))} of {len(wanted)}"
        for start in range(1, len(wanted) + 1, 7)]
    last = "/ledger?warrior=Gorbag&kind=moderator-bp&before=" + str(older[-2][1][-1])
    newer = walk(client, last, "prev")
    assert newer == older[::-1]   # Newer walks back through the very same pages
    html = page(client, last).text   # every link keeps the filters
    for rel in ("first", "prev"):
        assert "warrior=Gorbag&kind=moderator-bp" in (link(html, rel) or ""), rel
    assert link(html, "next") is None and link(html, "last") is None
    oldest = page(client, link(page(client, "/ledger?warrior=Gorbag&kind=moderator-bp").text,
                               "last") or "").text
    assert ids(oldest) == wanted[-7:]
    assert count(oldest) == f"Rows {len(wanted) - 6}-{len(wanted)} of {len(wanted)}"


def test_a_jump_lands_on_the_page_holding_the_row_keeping_the_filters(
        client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ledger_page, "PAGE", 5)
    everything = [r["id"] for r in store.ledger_rows()][::-1]
    target = everything[20]
    html = page(client, f"/ledger?at={target}").text
    assert ids(html) == everything[20:25]
    assert count(html) == f"Rows 21-25 of {len(everything)}"
    assert f'<tr id="row-{target}" class="target">' in html
    form = html[html.index('<form method="get" action="/ledger" class="jump">'):]
    assert 'name="at"' in form[:form.index("</form>")]
    olaf = [r["id"] for r in store.ledger_rows("Olaf")][::-1]
    html = page(client, f"/ledger?warrior=Olaf&at={olaf[3] + 1}").text   # not Olaf's
    assert ids(html) == olaf[3:8]
    assert "is not among the rows these filters pick" in html
    form = html[html.index('class="jump"'):]
    assert '<input type="hidden" name="warrior" value="Olaf">' in form[:form.index("</form>")]
    for bad in ("at=0", "at=x", "before=3&after=2", "after=-1"):
        assert "<h1>" in page(client, f"/ledger?{bad}", 400).text


def test_several_entry_kinds_at_once_and_one_still_works(client: TestClient,
                                                        store: Store) -> None:
    html = page(client, "/ledger?kind=award&kind=spend").text
    wanted = [r["id"] for r in store.ledger_rows(where=LedgerFilter(
        entries=(Entry.AWARD, Entry.SPEND)))][::-1]
    assert ids(html) == wanted and set(column(html, "Entry")) == {"award", "spend"}
    assert 'value="award" checked' in html and 'value="spend" checked' in html
    assert 'value="death" checked' not in html
    one = page(client, "/ledger?kind=spend").text
    assert set(column(one, "Entry")) == {"spend"}
    assert "kind: any of" in page(client, "/ledger?kind=award&kind=nonsense", 400).text
    rows = page(client, "/ledger.json?kind=award&kind=spend").json()
    assert [r["id"] for r in rows] == wanted[::-1]


def balances(store: Store, name: str) -> dict[int, str]:
    """Each of ``name``'s rows' BP after it, summed here from all its rows."""
    total, out = 0, {}
    for row in store.ledger_rows(name):
        total += round(row["bp"] * 10)
        out[row["id"]] = f"{total / 10:.1f}"
    return out


def test_one_warriors_running_balance_on_the_page_and_in_its_csv(
        client: TestClient, store: Store) -> None:
    after = balances(store, "Gorbag")
    assert after[max(after)] == f"{store.warrior('Gorbag').sheet.bp / 10:.1f}"
    for query in ("warrior=Gorbag", "warrior=gorbag&kind=award&kind=moderator-bp",
                  "warrior=Gorbag&moderator=carol"):
        html = page(client, f"/ledger?{query}").text
        shown = dict(zip(ids(html), column(html, "Balance"), strict=True))
        assert shown and shown == {row: after[row] for row in shown}, query
        got = list(csv.DictReader(io.StringIO(page(client, f"/ledger.csv?{query}").text)))
        assert {int(r["id"]): r["balance"] for r in got} == {row: after[row] for row in shown}
    header = page(client, "/ledger.csv?warrior=Gorbag").text.splitlines()[0]
    assert header.startswith("id,at,warrior,entry,bp,balance,spent,")
    for query in ("", "?kind=award", "?moderator=mod"):   # not one warrior: no balance
        assert "Balance" not in page(client, f"/ledger{query}").text
        assert "balance" not in page(client, f"/ledger.csv{query}").text.splitlines()[0]
    assert "".join(ledger_csv.csv_chunks([])).strip() == ",".join(ledger_csv.CSV_COLUMNS)


def test_the_downloads_are_named_for_their_filters_in_safe_characters(
        client: TestClient) -> None:
    named = page(client, "/ledger.csv?warrior=Gorbag&kind=award&kind=spend"
                         "&since=2026-03-01&until=2026-03-31").headers["content-disposition"]
    assert named == 'attachment; filename="ancath-ledger-Gorbag-award+spend-2026-03-01-to-' \
                    '2026-03-31.csv"'
    assert page(client, "/ledger.json").headers["content-disposition"] == \
        'attachment; filename="ancath-ledger.json"'
    hostile = page(client, '/ledger.csv?moderator=%22%3B+filename%3Devil.exe%0D%0AX-A%3A+1'
                           '&reason=..%2F..%2Fetc').headers
    assert hostile["content-disposition"] == \
        'attachment; filename="ancath-ledger-by-filename_evil_exe_X-A_1-reason-etc.csv"'
    assert "x-a" not in hostile
    assert disposition(LedgerFilter(warrior="Ólaf", moderator="Åse"), "csv") == (
        'attachment; filename="ancath-ledger-laf-by-se.csv"; '
        "filename*=UTF-8''ancath-ledger-%C3%93laf-by-%C3%85se.csv")   # other letters kept
    assert disposition(LedgerFilter(warrior='Ó"\r\n\u202e'), "csv") == (
        'attachment; filename="ancath-ledger.csv"; filename*=UTF-8\'\'ancath-ledger-%C3%93.csv')
    where = LedgerFilter(warrior='Grí"m\\/\r\n', fight=4, since=TODAY)
    assert filename(where, "csv") == f"ancath-ledger-Gr_m-fight-4-from-{TODAY}.csv"
    assert re.fullmatch(r"[A-Za-z0-9_+.-]+", filename(LedgerFilter(
        warrior="x" * 300, reason="y" * 300, moderator="\u202e" * 9), "json"))


def test_the_fights_list_paged_with_a_count_and_a_jump_to_a_fight(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fights_page, "FIGHTS_PAGE", 3)

    def numbers(html: str) -> list[int]:
        return [int(cell.lstrip("#")) for cell in column(html, "Fight")]
    newest = page(client, "/fights").text
    assert numbers(newest) == [4, 3, 2] and count(newest) == "Fights 1-3 of 4"
    assert column(newest, "Result")[0] == "a draw"   # not "a draw (draw)"
    older = page(client, link(newest, "next") or "").text
    assert numbers(older) == [1] and count(older) == "Fights 4-4 of 4"
    assert numbers(page(client, link(older, "prev") or "").text) == [4, 3, 2]
    assert numbers(page(client, link(newest, "last") or "").text) == [3, 2, 1]
    jumped = page(client, "/fights?at=2").text
    assert numbers(jumped) == [2, 1] and count(jumped) == "Fights 3-4 of 4"
    assert '<tr id="fight-2" class="target">' in jumped
    assert 'name="at"' in jumped and "Go to fight #" in jumped
    assert "No fights here." in page(client, "/fights?before=1").text


def test_the_moderators_page_filtered_by_moderator_and_days_and_paged(
        client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(moderators_page, "PAGE", 4)
    carol = page(client, "/moderators?moderator=carol").text
    assert set(column(carol, "Moderator")) == {"carol"}
    assert count(carol) == "Actions 1-4 of 4"
    assert column(carol, "Why") == [f"fine {turn}" for turn in (3, 2, 1, 0)]
    everything = store.moderator_window(limit=1000)
    older = walk_actions(client, "/moderators?since=" + str(TODAY), "next")
    assert [w for _, whys in older for w in whys] == [
        entry.reason if not isinstance(entry, dict) else entry["reason"]
        for entry in everything.items]
    assert older[0][0] == f"Actions 1-4 of {everything.total}"
    last = link(page(client, "/moderators?since=" + str(TODAY)).text, "last") or ""
    assert f"since={TODAY}" in last
    newer = walk_actions(client, last, "prev")   # pages counted from the oldest end
    assert [w for _, whys in newer[::-1] for w in whys] == [w for _, whys in older for w in whys]
    assert newer[0][0] == f"Actions {everything.total - 3}-{everything.total} of " \
                          f"{everything.total}"
    yesterday = TODAY - timedelta(days=1)
    assert "No moderator's action here (of these filters)." in page(
        client, f"/moderators?until={yesterday}").text
    oldest = page(client, link(page(client, "/moderators?moderator=mod").text, "last") or "").text
    assert "undo: took the fight back to its command 3" in column(oldest, "What")
    assert set(column(oldest, "Moderator")) == {"mod"}
    assert "give one of before and after" in page(
        client, "/moderators?before=2026-01-01T00:00~r1&after=2026-01-01T00:00~r1", 400).text


def test_the_moderators_page_jumps_to_a_day(
        client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(moderators_page, "PAGE", 4)
    first = page(client, "/moderators").text
    assert 'type="date" name="day"' in first
    total = store.moderator_window(limit=1000).total
    for day in (TODAY, TODAY + timedelta(days=1)):   # that day's newest action first
        jumped = page(client, f"/moderators?day={day}").text
        assert column(jumped, "Why") == column(first, "Why")
        assert count(jumped) == f"Actions 1-4 of {total}"
    before = page(client, f"/moderators?day={TODAY - timedelta(days=1)}").text
    assert column(before, "Why") == [] and link(before, "first") is not None
    assert "day: a day as YYYY-MM-DD" in page(client, "/moderators?day=soon", 400).text


def walk_actions(client: TestClient, path: str, rel: str) -> list[tuple[str, list[str]]]:
    pages = []
    next_path: str | None = path
    while next_path:
        html = page(client, next_path).text
        pages.append((count(html), column(html, "Why")))
        next_path = link(html, rel)
    return pages


def test_a_warriors_lists_each_paged_on_its_own_with_jumps(
        client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warrior_page, "LIST_PAGE", 10)
    steps = [row for row, bp in ((r["id"], r["bp"]) for r in store.ledger_rows("Gorbag")) if bp]
    html = page(client, "/warriors/Gorbag").text
    table = html[html.index('id="steps"'):html.index('id="fights"')]
    assert ids(table) == steps[-10:]   # the newest page, oldest first as the chart runs
    assert count(table) == f"Steps {len(steps) - 9}-{len(steps)} of {len(steps)}"
    assert html.count('<circle class="mark"') + html.count('class="mark moderated"') == \
        len(steps)   # the chart keeps every step
    second = page(client, link(table, "next") or "").text
    assert ids(second[second.index('id="steps"'):second.index('id="fights"')]) == \
        steps[-20:-10]
    assert (link(table, "next") or "").endswith("steps=2#steps")
    jumped = page(client, f"/warriors/Gorbag?steps_at={steps[2]}&fights=1").text
    part = jumped[jumped.index('id="steps"'):jumped.index('id="fights"')]
    assert steps[2] in ids(part) and count(part).startswith("Steps 1-")
    fights = jumped[jumped.index('id="fights"'):jumped.index('id="bought"')]
    assert count(fights) == "Fights 1-4 of 4"
    assert "no 99 in this list" in page(client, "/warriors/Gorbag?fights_at=99", 404).text
    assert count(page(client, "/warriors/Gorbag?steps=999").text.split('id="fights"')[0]
                 .split('id="steps"')[1]) == "Steps 1-" + str(len(steps) % 10 or 10) + \
        f" of {len(steps)}"


def test_a_warrior_with_more_steps_than_marks_marks_the_tables_and_the_moderators(
        client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Beyond ``MARKS`` steps the chart marks the steps of the table's page and the
    moderators' (up to ``MARKS`` in all), its caption says so, and the line draws
    every step."""
    monkeypatch.setattr(warrior_page, "LIST_PAGE", 10)
    monkeypatch.setattr(chart, "MARKS", 15)
    steps = [row for row, bp in ((r["id"], r["bp"]) for r in store.ledger_rows("Gorbag")) if bp]
    html = page(client, "/warriors/Gorbag?steps=2").text
    svg = html[html.index('<svg class="chart"'):html.index("</figure>")]
    marked = [int(row) for row in re.findall(r"<title>ledger #(\d+) ", svg)]
    assert len(steps) > 15 and len(marked) == 15 and marked == sorted(marked)
    assert set(steps[-20:-10]) <= set(marked) <= set(steps)
    diamonds = svg.count('class="mark moderated"')
    caption = " ".join(unescape(re.sub(r"<[^>]+>", " ", svg.split("<figcaption>")[1])).split())
    assert f"{len(steps)} steps are too many to mark each: the line draws them all" in caption
    assert f"marked are the steps of the table below and {diamonds} of the " in caption
    assert svg.split(' d="')[1].count("V") == len(steps)   # wide enough: a stroke a step

def test_the_pages_storage_reads_alike_on_every_backend(database_url: str,
                                                        tmp_path: Path) -> None:
    club = Club(tmp_path, database=database_url)
    club.say("gob !create Gorbag goblin club spear")
    club.say("olaf !create Olaf free-clans broadsword shield")
    for turn in range(6):
        club.say(f"mod !mod bp {'Gorbag' if turn % 2 else 'Olaf'} +0.{turn + 1} r{turn}")
    club.say("mod !mod bp Gorbag -0.2 fine")
    store = club.referee.store
    gorbag = [r["id"] for r in store.ledger_rows("Gorbag")]
    assert store.ledger_balances("Gorbag", gorbag) == dict(zip(gorbag, (0, 2, 6, 12, 10),
                                                              strict=True))
    assert store.ledger_balances("Gorbag", gorbag[3:], (gorbag[1], 2)) == {
        gorbag[3]: 12, gorbag[4]: 10}
    where = LedgerFilter(entries=(Entry.MODERATOR_BP,))
    first = store.ledger_window(where, limit=3)
    assert [r["id"] for r in first.items] == [9, 8, 7] and (first.above, first.total) == (0, 7)
    second = store.ledger_window(where, before=7, limit=3)
    assert [r["id"] for r in second.items] == [6, 5, 4] and second.above == 3
    assert store.ledger_window(where, after=6, limit=3).items == first.items
    log = store.moderator_window(LedgerFilter(moderator="mod"), limit=4)
    assert [e["reason"] for e in log.items if isinstance(e, dict)] == [
        "fine", "r5", "r4", "r3"] and log.total == 7
    back = store.moderator_window(after=store.moderator_window(before=log.places[-1],
                                                                limit=4).places[0], limit=4)
    assert back.items == log.items and back.above == 0
    assert store.fight_window().total == 0
