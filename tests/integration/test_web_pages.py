"""The leadership pages through Starlette's test client, on a real SQLite file filled by
playing fights through the referee (``club_history.played``), read by a live read-only
store beside the referee that wrote it, as ``ancath-bot web`` reads it beside the bot.

After the club's history a moderator gives two hostile reasons (a script, a spreadsheet
formula) and one naming Bran's player by his ``user@host``; every page and download is
checked for escaping and for that no ``user@host`` shows anywhere."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import httpx
import pytest
from club import Club
from club_history import played
from pages_store import proved_client, read_only_store
from starlette.testclient import TestClient

from bot.systems.registry import SYSTEMS
from bot.web import ledger as ledger_page
from bot.web import moderators as moderators_page
from bot.web.app import make_app
from storage.db import open_read_only
from storage.keys import Keyring
from storage.ledger_view import LedgerFilter
from storage.models import Entry
from storage.store import Store

HOSTILE = "<script>alert(1)</script>"
TAG = "<img src=x onerror=alert(1)>"
FORMULA = '=HYPERLINK("http://evil.example")'
USER_AT_HOST = re.compile(r"[\w.~-]+@[\w-]+(\.[\w-]+)+")
OWN_SCRIPT = re.compile(r'<script src="/static/[a-z]+\.js" defer></script>')
"""The only script a page may hold: a file of the site's own, nothing inline."""
PAGES = ("/", "/?sort=name&order=desc", "/?culture=goblin", "/warriors/Gorbag",
         "/warriors/Olaf", "/warriors/Bran", "/ledger", "/ledger?moderator=mod", "/fights",
         "/fights/1", "/fights/1?step=2", "/fights/2", "/fights/3", "/fights/4",
         "/moderators", "/integrity", "/ledger.csv", "/ledger.json")


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Club:
    club = played(tmp_path_factory.mktemp("web"))
    for line in (f"mod !mod bp Gorbag +0.1 {HOSTILE}", f"mod !mod bp Olaf +0.1 {FORMULA}",
                 "mod !mod bp Bran +0.1 asked by bran!bran@host.example"):
        assert "recorded" in club.say(line)[-1]
    return club


@pytest.fixture(scope="module")
def store(club: Club) -> Iterator[Store]:
    with read_only_store(club.db) as store:
        yield store


@pytest.fixture(scope="module")
def client(store: Store) -> TestClient:
    return proved_client(store)   # the ledger's first walk, made as it starts, done


def page(client: TestClient, path: str, status: int = 200, **kw: object) -> httpx.Response:
    """``path`` answered with ``status``, showing no ``user@host`` (and, on a page, no
    script but the site's own files: what people typed is escaped; a download is data,
    sent as such)."""
    response = client.get(path, **kw)  # type: ignore[arg-type]
    assert response.status_code == status, (path, response.text[-400:])
    assert not USER_AT_HOST.search(response.text), (path, USER_AT_HOST.search(response.text))
    if response.headers.get("content-type", "text/html").startswith("text/html"):
        assert "<script" not in OWN_SCRIPT.sub("", response.text).lower()
    else:
        assert response.headers["x-content-type-options"] == "nosniff"
    return response


def cells(html: str, row_of: str) -> list[list[str]]:
    """The text of each table row's cells, for the rows that contain ``row_of``."""
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", html, re.S)
    return [[unescape(re.sub(r"<[^>]+>", "", c)).strip()
             for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)] for r in rows if row_of in r]


def test_every_page_and_download_shows_no_user_at_host_and_escapes_what_people_typed(
        client: TestClient) -> None:
    for path in PAGES:
        assert "bran@host.example" not in page(client, path).text
    for path in ("/ledger", "/moderators", "/warriors/Gorbag"):
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page(client, path).text
    assert "asked by unregistered" in page(client, "/ledger?warrior=Bran").text
    headers = page(client, "/").headers
    assert "default-src 'none'" in headers["content-security-policy"]
    assert headers["referrer-policy"] == "no-referrer"


def test_standings_as_top_ranks_them_sortable_by_each_column(client: TestClient) -> None:
    html = page(client, "/").text
    assert [row[:5] for row in cells(html, "/warriors/")] == [
        ["1", "Gorbag", "goblin", "free", "2.0"], ["2", "Olaf", "free-clans", "free", "1.9"],
        ["3", "Bran", "free-clans", "free", "0.2"]]
    assert cells(html, "/warriors/Bran")[0][-1] == "unregistered"
    assert 'href="/?sort=name&amp;order=asc"' in html
    by_name = page(client, "/?sort=name&order=desc").text
    assert [row[1] for row in cells(by_name, "/warriors/")] == ["Olaf", "Gorbag", "Bran"]
    assert 'href="/?sort=name&amp;order=asc"' in by_name   # the heading turns it around
    by_losses = page(client, "/?sort=losses&order=desc").text
    assert [row[1] for row in cells(by_losses, "/warriors/")] == ["Gorbag", "Olaf", "Bran"]
    for order in ("desc", "asc"):   # Gorbag and Bran drew one each: a tie stays in rank order
        by_draws = page(client, f"/?sort=draws&order={order}").text
        assert [row[1] for row in cells(by_draws, "/warriors/") if row[7] == "1"] == [
            "Gorbag", "Bran"]
    goblins = page(client, "/?culture=goblin&sort=bp&order=asc").text
    assert [row[1] for row in cells(goblins, "/warriors/")] == ["Gorbag"]
    assert 'href="/?culture=goblin&amp;sort=wins&amp;order=desc"' in goblins
    assert "No warriors of the fairy culture yet." in page(client, "/?culture=fairy").text


def test_a_warriors_page_sheet_chart_purchases_fights_and_prisoner_history(
        client: TestClient) -> None:
    gorbag = page(client, "/warriors/gorbag").text
    assert "<h1>Gorbag</h1>" in gorbag and "club 30, move 30, spear 30" in gorbag
    chart = gorbag[gorbag.index("<svg"):gorbag.index("</svg>")]
    assert chart.count('<circle class="mark"') == 3       # the awards of fights 1 to 3
    assert chart.count('class="mark moderated"') == 3    # a ruling's award, +1.0, +0.1
    table = gorbag[gorbag.index("The chart's steps"):gorbag.index('id="fights"')]
    assert [row[4] for row in cells(table, "<td")] == ["0.1", "0.6", "0.8", "0.9", "1.9",
                                                       "2.0"]
    fights = gorbag[gorbag.index('id="fights"'):gorbag.index('id="skills"')]
    assert [row[:5] for row in cells(fights, "/fights/")][-1][2:] == ["practice", "Olaf", "lost"]
    assert all(f'href="/fights/{n}"' in fights for n in (1, 2, 3, 4))
    prisoner = gorbag[gorbag.index('id="prisoner"'):]
    assert [row[3] for row in cells(prisoner, "/warriors/Gorbag")] == [
        "prisoner-taken", "prisoner-freed"]
    olaf = page(client, "/warriors/Olaf").text
    bought = olaf[olaf.index('id="skills"'):olaf.index('id="prisoner"')]
    assert "bought shield 30-&gt;40" in bought
    assert "owner</dt><dd>olaf" in olaf
    assert "owner</dt><dd>unregistered" in page(client, "/warriors/Bran").text


def test_the_ledger_filtered_and_paged_newest_first(
        client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    everything = store.ledger()
    html = page(client, "/ledger").text
    assert f"{len(everything)} rows match" in html
    assert [int(row[0]) for row in cells(html, "<td")][:3] == [
        r["id"] for r in everything[::-1][:3]]
    for query, wanted in (
            ("warrior=olaf", LedgerFilter(warrior="olaf")),
            ("moderator=mod&kind=moderator-bp", LedgerFilter(moderator="mod",
                                                             entries=(Entry.MODERATOR_BP,))),
            ("reason=SPORTS", LedgerFilter(reason="SPORTS")),
            ("fight=2", LedgerFilter(fight=2)),
            ("since=2000-01-01&until=2999-12-31", LedgerFilter())):
        shown = cells(page(client, f"/ledger?{query}").text, "<td")
        assert [int(row[0]) for row in shown] == [
            r["id"] for r in store.ledger_rows(where=wanted)][::-1], query
    assert "0 rows match" in page(client, "/ledger?until=2000-01-01").text
    monkeypatch.setattr(ledger_page, "PAGE", 7)
    seen: list[int] = []
    path: str | None = "/ledger?warrior=Gorbag"
    while path:
        html = page(client, path).text
        seen += [int(row[0]) for row in cells(html, "<td")]
        older = re.search(r'href="([^"]+)" rel="next">Older', html)
        path = unescape(older[1]) if older else None
        assert path is None or "warrior=Gorbag" in path
    assert seen == [r["id"] for r in store.ledger_rows("Gorbag")][::-1]


def test_the_downloads_are_exactly_the_filtered_rows(client: TestClient, store: Store) -> None:
    wanted = [r["id"] for r in store.ledger_rows(where=LedgerFilter(warrior="Olaf"))]
    csv = page(client, "/ledger.csv?warrior=Olaf")
    assert csv.headers["content-disposition"] == 'attachment; filename="ancath-ledger-Olaf.csv"'
    lines = csv.text.splitlines()
    assert lines[0] == "id,at,warrior,entry,bp,balance,spent,skill,skill_value,status,actor," \
                       "moderator,fight,reason,detail"   # one warrior's: with his balance
    assert [int(line.split(",")[0]) for line in lines[1:]] == wanted
    assert f'"\'{FORMULA.replace(chr(34), chr(34) * 2)}"' in lines[-1]   # stays text
    rows = page(client, "/ledger.json?warrior=Olaf").json()
    assert [r["id"] for r in rows] == wanted
    assert rows[0]["actor"] == "olaf" and rows[-1]["reason"] == FORMULA
    assert page(client, "/ledger.json?fight=99").json() == []
    bran = page(client, "/ledger.json?warrior=Bran").json()
    assert {r["actor"] for r in bran} == {"unregistered", "mod"}


def test_fight_one_replays_the_undo_and_ends_with_olafs_kill(
        client: TestClient, store: Store) -> None:
    html = page(client, "/fights/1").text
    said = [unescape(re.sub(r"<[^>]+>", "", s)) for s in re.findall(
        r'<p class="said">(.*?)</p>', html, re.S)]
    assert said[0].startswith("Practice fight: Olaf (olaf) vs Gorbag (gob).")
    assert said[2] == "Olaf attacks [20 vs 25: hit]. Gorbag (gob), defend: !dodge 30 | " \
                      "!parry 25 | !luck 5"
    assert "<del>Olaf attacks [20 vs 25: hit]" in html
    assert said[3].startswith("Undone: Olaf's attack and its roll (misclick).")
    assert "Taken back by mod's undo at" in html and "misclick" in html
    head = store.ledger_rows(where=LedgerFilter(fight=1))
    closing = [r for r in head if r["entry"] == "fight-closed"][-1]
    assert said[-1].endswith(f"Olaf wins by a kill. BP: Olaf +0.2, Gorbag +0.1. "
                             f"ledger #{closing['id']} {closing['hash'][:16]}")
    assert "bot: roll 80 (d100)" in html   # every roll, and who made it


def test_a_fight_step_by_step_without_script(client: TestClient) -> None:
    first = page(client, "/fights/1?step=0").text
    assert "Step 0 of 5" in first and 'href="/fights/1?step=1#step" rel="next"' in first
    assert 'rel="prev"' not in first
    undone = page(client, "/fights/1?step=2").text
    focus = undone[undone.index('id="step"'):undone.index('id="replay"')]
    assert "<del>" in focus and "misclick" in focus and "<table class=\"state\">" in focus
    assert "Turn 1, standard range" in focus
    last = page(client, "/fights/1?step=5").text
    assert 'rel="next"' not in last and 'href="/fights/1?step=4#step" rel="prev"' in last
    ended = page(client, "/fights/4").text
    assert "Moderator&#39;s end by\nmod, reason: both left" in ended
    assert "Bran: unregistered" in ended
    assert "ransom: 10 silver" in page(client, "/fights/2").text
    fights = page(client, "/fights").text
    assert [row[0] for row in cells(fights, "/fights/")] == ["#4", "#3", "#2", "#1"]
    assert cells(fights, "/fights/4")[0][-2:] == ["a draw", "Bran 0.1, Gorbag 0.1"]


def test_the_moderators_actions_with_who_and_why(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    html = page(client, "/moderators").text
    actions = [row[1:3] + row[7:8] for row in cells(html, "<td")]
    assert actions[-1] == ["mod", "undo: took the fight back to its command 3", "misclick"]
    assert ["mod", "BP changed", "good sportsmanship"] in actions
    assert ["mod", "fight ended", "duel fight ended: draw; ruling: both left"] in actions
    assert ["mod", "BP changed", "asked by unregistered"] in actions
    monkeypatch.setattr(moderators_page, "PAGE", 3)
    paged: list[list[str]] = []
    path: str | None = "/moderators"
    while path:
        html = page(client, path).text
        paged += [row[1:3] + row[7:8] for row in cells(html, "<td")]
        older = re.search(r'href="([^"]+)" rel="next">Older', html)
        path = unescape(older[1]) if older else None
    assert paged == actions


def test_the_moderators_actions_say_what_they_set(tmp_path: Path) -> None:
    """A skill's new value, the armour, and whom ``!mod add`` and ``remove`` named (a mask
    as "unregistered"): the page said only "skill set" or "moderator added"."""
    club = Club(tmp_path, verified_idents=True)   # a mask may be added
    club.say("gob !create Gorbag goblin club spear")
    for line in ("mod !mod skill Gorbag spear 35 typo", "mod !mod armour Gorbag mail won it",
                 "mod !mod add carol runs the tourney",
                 "mod !mod add eve!eve@eve.example night shift",
                 "mod !mod remove carol tourney over", "mod !mod timelimit 5 quick night"):
        assert "mod: no" not in club.say(line)[-1]
    engine = open_read_only(club.db, live=True)
    client = TestClient(make_app(Store(engine, systems=SYSTEMS.rules, keyring=Keyring())))
    html = page(client, "/moderators").text
    engine.dispose()
    assert [row[2:3] + row[5:6] for row in cells(html, "<td")] == [
        ["setting changed", "timelimit:default:#arena set to 5"],
        ["moderator removed", "carol"], ["moderator added", "unregistered"],
        ["moderator added", "carol"], ["armour changed", "armour mail (was leather)"],
        ["skill set", "spear 35"]]


def test_a_warrior_without_bp_has_a_chart_from_its_creation(tmp_path: Path) -> None:
    club = Club(tmp_path)
    club.say("gob !create Gorbag goblin club spear")
    (created,) = club.referee.store.ledger("Gorbag")
    engine = open_read_only(club.db, live=True)
    html = page(TestClient(make_app(Store(engine, systems=SYSTEMS.rules,
                                          keyring=Keyring()))), "/warriors/Gorbag").text
    engine.dispose()
    assert f'<text class="axis" x="44" y="232">{created["at"][:19].replace("T", " ")}' in html
    assert "No BP yet." in html


def test_integrity_says_the_audit_and_the_head_to_publish(client: TestClient,
                                                          store: Store) -> None:
    html = page(client, "/integrity").text
    head = store.ledger_head()
    assert head is not None
    assert "Ledger intact; every total matches." in html
    assert f"<code>{store.anchor()}</code>" in html and head.mac in html
    assert f"audit verify --anchor {head.id}:{head.mac[:8]}" in html
    checked = re.search(r"Checked (\S+ \S+) UTC", html)
    assert checked and checked[1] in page(client, "/integrity?again=1").text   # kept a while
    without = TestClient(make_app(Store(store.engine, systems=SYSTEMS.rules, keyring=Keyring())))
    missing = page(without, "/integrity").text
    assert "this server lacks a ledger key" in missing
    assert f"it signed rows 1..{head.id}" in missing


def test_refused_requests_are_short_pages_never_server_errors(client: TestClient) -> None:
    for path, status in (
            ("/warriors/Nobody", 404), ("/fights/99", 404), ("/fights/abc", 404),
            ("/fights/1?step=6", 404), ("/nowhere", 404), ("/ledger?warrior=Nobody", 404),
            ("/ledger.csv?warrior=Nobody", 404), ("/ledger.json?warrior=%00", 400),
            ("/fights/1?step=-1", 400), ("/fights/1?step=1e9", 400),
            ("/fights/99999999999999999999999", 404), ("/fights/%D9%A3", 404),
            ("/fights/%EF%BC%91", 404), ("/ledger?before=%D9%A3", 400),
            ("/fights?before=99999999999999999", 400),
            ("/ledger?fight=1%20OR%201=1", 400), ("/ledger?before=-5", 400),
            ("/ledger?since=2026-02-30", 400), ("/ledger?until=9999-12-31", 400),
            ("/ledger?since=%27;DROP%20TABLE%20ledger;--", 400),
            ("/ledger?kind=award%27--", 400), (f"/ledger?reason={'x' * 201}", 400),
            ("/?sort=bp;--", 400), ("/?order=sideways", 400), ("/?culture=orc", 400),
            ("/moderators?before=yesterday", 400), (f"/warriors/{TAG}", 404)):
        response = page(client, path, status)
        assert "Traceback" not in response.text and '<p class="problem">' in response.text
    assert "no warrior named &lt;img src=x onerror=alert(1)&gt;" in page(
        client, f"/warriors/{TAG}", 404).text
    assert "0 rows match" in page(client, "/ledger?reason=%27%20OR%201=1--").text


def test_every_page_names_its_icon_so_a_browser_asks_for_no_missing_favicon(
        client: TestClient, store: Store) -> None:
    for path in ("/", "/ledger", "/nowhere"):
        assert '<link rel="icon" href="/static/favicon.svg"' in client.get(path).text
    icon = TestClient(make_app(store, token="s3cret")).get(
        "/static/favicon.svg")   # before the token, as the style sheet
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"


def test_the_access_token(store: Store) -> None:
    client = TestClient(make_app(store, token="s3cret"), follow_redirects=False)
    refused = page(client, "/ledger", 401)
    assert "?token=&lt;token&gt;" in refused.text and "Bearer" in refused.text
    assert page(client, "/ledger?token=wrong", 401).text.count("not the one") == 1
    page(client, "/", 401, headers={"Authorization": "Bearer wrong"})
    page(client, "/", headers={"Authorization": "Bearer s3cret"})
    assert page(client, "/static/style.css").headers["content-type"].startswith("text/css")
    signed_in = page(client, "/ledger?warrior=Olaf&token=s3cret", 303)
    assert signed_in.headers["location"] == "/ledger?warrior=Olaf"
    cookie = signed_in.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "s3cret" not in cookie
    assert "Olaf" in page(client, "/ledger?warrior=Olaf").text   # the cookie, kept
    assert page(client, "/ledger.csv").text.startswith("id,at,")
    client.cookies.clear()
    page(client, "/", 401)
    forged = TestClient(make_app(store, token="s3cret"), cookies={"ancath_web": "s3cret"})
    page(forged, "/", 401)


def test_the_token_redirect_stays_on_this_site(store: Store) -> None:
    """``//evil.example/?token=...`` must not send the browser to evil.example (a
    Location of ``//host`` or ``///host`` is another site to a browser)."""
    client = TestClient(make_app(store, token="s3cret"), follow_redirects=False)
    for path in ("/%2F%2Fevil.example/?token=s3cret", "/%2Fevil.example?token=s3cret&a=1"):
        location = page(client, path, 303).headers["location"]
        assert location.startswith("/") and not location.startswith("//"), location


def test_searches_of_the_reasons_beyond_the_limit_are_refused_as_busy(
        client: TestClient) -> None:
    """A search of the reasons reads every row: beyond ``SEARCHES`` at once, another is
    a short 503 page instead of holding the threads and connections every page needs."""
    held = [ledger_page._searches.acquire(blocking=False) for _ in range(ledger_page.SEARCHES)]
    assert all(held)
    try:
        for path in ("/ledger?reason=sport", "/ledger.csv?reason=sport"):
            busy = client.get(path)
            assert busy.status_code == 503 and "try again in a moment" in busy.text
        assert client.get("/ledger?warrior=Olaf").status_code == 200   # no search: served
    finally:
        for _ in held:
            ledger_page._searches.release()
    assert "good sportsmanship" in client.get("/ledger?reason=sport").text
