"""The search box and the ranking history in a real browser (Debian's headless
Chromium, ``browser_session.chromium``) against ``ancath-bot web`` over the played club
(``club_history.played``): the header's form reaches a warrior and a fight, without
script, and the standings page draws the ranking chart. One server and one browser
serve the module."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

INTEGRATION = str(Path(__file__).resolve().parents[1] / "integration")
if INTEGRATION not in sys.path:
    sys.path.insert(0, INTEGRATION)

from browser_session import Browser, chromium  # noqa: E402  (tests/e2e/)
from club_history import played  # noqa: E402  (tests/integration/)
from webserver import web_server  # noqa: E402


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    club = played(tmp_path_factory.mktemp("search"))
    with web_server(club.db) as server, \
            chromium(tmp_path_factory.mktemp("chromium"), server.address) as session:
        yield session


def search(browser: Browser, words: str) -> str:
    """Type ``words`` in the header's search box, send it; the path reached."""
    box = browser.driver.find_element(By.CSS_SELECTOR, "header #site-search")
    box.clear()
    box.send_keys(words)
    browser.follow("header form.search button")
    return browser.driver.current_url.removeprefix(browser.address.rstrip("/"))


def test_the_header_search_reaches_a_warrior_and_a_fight(browser: Browser) -> None:
    browser.visit("/ledger")
    assert search(browser, "gorbag") == "/warriors/Gorbag"
    assert browser.texts("h1") == ["Gorbag"]
    assert search(browser, "#2") == "/fights/2"
    assert search(browser, "o").startswith("/search?q=o")
    assert browser.texts("ul.found li") == ["Olaf", "Gorbag"]   # those it begins first


def test_the_standings_draw_the_ranking_history(browser: Browser) -> None:
    browser.visit("/")
    chart = browser.driver.find_element(By.CSS_SELECTOR, "svg.chart.ranking")
    assert chart.size["height"] > 100 and chart.size["width"] > 300
    lines = browser.driver.find_elements(By.CSS_SELECTOR, "svg.ranking path.place")
    assert len(lines) == 3 and all(line.size["height"] > 0 for line in lines)
    assert browser.texts("ol.legend li") == ["Gorbag", "Olaf", "Bran"]
    assert browser.texts("#ranking-table tbody tr td:nth-child(2)") == ["Gorbag", "Olaf",
                                                                         "Bran"]
