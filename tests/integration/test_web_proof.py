"""The leadership pages show only what the ledger proves (issue 30, item 4), through
Starlette's test client: on the played club (``club_history.played``) every page says
``data-state="verified"`` and no banner; on copies of it with one thing forged by SQL
(``forged``: a stored BP, a ledger row's reason and BP, a finished fight's command log)
every page says ``failed`` with a banner, the standings rank by the ledger's BP with the
stored one flagged beside it, the edited row is marked, the altered fight says so.

The server proves the ledger when it starts and each new row as it comes (only the new
rows: counted), keeps a failure, and walks the whole chain again for a row edited in
place later. The integrity page checks a pasted anchor and offers the audit export
(the very file ``ancath-bot audit export`` writes) with the club's public key."""

from __future__ import annotations

import io
import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import closing
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from club import Club
from club_history import played
from forged import FIGHT_LOG, LEDGER_ROW, STORED_BP, copy, first_award
from sqlalchemy import create_engine, text
from starlette.applications import Starlette
from starlette.testclient import TestClient

from bot.web.app import make_app
from bot.web.integrity import pasted
from rules.ancath.sheet import create_warrior
from rules.ancath.tables import Culture, Skill
from storage.audit_export import verify_export
from storage.db import open_read_only
from storage.keys import Keyring, load_keyring
from storage.ledger import Anchor
from storage.proof import Proof
from storage.proved import Advance
from storage.store import Store

PAGES = ("/", "/?sort=name&order=desc", "/warriors/Gorbag", "/warriors/Olaf",
         "/warriors/Bran", "/ledger", "/ledger?warrior=Olaf", "/fights", "/fights/1",
         "/fights/1?step=2", "/fights/2", "/moderators", "/integrity", "/nowhere")
STATUS = re.compile(r'id="integrity-status"[^>]*\bdata-state="(\w+)"')


def state(html: str) -> str:
    """The page's ``data-state``; exactly one element says it."""
    found = STATUS.findall(html)
    assert len(found) == 1, found
    return found[0]


def words(html: str) -> str:
    """The page as words: tags out, entities decoded, spaces folded (none inside
    brackets or before a stop)."""
    words = " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())
    return re.sub(r" (?=[.,;:)])|(?<=\() ", "", words)


def cells(html: str, row_of: str) -> list[list[str]]:
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", html, re.S)
    return [[words(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)]
            for r in rows if row_of in r]


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Club:
    return played(tmp_path_factory.mktemp("web-proof"))


@pytest.fixture
def serve() -> Iterator[object]:
    """``serve(db, **make_app kw)``: a client of the pages over ``db``, once its first
    walk is done; every engine disposed after the test."""
    engines = []

    def opened(db: str, keyring: Keyring | None = None, **kw: Any) -> TestClient:
        engine = open_read_only(db, live=True)
        engines.append(engine)
        app = make_app(Store(engine, keyring=keyring or load_keyring(db, create=False)),
                       **kw)
        assert proof_of(app).wait(30)
        return TestClient(app)

    yield opened
    for engine in engines:
        engine.dispose()


def proof_of(app: Starlette | object) -> object:
    return app.state.site.proof   # type: ignore[attr-defined]


def sql(db: str, statement: str, *values: object) -> None:
    """One statement on the database, as someone with the file but not the bot."""
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute(statement, values)


def closing_row(club: Club, fight: int) -> int:
    return max(r["id"] for r in club.referee.store.ledger()
               if r["entry"] == "fight-closed" and r["fight"] == fight)


def forged(club: Club, tmp_path: Path, serve: object, *statements: str) -> TestClient:
    return serve(copy(club, tmp_path / "forged", *statements))   # type: ignore[operator]


def failed_everywhere(client: TestClient) -> None:
    """Every page says the check failed, with the banner saying the figures are not
    proved."""
    for path in PAGES:
        response = client.get(path)
        assert response.status_code in (200, 404), path
        assert state(response.text) == "failed", path
        banner = re.search(r'<section id="integrity-status".*?</section>', response.text, re.S)
        assert banner is not None, path
        assert "The ledger check failed: the figures on this page are not proved" in words(
            banner[0]), path


def test_an_honest_club_every_page_proved_and_no_banner(club: Club, serve: object) -> None:
    client = serve(club.db)   # type: ignore[operator]
    head = club.referee.store.anchor()
    for path in PAGES:
        html = client.get(path).text
        assert state(html) == "verified", path
        assert 'class="banner' not in html and "stored column says" not in html, path
        assert "does not hold" not in html and "not proved" not in html, path
        assert f"Ledger proved through #{head.id} ({head})." in words(html), path
    standings = client.get("/").text
    assert [row[:5] for row in cells(standings, "/warriors/")] == [
        ["1", "Gorbag", "goblin", "free", "1.9"], ["2", "Olaf", "free-clans", "free", "1.8"],
        ["3", "Bran", "free-clans", "free", "0.1"]]
    fight = words(client.get("/fights/1").text)
    assert f"result Olaf won (kill), as ledger row #{closing_row(club, 1)} records it" in fight
    assert "altered" not in fight


def test_a_stored_bp_changed_by_sql(club: Club, tmp_path: Path, serve: object) -> None:
    client = forged(club, tmp_path, serve, *STORED_BP)
    failed_everywhere(client)
    standings = client.get("/").text
    assert [row[:2] + row[4:5] for row in cells(standings, "/warriors/")] == [
        ["1", "Gorbag", "1.9"], ["2", "Olaf", "1.8"],
        ["3", "Bran", "0.1 (stored column says 7.7: not what the ledger proves)"]]
    assert "warrior Bran: bp is 77, ledger says 1" in words(standings)
    bran = words(client.get("/warriors/Bran").text)
    assert "bp 0.1 (stored column says 7.7: not what the ledger proves)" in bran
    assert "BP 0.1 (stored column says 7.7: not what the ledger proves): 0.1 from fights" \
        in bran
    assert "stored column says 1" not in client.get("/warriors/Olaf").text


def test_a_ledger_rows_reason_and_bp_edited_by_sql(club: Club, tmp_path: Path,
                                                   serve: object) -> None:
    client = forged(club, tmp_path, serve, *LEDGER_ROW)
    row = first_award(club)
    failed_everywhere(client)
    banner = words(client.get("/").text)
    assert f"From ledger row #{row} on, nothing is proved: ledger row {row}: content does " \
           "not match its hash (edited)" in banner
    ledger = client.get("/ledger?warrior=Olaf").text
    marked = [r for r in cells(ledger, "<td>") if "does not hold" in r[0]]
    assert marked == [[f"{row} does not hold: content does not match its hash (edited)",
                       *marked[0][1:]]]
    assert marked[0][-1] == "a prize for valour" and marked[0][4] == "+2.0"
    assert re.search(rf'<tr class="unheld">\s*<td>{row} ', ledger)
    assert len(re.findall(r'<tr class="unheld">', client.get("/ledger").text)) == 1
    olaf = cells(client.get("/").text, "/warriors/Olaf")[0]
    assert olaf[4] == (f"3.6 (stored column says 1.8: not what the ledger proves) (not "
                       f"proved: its ledger row #{row} does not hold)")
    page = client.get("/warriors/Olaf").text
    assert f"Not proved: Olaf's ledger row #{row} does not hold" in words(page)
    assert 'class="unheld"' in page   # the chart's table marks it too
    fights = cells(client.get("/fights").text, "/fights/")
    assert fights[-1][5] == (f"not proved: ledger row #{closing_row(club, 1)} says Olaf won "
                             "(kill), but the ledger does not prove that row")


def test_a_finished_fights_command_log_edited(club: Club, tmp_path: Path,
                                              serve: object) -> None:
    client = forged(club, tmp_path, serve, *FIGHT_LOG)
    failed_everywhere(client)
    fight = words(client.get("/fights/1").text)
    closing = closing_row(club, 1)
    assert (f"Warning: this fight's log was altered after it ended: its command log "
            f"differs from what ledger row #{closing} recorded then.") in fight
    assert "Replay of the altered log" in fight and "Replay, as the referee said it" not in fight
    assert f"result Olaf won (kill), as ledger row #{closing} records it" in fight
    assert f"fight 1: its command log differs from ledger row {closing}" in fight
    assert "Warning" not in client.get("/fights/2").text


def test_each_new_row_is_proved_as_it_comes_and_a_failure_stays(
        tmp_path: Path, serve: object) -> None:
    """A live club: the bot writes, the pages walk only the new rows; a stored column
    forged meanwhile fails the check, which stays failed once it is put back."""
    club = played(tmp_path)
    client = serve(club.db)   # type: ignore[operator]
    proof = proof_of(client.app)
    assert proof.status().rows == club.referee.store.anchor().id   # type: ignore[attr-defined]
    club.say("mod !mod bp Gorbag +0.5 well fought")
    html = client.get("/").text
    head = club.referee.store.anchor()
    assert state(html) == "verified" and f"({head})" in words(html)
    assert cells(html, "/warriors/Gorbag")[0][4] == "2.4"
    for _ in range(3):
        client.get("/warriors/Gorbag")
    # each row walked once: the walk went on from where it stopped, never from row 1
    assert proof.status().rows == head.id   # type: ignore[attr-defined]
    sql(club.db, "UPDATE warriors SET bp = 99 WHERE name = 'Olaf'")
    assert state(client.get("/").text) == "failed"
    sql(club.db, "UPDATE warriors SET bp = 18 WHERE name = 'Olaf'")
    html = client.get("/").text
    assert state(html) == "failed" and 'class="stored"' not in html
    assert "warrior Olaf: bp is 99, ledger says 18" in words(html)


def test_a_row_edited_in_place_later_is_caught_by_the_whole_walk_again(
        tmp_path: Path, serve: object) -> None:
    club = played(tmp_path)
    client = serve(club.db, audit_seconds=0)   # type: ignore[operator]
    assert state(client.get("/fights").text) == "verified"
    sql(club.db, "UPDATE ledger SET reason = 'quietly changed' WHERE id = 2")   # unshown
    assert state(client.get("/fights").text) == "verified"   # walking on does not see it
    integrity = client.get("/integrity?again=1").text
    assert state(integrity) == "failed"
    assert "ledger row 2: content does not match its hash (edited)" in words(integrity)
    assert state(client.get("/fights").text) == "failed"
    assert "does not hold: content does not match its hash" in client.get(
        "/ledger?before=3").text


def test_a_row_edited_in_place_is_marked_where_a_page_shows_it(
        tmp_path: Path, serve: object) -> None:
    club = played(tmp_path)
    client = serve(club.db)   # type: ignore[operator]
    assert state(client.get("/").text) == "verified"
    newest = club.referee.store.anchor().id
    sql(club.db, "UPDATE ledger SET bp = 50 WHERE id = ?", newest - 1)
    ledger = client.get("/ledger").text
    assert state(ledger) == "failed"
    assert f"{newest - 1} does not hold: content does not match its hash (edited)" in words(
        ledger)


def test_pages_say_not_proved_yet_while_the_first_walk_is_under_way(
        club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    started, go = threading.Event(), threading.Event()
    prove = Store.prove

    def slow(self: Store, proof: Proof, *, whole: bool = False) -> Advance:
        if whole:
            started.set()
            assert go.wait(30)
        return prove(self, proof, whole=whole)

    monkeypatch.setattr(Store, "prove", slow)
    engine = open_read_only(club.db, live=True)
    try:
        app = make_app(Store(engine, keyring=load_keyring(club.db, create=False)))
        client = TestClient(app)
        assert started.wait(30)
        for path in ("/", "/warriors/Olaf", "/fights/1", "/ledger", "/integrity"):
            html = client.get(path).text
            assert state(html) == "unchecked", path
            assert "Not proved yet: the figures on this page are not proved" in words(html)
            assert "the server is proving the ledger" in html
        assert "(not proved yet)" in words(client.get("/fights").text)
        assert 'data-holds="unknown"' in client.get("/integrity?anchor=1:00000000").text
        go.set()
        assert proof_of(app).wait(30)   # type: ignore[attr-defined]
        assert state(client.get("/").text) == "verified"
    finally:
        go.set()
        engine.dispose()


def test_a_server_without_the_key_says_not_proved(club: Club, serve: object) -> None:
    client = serve(club.db, keyring=Keyring())   # type: ignore[operator]
    for path in ("/", "/ledger", "/integrity"):
        html = client.get(path).text
        assert state(html) == "unchecked", path
        assert "which is not known here" in words(html)
        assert "does not hold" not in html   # not checked: not marked either


def test_a_server_with_the_public_key_alone_proves_every_page(club: Club,
                                                                serve: object) -> None:
    """``ancath-bot web --public-key``: the pages' server holds no ledger secret."""
    key = load_keyring(club.db, create=False).signer().public
    client = serve(club.db, keyring=Keyring(), trusted=(key,))   # type: ignore[operator]
    for path in ("/", "/ledger", "/integrity"):
        html = client.get(path).text
        assert state(html) == "verified", path
    assert key.text in client.get("/integrity").text


def test_an_anchor_a_visitor_pastes(club: Club, serve: object) -> None:
    client = serve(club.db)   # type: ignore[operator]
    head = club.referee.store.ledger_head()
    assert head is not None

    def checked(given: str) -> tuple[str, str]:
        html = client.get(f"/integrity?anchor={quote(given)}").text
        found = re.search(r'id="anchor-result" data-holds="(\w+)">(.*?)</p>', html, re.S)
        assert found is not None, given
        return found[1], words(found[2])

    for given in (f"{head.id} said at the end: ledger #{head.id} {head.mac[:16]} (ok)",
                  f"{head.id}:{head.mac[:16]}", f"#{head.id}:{head.mac[:8].upper()}"):
        holds, said = checked(given)
        assert holds == "yes", said
        assert f"holds; the chain runs intact from it to the head #{head.id}" in said
    older = club.referee.store.ledger()[4]
    assert checked(f"ledger #{older['id']} {older['hash'][:16]}")[0] == "yes"
    holds, said = checked(f"ledger #{head.id} {'0' * 16}")
    assert holds == "no" and "the ledger was rewritten up to there" in said
    holds, said = checked(f"{head.id + 5}:{head.mac[:16]}")
    assert holds == "no" and f"there is no row {head.id + 5}" in said
    holds, said = checked("<b>yesterday's</b>")
    assert holds == "no" and said.startswith("that is not an anchor")
    echoed = client.get(f"/integrity?anchor={quote('<b>x</b>')}").text
    assert "<b>x</b>" not in echoed and 'value="&lt;b&gt;x&lt;/b&gt;"' in echoed
    assert pasted("ledger #12 9f2c1a7e0b5d8c33") == Anchor(12, "9f2c1a7e0b5d8c33")
    assert pasted("12:9F2C1A7E") == Anchor(12, "9f2c1a7e") and pasted("12:9f2") is None


def test_the_audit_export_for_download_and_the_clubs_public_key(
        club: Club, serve: object) -> None:
    client = serve(club.db)   # type: ignore[operator]
    store = club.referee.store
    key = store.keyring.signer().public
    response = client.get("/audit-export.jsonl")
    assert response.status_code == 200
    assert response.headers["content-disposition"] == \
        'attachment; filename="ancath-audit-export.jsonl"'
    written = io.StringIO()
    store.export_audit(written)

    def lines(export: str) -> list[dict[str, object]]:
        out = [json.loads(line) for line in export.splitlines()]
        out[0].pop("made_at")
        return out

    assert lines(response.text) == lines(written.getvalue())   # ancath-bot audit export's
    proved = verify_export(response.text.splitlines(), [key])
    assert proved.report.problems == []
    integrity = words(client.get("/integrity").text)
    assert f"The club's public key: {key.text}" in integrity
    assert f"ancath-bot audit verify --export ancath-audit-export.jsonl --public-key " \
           f"{key.text}" in integrity
    for path in ("/", "/ledger", "/nowhere"):
        footer = words(client.get(path).text.split("<footer>")[1])
        assert f"the audit export and the club's public key {key.text}" in footer
    forged = verify_export([line.replace('"reason":"practice fight: win"',
                                         '"reason":"a gift"')
                            for line in response.text.splitlines()], [key])
    assert any("edited" in problem for problem in forged.report.problems)


def test_a_read_unit_writes_nothing(club: Club) -> None:
    engine = open_read_only(club.db, live=True)
    store = Store(engine, keyring=load_keyring(club.db, create=False))
    try:
        with store.reading():
            assert store.warrior("Olaf").owner == "olaf"
            sheet, _ = create_warrior("Grom", Culture.GOBLIN, [Skill.CLUB, Skill.SPEAR])
            with pytest.raises(RuntimeError, match="read-only unit"):
                store.create_warrior(sheet, "gob")
    finally:
        engine.dispose()


DUEL = [
    ("gob !create Gorbag goblin club spear", ()),
    ("olaf !create Olaf free-clans broadsword shield", ()),
    ("olaf !challenge Gorbag", ()),
    ("gob !accept", (50, 40)),      # Olaf wins the initiative
    ("olaf !first", ()),
    ("olaf !attack", (20,)),        # a hit
    ("gob !dodge", (80, 5)),        # the dodge fails; damage 5 kills on leather
]


def test_on_each_database_new_rows_proved_and_a_forged_column_flagged(
        tmp_path: Path, database_url: str) -> None:
    """SQLite and PostgreSQL (read-only REPEATABLE READ): a page's reads and the walk
    are of one moment, new rows are proved as they come, a forged column is flagged."""
    club = Club(tmp_path, database=database_url)
    for line, rolls in DUEL:
        club.dice.push(*rolls)
        club.say(line)
    assert "wins by a kill" in club.last()
    engine = open_read_only(database_url, live=True)
    writer = create_engine(database_url)
    try:
        app = make_app(Store(engine, keyring=load_keyring(database_url, create=False)))
        assert proof_of(app).wait(30)   # type: ignore[attr-defined]
        client = TestClient(app)
        assert state(client.get("/").text) == "verified"
        club.say("mod !mod bp Olaf +1.0 prize")
        html = client.get("/").text
        assert state(html) == "verified"
        assert [row[1] + " " + row[4] for row in cells(html, "/warriors/")] == [
            "Olaf 1.2", "Gorbag 0.1"]
        with writer.begin() as connection:
            connection.execute(text("UPDATE warriors SET bp = 300 WHERE name = 'Gorbag'"))
        html = client.get("/").text
        assert state(html) == "failed"
        assert [row[1] + " " + row[4] for row in cells(html, "/warriors/")] == [
            "Olaf 1.2",
            "Gorbag 0.1 (stored column says 30.0: not what the ledger proves)"]
    finally:
        writer.dispose()
        engine.dispose()
