"""The leadership pages in a real browser: Debian's Chromium, headless, driven by
Selenium through Debian's chromedriver, against ``ancath-bot web`` in a child process
(behind an access token) over a real SQLite file of the played club
(``club_history.played``).

Nothing is downloaded and nothing leaves the machine: the driver's and the browser's
paths are given, so Selenium Manager never runs (asked anyway, it fails the test);
Chromium runs without its background networking, component updates and sync, resolves
no name, and its net log, read after it quits, must show no DNS query and no packet
for any address but 127.0.0.1. One browser serves the module.

After every page load and download, a SEVERE entry in the browser's log fails the
test: a page or resource answered with 400 or more ("Failed to load resource"), a
script error, a Content-Security-Policy violation. Without /usr/bin/chromium or
/usr/bin/chromedriver the module skips (under CI=true it fails: .ci/run installs them).

The ledger's proof as a reader sees it: on the honest club no page shows a banner
(``#integrity-status`` says ``verified``); on copies of it with one thing forged by SQL
(``forged``), each served by a server of its own (the same token, so the cookie
carries over), every page shows the banner (``failed``), with the ledger's BP and the
stored one flagged, the edited row marked, the altered fight said. A pasted anchor is
checked through the integrity page's form, and the audit export it offers, downloaded,
proves the club with the public key it shows.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

INTEGRATION = str(Path(__file__).resolve().parents[1] / "integration")
if INTEGRATION not in sys.path:
    sys.path.insert(0, INTEGRATION)

from browser_session import Browser, chromium  # noqa: E402  (tests/e2e/)
from club import Club  # noqa: E402  (tests/integration/)
from club_history import played  # noqa: E402
from forged import FORGERIES, copy, first_award  # noqa: E402
from webserver import web_server  # noqa: E402

from bot.systems.registry import SYSTEMS  # noqa: E402
from storage.audit_export import verify_export  # noqa: E402
from storage.ledger_view import LedgerFilter  # noqa: E402
from storage.signing import PublicKey  # noqa: E402

TOKEN = "club-secret"


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Club:
    return played(tmp_path_factory.mktemp("browser"))


@pytest.fixture(scope="module")
def browser(club: Club, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """Chromium signed in to the server: ``?token=`` once, then its cookie. The server
    starts while Chromium does."""
    with web_server(club.db, token=TOKEN) as server, \
            chromium(tmp_path_factory.mktemp("chromium"), server.address) as session:
        session.visit(f"/?token={TOKEN}")
        yield session


def test_the_token_once_then_the_cookie_carries_the_session(browser: Browser) -> None:
    browser.driver.delete_all_cookies()
    browser.driver.get(browser.address + "ledger?warrior=Olaf")
    assert browser.texts("h1") == ["Access token needed"]
    refused = browser.problems()
    assert refused and all("401" in problem for problem in refused), refused
    browser.visit(f"/ledger?warrior=Olaf&token={TOKEN}")
    assert browser.driver.current_url == browser.address + "ledger?warrior=Olaf"
    assert browser.texts("h1") == ["The ledger"]
    (cookie,) = browser.driver.get_cookies()
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and TOKEN not in cookie["value"]
    browser.follow("nav a[href='/fights']")
    assert browser.texts("h1") == ["Fights"]
    # a link from another site (a web IRC client's, to what !fight names) arrives without
    # the Strict cookie: its page loads the address again from this site, which has it
    browser.driver.get(f"data:text/html,<a href='{browser.address}fights/1'>fight 1</a>")
    browser.driver.find_element(By.CSS_SELECTOR, "a").click()
    WebDriverWait(browser.driver, 10, poll_frequency=0.02).until(
        lambda d: d.find_element(By.TAG_NAME, "h1").text.startswith("Fight #1"))
    assert all("401" in problem for problem in browser.problems())   # the bounce's


def test_the_standings_sorted_by_a_headings_link(browser: Browser) -> None:
    browser.visit("/")
    assert browser.texts("table.standings tbody td:nth-child(2)") == ["Gorbag", "Olaf", "Bran"]
    browser.follow("th a[href*='sort=name']")
    assert browser.texts("table.standings tbody td:nth-child(2)") == ["Bran", "Gorbag", "Olaf"]
    assert browser.texts("th[aria-sort=ascending]") == ["Warrior ▲"]
    browser.follow("th a[href*='sort=name']")   # the same heading turns it around
    assert browser.texts("table.standings tbody td:nth-child(2)") == ["Olaf", "Gorbag", "Bran"]
    browser.follow("th a[href*='sort=draws']")   # a tie keeps the ranking's order
    assert browser.texts("table.standings tbody td:nth-child(2)") == ["Gorbag", "Bran", "Olaf"]


def test_a_warriors_page_draws_its_chart_with_a_mark_per_step(browser: Browser) -> None:
    browser.visit("/")
    browser.follow("a[href='/warriors/Gorbag']")
    chart = browser.driver.find_element(By.CSS_SELECTOR, "svg.chart")
    assert chart.is_displayed() and chart.size["width"] > 300 and chart.size["height"] > 100
    steps = browser.driver.find_elements(By.XPATH, "//caption[.=\"The chart's steps\"]"
                                                   "/following-sibling::tbody/tr")
    marks = chart.find_elements(By.CSS_SELECTOR, ".mark")
    assert len(marks) == len(steps) == 5
    rows = [step.find_element(By.TAG_NAME, "td").text for step in steps]
    assert [m.find_element(By.TAG_NAME, "title").get_attribute("textContent").split()[1]
            for m in marks] == [f"#{row}" for row in rows]
    diamonds = chart.find_elements(By.CSS_SELECTOR, "rect.mark.moderated")
    assert len(diamonds) == len([s for s in steps if "moderated" in s.get_attribute("class")])
    assert diamonds[0].value_of_css_property("fill") == "rgb(217, 119, 6)"   # the style sheet
    line = chart.find_element(By.CSS_SELECTOR, "path.steps")
    assert line.size["width"] > 200 and line.get_attribute("d").count("V") >= len(marks) - 1


def test_a_fight_replayed_step_by_step_to_the_end(browser: Browser) -> None:
    browser.visit("/fights")
    browser.follow("a[href='/fights/1']")
    browser.follow("a[href='/fights/1?step=0#step']")
    seen: dict[int, str] = {}
    while True:
        (heading,) = browser.texts("#step-title")
        number, last = (int(word) for word in heading.split()[1::2])
        seen[number] = "\n".join(browser.texts("#step p"))
        if number == last:
            break
        browser.follow("#step a[rel=next]")
    assert list(seen) == list(range(last + 1)) == list(range(6))
    assert browser.texts("#step a[rel=next]") == []
    assert "Olaf wins by a kill." in seen[last]
    assert "Taken back by mod's undo at step 3: misclick" in seen[2]
    assert "Undo by mod, reason: misclick" in seen[3]
    browser.follow("#step a[rel=prev]")
    assert browser.texts("#step-title") == [f"Step {last - 1} of {last}"]


def test_a_filtered_ledger_downloaded_holds_exactly_its_rows(browser: Browser,
                                                              club: Club) -> None:
    browser.visit("/ledger")
    browser.driver.find_element(By.NAME, "warrior").send_keys("Gorbag")
    browser.follow("form.filters button[type=submit]")
    wanted = [row["id"] for row in club.referee.store.ledger_rows(
        where=LedgerFilter(warrior="Gorbag"))]
    assert f"{len(wanted)} rows match." in browser.texts("main p")[0]
    with browser.download("a[href^='/ledger.csv']").open(newline="") as got:
        rows = list(csv.DictReader(got))
    assert [int(row["id"]) for row in rows] == wanted
    assert {row["warrior"] for row in rows} == {"Gorbag"}
    shown = json.loads(browser.download("a[href^='/ledger.json']").read_text())
    assert [row["id"] for row in shown] == wanted


PROOF_PAGES = ("/", "/warriors/Gorbag", "/warriors/Olaf", "/ledger", "/fights", "/fights/1",
               "/fights/1?step=2", "/moderators", "/integrity")


def proved(browser: Browser, path: str) -> str:
    """``path`` loaded (again while the server's first walk of the ledger is under way:
    ``unchecked``); its ``#integrity-status``'s ``data-state``."""
    deadline = time.monotonic() + 20
    while True:
        browser.visit(path)
        state = browser.driver.find_element(By.ID, "integrity-status").get_attribute(
            "data-state")
        if state != "unchecked" or time.monotonic() > deadline:
            return str(state)
        time.sleep(0.1)


def test_an_honest_club_shows_no_banner_on_any_page(browser: Browser, club: Club) -> None:
    head = club.referee.store.anchor()
    for path in PROOF_PAGES:
        assert proved(browser, path) == "verified", path
        assert browser.driver.find_elements(By.CSS_SELECTOR, ".banner, .stored, .unheld") == []
        assert browser.texts("#integrity-status") == [
            f"Ledger proved through #{head.id} ({head})."], path


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_a_forged_copy_shows_the_banner_on_every_page(
        browser: Browser, club: Club, tmp_path: Path, forgery: str) -> None:
    with web_server(copy(club, tmp_path, *FORGERIES[forgery]), token=TOKEN) as server:
        forged = Browser(browser.driver, server.address, browser.downloads)
        for path in PROOF_PAGES:
            assert proved(forged, path) == "failed", (forgery, path)
            (banner,) = browser.driver.find_elements(By.CSS_SELECTOR,
                                                     "#integrity-status.banner")
            assert banner.is_displayed()
            assert banner.value_of_css_property("border-top-color") == "rgba(155, 28, 28, 1)"
            assert "The ledger check failed: the figures on this page are not proved" in \
                banner.text, (forgery, path)
        if forgery == "stored-bp":
            forged.visit("/")
            assert browser.texts("table.standings tbody td:nth-child(2)") == [
                "Gorbag", "Olaf", "Bran"]
            assert browser.texts("table.standings tbody td:nth-child(5)")[2] == \
                "0.1 (stored column says 7.7: not what the ledger proves)"
        elif forgery == "ledger-row":
            row = first_award(club)
            assert f"From ledger row #{row} on, nothing is proved" in browser.texts(
                "#integrity-status p")[0]
            forged.visit("/ledger")
            (marked,) = browser.texts("tr.unheld td:first-child")
            assert marked == f"{row} does not hold: content does not match its hash (edited)"
        else:
            forged.visit("/fights/1")
            (altered,) = browser.texts("p.altered")
            assert "this fight's log was altered after it ended: its command log" in altered
    assert server.process.returncode == 0, server.rest


def test_a_pasted_anchor_checked_and_the_export_proved_by_the_public_key(
        browser: Browser, club: Club) -> None:
    head = club.referee.store.anchor()
    assert proved(browser, "/integrity") == "verified"
    browser.driver.find_element(By.NAME, "anchor").send_keys(f"the topic: {head}")
    browser.follow("form.filters button[type=submit]")
    (result,) = browser.driver.find_elements(By.ID, "anchor-result")
    assert result.get_attribute("data-holds") == "yes"
    assert f"holds; the chain runs intact from it to the head #{head.id}" in result.text
    (key,) = browser.texts("#public-key")
    assert key == club.referee.store.keyring.signer().public.text
    export = browser.download("#audit-export")
    assert export.name == "ancath-audit-export.jsonl"
    with export.open() as lines:
        report = verify_export(lines, [PublicKey.parse(key)], systems=SYSTEMS.rules).report
    assert report.problems == []
