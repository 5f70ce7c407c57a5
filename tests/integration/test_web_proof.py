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
import time
from collections.abc import Iterator
from contextlib import closing
from html import unescape
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

import pytest
from club import Club
from club_history import played
from forged import FIGHT_LOG, LEDGER_ROW, STORED_BP, copy, first_award
from sqlalchemy import create_engine, select, text
from sqlalchemy.orm import Session
from starlette.applications import Starlette
from starlette.testclient import TestClient

from bot.systems.registry import SYSTEMS
from bot.web.app import make_app
from bot.web.chart import TICKS
from bot.web.integrity import pasted
from rules.ancath.sheet import create_warrior
from rules.ancath.stored import mod_bp
from rules.ancath.tables import Culture, Skill
from storage import ledger
from storage.audit_export import verify_export
from storage.chain import row_hash, signed_hash
from storage.chained import Chained
from storage.db import open_database, open_read_only
from storage.keys import Keyring, load_keyring
from storage.ledger import Anchor
from storage.models import LedgerHead, LedgerRow, Warrior
from storage.proof import Proof
from storage.proved import MOST_ROW_ID, Advance, pages_proof
from storage.signing import PublicKey, signing_key
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
        app = make_app(Store(engine, systems=SYSTEMS.rules,
                             keyring=keyring or load_keyring(db, create=False)),
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
    assert "warrior Bran: BP is 7.7, ledger says 0.1" in words(standings)
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
    marked = [r for r in cells(ledger, "<td") if "does not hold" in r[0]]
    assert marked == [[f"{row} does not hold: content does not match its hash (edited)",
                       *marked[0][1:]]]
    assert marked[0][-1] == "a prize for valour" and marked[0][4] == "+2.0"
    assert re.search(rf'<tr class="unheld">\s*<td[^>]*>{row} ', ledger)
    assert len(re.findall(r'<tr class="unheld">', client.get("/ledger").text)) == 1
    olaf = cells(client.get("/").text, "/warriors/Olaf")[0]
    assert olaf[4] == (f"1.6 (stored column says 1.8: not what the ledger proves) (not "
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
    assert "warrior Olaf: BP is 9.9, ledger says 1.8" in words(html)


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
        app = make_app(Store(engine, systems=SYSTEMS.rules,
                             keyring=load_keyring(club.db, create=False)))
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
    proved = verify_export(response.text.splitlines(), [key], systems=SYSTEMS.rules)
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
                            for line in response.text.splitlines()], [key], systems=SYSTEMS.rules)
    assert any("edited" in problem for problem in forged.report.problems)


def test_a_read_unit_writes_nothing(club: Club) -> None:
    engine = open_read_only(club.db, live=True)
    store = Store(engine, systems=SYSTEMS.rules, keyring=load_keyring(club.db, create=False))
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
        app = make_app(Store(engine, systems=SYSTEMS.rules,
                             keyring=load_keyring(database_url, create=False)))
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


# -- each row a page shows holds only as the chain's rules say --------------------------------
# (what the walk on cannot see: rows rewritten in place after the walk passed them, the
# head left as it was)

NEW_KEY = "a-newer-ledger-key-after-a-rotation-0123456789"
LEGACY_KEY = "the-ledger-key-of-these-tests-0123456789abcdef"


def ledger_rows(db: str) -> list[dict[str, Any]]:
    """Every ledger row as stored, ``detail`` read as JSON."""
    with closing(sqlite3.connect(db)) as connection:
        connection.row_factory = sqlite3.Row
        rows = [dict(row) for row in connection.execute("SELECT * FROM ledger ORDER BY id")]
    for row in rows:
        row["detail"] = json.loads(row["detail"]) if row["detail"] is not None else None
    return rows


def rewrite(db: str, *rows: dict[str, Any]) -> None:
    """Each row's BP, links, key id and signature written over the stored row's, the
    ledger head left as it was: as someone with the database file but no key would."""
    with closing(sqlite3.connect(db)) as connection, connection:
        for row in rows:
            connection.execute(
                "UPDATE ledger SET bp = :bp, prev_hash = :prev_hash, hash = :hash, key_id = "
                ":key_id, signature = :signature WHERE id = :id",
                {name: row[name] for name in ("id", "bp", "prev_hash", "hash", "key_id",
                                              "signature")})


def as_legacy(db: str, first: int, bp: int) -> list[int]:
    """Rows ``first`` on rewritten as legacy rows (plain SHA-256 anyone can compute, no
    key id, no signature), row ``first`` given ``bp``: the chain links as before; their
    ids."""
    rows = ledger_rows(db)
    previous, changed = rows[first - 2]["hash"], []
    for row in rows[first - 1:]:
        row.update(prev_hash=previous, key_id=None, signature=None,
                   bp=bp if row["id"] == first else row["bp"])
        row["hash"] = previous = row_hash(previous, SimpleNamespace(**row))
        changed.append(row)
    rewrite(db, *changed)
    return [row["id"] for row in changed]


def resign(db: str, row_id: int, secret: bytes, **changed: Any) -> None:
    """Row ``row_id`` with ``changed``, hashed again and signed by the key of ``secret``,
    its link to the row before kept."""
    row = ledger_rows(db)[row_id - 1]
    row.update(changed)
    signer = signing_key(secret)
    row["key_id"] = signer.public.id
    row["hash"] = signed_hash(row["prev_hash"], SimpleNamespace(**row))
    row["signature"] = signer.sign(row["hash"])
    rewrite(db, row)


def marked(html: str) -> dict[int, str]:
    """The rows a page's ledger table marks, by id: what it says of each."""
    out = {}
    for row in cells(html, "<td"):
        found = re.fullmatch(r"(\d+) ((?:does not hold|not proved): .*)", row[0])
        if found:
            out[int(found[1])] = found[2]
    return out


@pytest.mark.parametrize("keys", ["key-file", "public-key"])
def test_rows_rewritten_as_legacy_rows_after_the_walk_do_not_hold(
        club: Club, tmp_path: Path, serve: object, keys: str) -> None:
    """The tester's case: from the first award on, the rows rewritten as legacy rows,
    the award made +20.0, the head untouched; the walk on does not see it. The chain is
    signed from row 1, so a legacy row anywhere on it does not hold."""
    db = copy(club, tmp_path / "legacy")
    key = load_keyring(db, create=False).signer().public
    client = serve(db) if keys == "key-file" else serve(   # type: ignore[operator]
        db, keyring=Keyring(), trusted=(key,))
    assert state(client.get("/ledger").text) == "verified"
    award = first_award(club)
    rewritten = as_legacy(db, award, 200)
    legacy = "does not hold: not signed, after signed rows (a legacy row: written without " \
             "the key)"
    ledger_page = client.get("/ledger").text
    assert state(ledger_page) == "failed" and "Ledger proved through" not in ledger_page
    assert marked(ledger_page) == dict.fromkeys(rewritten, legacy)
    (shown,) = [row for row in cells(ledger_page, "<td") if row[0].startswith(f"{award} ")]
    assert shown[4] == "+20.0"
    olaf = client.get("/warriors/Olaf").text
    assert state(olaf) == "failed" and "Ledger proved through" not in olaf
    assert marked(olaf)[award] == legacy
    assert f"ledger row {award}: not signed, after signed rows" in words(
        client.get("/integrity").text)


def test_a_row_signed_by_a_key_not_in_force_does_not_hold(club: Club, tmp_path: Path,
                                                            serve: object) -> None:
    """After a rotation only the new key signs: a row the retired key signs (its
    signature right: the key leaked) does not hold, nor one a key nobody knows signs."""
    db = copy(club, tmp_path / "rotated")
    old = load_keyring(db, create=False)
    engine = open_database(db)
    try:
        Store(engine, systems=SYSTEMS.rules, keyring=Keyring.of(NEW_KEY, *old.keys)).change_sheet(
            "Olaf", mod_bp(5, "mod", "after the rotation"))
    finally:
        engine.dispose()
    rows = ledger_rows(db)
    assert [row["entry"] for row in rows[-2:]] == ["key-rotated", "moderator-bp"]
    newest, old_id = rows[-1]["id"], old.signer().public.id
    new_id = signing_key(NEW_KEY.encode()).public.id
    client = serve(db, keyring=Keyring(), trusted=(old.signer().public,))  # type: ignore[operator]
    assert state(client.get("/ledger").text) == "verified"
    resign(db, newest, old.keys[0], bp=500)
    resign(db, newest - 3, b"a key nobody knows, 0123456789abcdef", bp=300)
    ledger_page = client.get("/ledger").text
    assert state(ledger_page) == "failed"
    said = marked(ledger_page)
    assert said[newest] == (f"does not hold: signed by key {old_id}, but key {new_id} is in "
                            "force (a key changes only by a key-rotated row)")
    nobody = signing_key(b"a key nobody knows, 0123456789abcdef").public.id
    assert said[newest - 3] == (f"does not hold: signed by key {nobody}, but key {old_id} is "
                                "in force (a key changes only by a key-rotated row)")
    assert said[newest - 2] == "does not hold: chain broken before it (row removed or changed)"
    assert set(said) == {newest - 3, newest - 2, newest}


def _legacy_append(session: Session, keyring: Keyring, **fields: Any) -> LedgerRow:
    """``ledger.append`` as the code before keys had it: plain SHA-256, no key id."""
    head = session.execute(select(LedgerHead).where(LedgerHead.id == 1).with_for_update()
                           ).scalar_one()
    fields = {"bp": 0, "spent": 0, **fields}
    if fields["entry"] == "created":
        fields["detail"] = {k: v for k, v in fields["detail"].items()
                            if k in ("skills", "armour", "profile") and v is not None}
    row = LedgerRow(id=head.last_id + 1, prev_hash=head.last_hash, hash="", **fields)
    row.hash = ledger.row_hash(head.last_hash, row)
    session.add(row)
    head.last_id, head.last_hash = row.id, row.hash
    return row


def _unchecked(_chained: Chained, _session: Session, row: Warrior) -> dict[str, Any]:
    """``Chained.check`` as the code before keys had it: none."""
    return {"owner": row.owner}


def test_a_row_before_the_first_signed_row_holds_only_as_its_seal_covers_it(
        tmp_path: Path, serve: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """A club from before keys, its legacy rows sealed by the first signed row: one of
    them edited after the walk, and the legacy rows after it hashed again (each holds
    on its own, and links to the one before), is caught by the seal."""
    db = str(tmp_path / "club.sqlite3")
    engine = open_database(db)
    store = Store(engine, systems=SYSTEMS.rules, keyring=Keyring.of(LEGACY_KEY))
    try:
        with monkeypatch.context() as patched:
            patched.setattr(ledger, "append", _legacy_append)
            patched.setattr(Chained, "check", _unchecked)   # the code before keys
            for name, culture, skills in (("Olaf", "free-clans", [Skill.BROADSWORD,
                                                                   Skill.SHIELD]),
                                          ("Grom", "goblin", [Skill.CLUB, Skill.SPEAR])):
                sheet, _ = create_warrior(name, Culture(culture), skills)
                store.create_warrior(sheet, name.lower())
            store.change_sheet("Olaf", mod_bp(30, "mod", "a grant"))
            store.change_sheet("Grom", mod_bp(5, "mod", "a later grant"))
        assert store.seal_legacy(legacy=True) > 0   # the operator's db seal-legacy
    finally:
        engine.dispose()
    client = serve(db, keyring=Keyring.of(LEGACY_KEY))   # type: ignore[operator]
    olaf = client.get("/warriors/Olaf").text
    assert state(olaf) == "verified" and not marked(olaf)
    rows = ledger_rows(db)
    legacy = [row for row in rows if row["key_id"] is None]
    grant = next(row for row in legacy if row["reason"] == "a grant")
    grant["bp"] = 3000
    previous, changed = rows[grant["id"] - 2]["hash"], []
    for row in legacy[grant["id"] - 1:]:
        row["prev_hash"] = previous
        row["hash"] = previous = row_hash(previous, SimpleNamespace(**row))
        changed.append(row)
    rewrite(db, *changed)
    olaf = client.get("/warriors/Olaf").text
    assert state(olaf) == "failed"
    assert marked(olaf) == {grant["id"]: (
        "does not hold: changed since the ledger was walked (the seal of the rows before the "
        "first signed row no longer covers it)")}


def test_a_server_without_any_key_shows_no_row_as_holding(club: Club, serve: object) -> None:
    """Rows signed with a key not known here are not proved: marked so, never shown as
    holding, never as forged; and the pages name no key as the club's."""
    client = serve(club.db, keyring=Keyring())   # type: ignore[operator]
    kid = load_keyring(club.db, create=False).signer().public.id
    html = client.get("/ledger").text
    said = marked(html)
    assert said and set(said.values()) == {
        f"not proved: signed with key {kid}, which is not known here"}
    assert len(said) == len([row for row in cells(html, "<td") if row[0]])
    assert "does not hold" not in html
    assert "This server knows no public key of the club" in words(client.get("/integrity").text)


def test_an_anchor_past_every_row_id_is_no_such_row(club: Club, serve: object) -> None:
    """No 500 (a row id over 2**31 - 1 cannot be asked of PostgreSQL): no such
    row, or for thousands of digits a 400 with one line."""
    client = serve(club.db)   # type: ignore[operator]
    for given in ("99999999999999999999:deadbeef", f"{MOST_ROW_ID + 1}:deadbeef",
                  f"#{MOST_ROW_ID}:deadbeef", f"ledger #{10**150} deadbeef12"):
        response = client.get(f"/integrity?anchor={quote(given)}")
        assert response.status_code == 200, given
        found = re.search(r'id="anchor-result" data-holds="(\w+)">(.*?)</p>', response.text,
                          re.S)
        assert found is not None and found[1] == "no", given
        assert "there is no row " in words(found[2]), given
    long = client.get("/integrity?anchor=" + "9" * 5000 + ":deadbeef")
    assert long.status_code == 400
    assert re.findall(r'<p class="problem">(.*?)</p>', long.text) == [
        "anchor: at most 200 characters of text"]
    engine = open_read_only(club.db)   # below the page: never asked of the database
    try:
        store = Store(engine, systems=SYSTEMS.rules, keyring=load_keyring(club.db, create=False))
        proof = pages_proof(store.keyring)
        store.prove(proof)
        for row_id in (2**63, 10**400, 0, -1):
            holds, said = store.anchor_check(proof, Anchor(row_id, "deadbeef"))
            assert not holds and f"there is no row {row_id}" in said
        assert store.unheld_rows(proof, [2**63, 10**400, 0, -1]) == type(
            store.unheld_rows(proof, []))()
    finally:
        engine.dispose()


def test_a_huge_bp_in_a_row_keeps_the_warrior_page_small_and_quick(
        club: Club, tmp_path: Path, serve: object) -> None:
    """The BP chart draws a bounded number of grid lines whatever a row says."""
    award = first_award(club)
    client = forged(club, tmp_path, serve,
                    f"UPDATE ledger SET bp = 1000000000000 WHERE id = {award}")
    for path in ("/warriors/Olaf", "/ledger?warrior=Olaf", "/"):
        started = time.perf_counter()
        response = client.get(path)
        assert time.perf_counter() - started < 2, path
        assert response.status_code == 200 and len(response.content) < 100_000, path
        assert state(response.text) == "failed", path
    page = client.get("/warriors/Olaf").text
    assert marked(page)[award] == "does not hold: content does not match its hash (edited)"
    svg = page.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert 2 <= svg.count('<line class="grid"') <= TICKS + 2


APPENDED = ("INSERT INTO ledger (id, entry, bp, spent, actor, reason, created_at, prev_hash, "
            "hash, key_id, signature) SELECT id + 1, 'setting-changed', 0, 0, 'bot', X'00ff', "
            "created_at, hash, hash, key_id, signature FROM ledger WHERE id = "
            "(SELECT max(id) FROM ledger)")
"""A signed row whose reason is bytes: no JSON holds it, so no hash can be computed over
it."""


@pytest.mark.parametrize("when", ["before-the-walk", "walked-on"])
def test_a_row_the_bot_never_writes_fails_the_check_and_no_page_fails(
        club: Club, tmp_path: Path, serve: object, when: str) -> None:
    """A walk that cannot read a row (before: the first walk; after: the walk on, which
    every page makes) fails the check; every page still answers, under the banner."""
    db = copy(club, tmp_path / "unreadable", *([APPENDED] if when == "before-the-walk" else []))
    client = serve(db)   # type: ignore[operator]
    if when == "walked-on":
        assert state(client.get("/").text) == "verified"
        sql(db, APPENDED)
    for path in PAGES:
        response = client.get(path)
        assert response.status_code in (200, 404), path
        assert state(response.text) == "failed", path
    assert "cannot be read as the bot writes it" in words(client.get("/integrity").text)
    if when == "walked-on":   # the proof walked as far as it could: the rest is marked
        said = marked(client.get("/ledger").text)
        assert said == {max(said): "does not hold: its content is not what a ledger row "
                                   "holds (edited)"}


@pytest.mark.parametrize("statement", [
    "UPDATE fights SET winner = 'x' WHERE id = 1",
    "UPDATE fight_commands SET seq = 'x' WHERE fight_id = 1 AND seq = 2",
], ids=["winner-text", "seq-text"])
def test_a_stored_value_of_the_wrong_kind_fails_no_page(club: Club, tmp_path: Path,
                                                          serve: object, statement: str) -> None:
    client = forged(club, tmp_path, serve, statement)
    for path in PAGES:
        assert client.get(path).status_code in (200, 404), path


def test_a_closing_row_edited_after_the_walk_proves_no_outcome(tmp_path: Path,
                                                                 serve: object) -> None:
    """The fight pages say how a fight ended as its closing row records it: that row
    is checked on its own too, so one edited in place since the walk proves nothing."""
    club = played(tmp_path)
    client = serve(club.db)   # type: ignore[operator]
    closing = closing_row(club, 1)
    assert f"as ledger row #{closing} records it" in words(client.get("/fights/1").text)
    sql(club.db, "UPDATE ledger SET reason = 'rewritten' WHERE id = ?", closing)
    fight = words(client.get("/fights/1").text)
    assert state(client.get("/fights/1").text) == "failed"
    assert (f"result not proved: ledger row #{closing} says Olaf won (kill), but that row "
            "does not hold: content does not match its hash (edited)") in fight
    listed = cells(client.get("/fights").text, "/fights/1\"")
    assert listed[0][5].startswith(f"not proved: ledger row #{closing} says Olaf won (kill)")


def test_a_rows_signature_checked_once_and_an_edited_row_checked_again(
        club: Club, tmp_path: Path, serve: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warrior page checks each signed row it shows; the next request remembers the
    signatures that held (none verified again), but a row edited by SQL since, even
    hashed again under its old signature, is read anew and caught."""
    db = copy(club, tmp_path / "remembered")
    client = serve(db)   # type: ignore[operator]
    verified: list[str] = []
    verifies = PublicKey.verifies

    def counted(key: PublicKey, signature: str, row_hash: str, *rest: Any) -> bool:
        verified.append(row_hash)
        return verifies(key, signature, row_hash, *rest)

    monkeypatch.setattr(PublicKey, "verifies", counted)
    assert state(client.get("/warriors/Olaf").text) == "verified"
    shown = len(verified)
    assert shown and state(client.get("/warriors/Olaf").text) == "verified"
    assert len(verified) == shown   # the second request verifies no signature
    award = first_award(club)
    row = ledger_rows(db)[award - 1]
    row["bp"] = 200   # +20.0, hashed again, the old signature kept
    row["hash"] = signed_hash(row["prev_hash"], SimpleNamespace(**row))
    rewrite(db, row)
    olaf = client.get("/warriors/Olaf").text
    assert state(olaf) == "failed" and len(verified) == shown + 1
    assert marked(olaf)[award].startswith("does not hold: its signature does not hold under "
                                          "key")
    sql(db, "UPDATE ledger SET reason = 'quietly changed' WHERE id = ?", award - 1)
    assert "content does not match its hash (edited)" in client.get(
        f"/ledger?before={award}").text
