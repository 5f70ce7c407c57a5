"""The leadership pages on a phone (390x844), a tablet (768x1024, 1024x768) and a desk
(1280x800), in headless Chromium
(Debian's, through ``browser_session``), on the played club with a warrior whose name is
as long as allowed and a moderator's reason of 390 characters without a space: every
page the navigation and its links reach scrolls no wider than the viewport
(``scrollWidth == clientWidth``), the navigation's links are all on screen, and a
table's key cells (row, warrior, BP) are on screen without scrolling anything sideways.
Signed in through the sign-in form, and out through the navigation's button."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

INTEGRATION = str(Path(__file__).resolve().parents[1] / "integration")
if INTEGRATION not in sys.path:
    sys.path.insert(0, INTEGRATION)

from browser_session import Browser, chromium  # noqa: E402  (tests/e2e/)
from club import Club  # noqa: E402  (tests/integration/)
from club_history import played  # noqa: E402
from webserver import web_server  # noqa: E402

TOKEN = "club-secret"
LONG_NAME = "W" * 24   # rules/ancath/sheet.py: a name has at most 24 characters
REASON = "Ww" * 195   # 390 characters, not one space
PHONE, TABLET, DESK = (390, 844), (768, 1024), (1280, 800)
MOST_PAGES = 60


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Club:
    club = played(tmp_path_factory.mktemp("phone"))
    assert "created" in " ".join(club.say(f"zed !create {LONG_NAME} goblin club spear"))
    assert "recorded" in club.say(f"mod !mod bp {LONG_NAME} +0.5 {REASON}")[-1]
    return club


@pytest.fixture(scope="module")
def browser(club: Club, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    with web_server(club.db, token=TOKEN) as server, \
            chromium(tmp_path_factory.mktemp("chromium"), server.address) as session:
        yield session


def size(browser: Browser, width_height: tuple[int, int]) -> None:
    """The viewport exactly so wide (not the window: it has a frame)."""
    width, height = width_height
    browser.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def widths(browser: Browser) -> tuple[int, int]:
    """The page's scroll width and the viewport's client width."""
    got = browser.driver.execute_script(
        "const e = document.documentElement; return [e.scrollWidth, e.clientWidth]")
    return got[0], got[1]


def off_screen(browser: Browser, css: str) -> list[str]:
    """What ``css`` picks that is not wholly inside the viewport's width."""
    return browser.driver.execute_script("""
        const width = document.documentElement.clientWidth;
        return Array.from(document.querySelectorAll(arguments[0]))
            .filter(e => { const r = e.getBoundingClientRect();
                           return r.left < 0 || r.right > width || r.width === 0; })
            .map(e => e.outerHTML.slice(0, 80));""", css)


def links(browser: Browser) -> list[str]:
    return browser.driver.execute_script(
        "return Array.from(document.querySelectorAll('a[href^=\"/\"]'),"
        " a => a.getAttribute('href'))")


def kind(path: str) -> tuple[str, ...]:
    """Pages alike: the first part of the path, how deep it is, the query's names."""
    parts = urlsplit(path)
    segments = parts.path.strip("/").split("/")
    names = sorted({pair.split("=")[0] for pair in parts.query.split("&") if pair})
    return (segments[0], str(len(segments)), *names)


def test_signed_in_through_the_form_every_page_fits_a_phone_and_a_desk(
        browser: Browser) -> None:
    size(browser, PHONE)
    browser.driver.get(browser.address + "ledger")
    assert browser.texts("h1") == ["Access token needed"]
    assert all("401" in problem for problem in browser.problems())
    assert widths(browser)[0] == widths(browser)[1] == PHONE[0]
    browser.driver.find_element(By.NAME, "token").send_keys(TOKEN)
    browser.driver.find_element(By.CSS_SELECTOR, "form.sign-in button[type=submit]").click()
    WebDriverWait(browser.driver, 10, poll_frequency=0.02).until(   # the same address
        lambda d: d.execute_script("return document.querySelector('h1')?.innerText")
        == "The ledger")
    assert browser.problems() == []
    assert browser.driver.current_url == browser.address + "ledger"
    assert browser.texts("h1") == ["The ledger"]

    seeds = [f"/warriors/{LONG_NAME}", f"/ledger?warrior={LONG_NAME}", "/moderators",
             "/sign-in", "/"]
    queue, seen, kinds = list(seeds), set(seeds), set()
    checked = []
    while queue and len(checked) < MOST_PAGES:
        path = queue.pop(0)
        size(browser, DESK)
        browser.visit(path)
        for viewport in (DESK, (1024, 768), TABLET, PHONE):
            size(browser, viewport)
            scroll, client = widths(browser)
            assert scroll == client > viewport[0] - 20, (path, viewport, scroll, client)
        assert off_screen(browser, "header nav a, header nav button") == [], path
        checked.append(path)
        for found in links(browser):
            if found.split("?")[0].endswith((".csv", ".json", ".jsonl")) or \
                    found.startswith(("/static/", "#")):
                continue
            found = found.split("#")[0]
            if found not in seen and kind(found) not in kinds:
                seen.add(found)
                kinds.add(kind(found))
                queue.append(found)
    assert {"", "fights", "ledger", "moderators", "integrity", "warriors"} <= {
        kind(path)[0] for path in checked}, checked
    assert any("step" in kind(path) for path in checked), checked


def test_the_long_reason_wraps_and_the_key_cells_show_on_a_phone(browser: Browser) -> None:
    size(browser, PHONE)
    browser.visit(f"/ledger?warrior={LONG_NAME}")
    assert REASON in " ".join(browser.texts("td.why")).replace("\n", "")
    assert widths(browser) == (PHONE[0], PHONE[0])
    for label in ("Row", "Warrior", "BP"):
        assert off_screen(browser, f"tbody tr:first-child td[data-label={label}]") == [], label
    browser.visit("/")
    assert off_screen(browser, "tbody td[data-label=Warrior], tbody td[data-label=BP]") == []
    assert off_screen(browser, "thead th a") == []   # the sort links, still there


def test_the_error_pages_fit_too(browser: Browser) -> None:
    size(browser, PHONE)
    for path in ("/nowhere", f"/warriors/{'Q' * 200}", "/ledger?since=2026-02-30"):
        browser.driver.get(browser.address + path.lstrip("/"))
        assert browser.problems()   # the 404 or 400, as the browser logs it
        assert widths(browser) == (PHONE[0], PHONE[0]), path


def test_signing_out_from_the_navigation(browser: Browser) -> None:
    size(browser, PHONE)
    browser.visit("/fights")
    browser.follow("form.sign-out button")
    assert browser.driver.current_url == browser.address + "sign-in"
    assert browser.texts("h1") == ["Sign in"]
    assert browser.driver.get_cookies() == []
    browser.driver.get(browser.address + "fights")
    assert browser.texts("h1") == ["Access token needed"]
    assert all("401" in problem for problem in browser.problems())
