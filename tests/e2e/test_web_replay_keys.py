"""The replay's and the live page's scripts in a real browser (Debian's headless
Chromium, as ``test_web_browser.py`` drives it; a SEVERE browser log entry, such as a
Content-Security-Policy violation, fails the load): the arrow keys, Home and End step a
fight's replay; the win-chance chart shows once worked out (in the server's own worker
process); the live page of a fight going on shows a step played after it loaded, and
says so when the fight ends. One server and one browser for the module, over the played
club with a fifth fight begun (Olaf against Gorbag again, in #arena; Gorbag, with
fewer BP, chooses the order)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.wait import WebDriverWait

INTEGRATION = str(Path(__file__).resolve().parents[1] / "integration")
if INTEGRATION not in sys.path:
    sys.path.insert(0, INTEGRATION)

from browser_session import Browser, chromium  # noqa: E402  (tests/e2e/)
from club import Club  # noqa: E402  (tests/integration/)
from club_history import played  # noqa: E402
from webserver import web_server  # noqa: E402


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Club:
    club = played(tmp_path_factory.mktemp("replay-keys"))
    club.say("olaf !challenge Gorbag practice")   # fight 5, going on
    assert "Gorbag (gob) chooses: !first | !second" in club.say("gob !accept")[-1]
    return club


@pytest.fixture(scope="module")
def browser(club: Club, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    with web_server(club.db) as server, \
            chromium(tmp_path_factory.mktemp("chromium"), server.address) as session:
        yield session
    assert server.process.returncode == 0, server.rest


def until(browser: Browser, what: str, ready: object) -> None:
    """Wait (at most 10 s) until ``ready(driver)`` holds."""
    WebDriverWait(browser.driver, 10, poll_frequency=0.02).until(ready, what)  # type: ignore[arg-type]


def press(browser: Browser, key: str, heading: str) -> None:
    """``key`` pressed on the page; the step it loads is titled ``heading``."""
    browser.driver.find_element(By.TAG_NAME, "body").send_keys(key)
    until(browser, heading, lambda d: d.execute_script("return document.readyState") ==
          "complete" and browser.texts("#step-title") == [heading])
    assert browser.problems() == [], heading


def test_the_arrow_keys_home_and_end_step_the_replay(browser: Browser) -> None:
    browser.visit("/fights/1")
    press(browser, Keys.ARROW_RIGHT, "Step 0 of 5")   # from the whole list: the first step
    press(browser, Keys.ARROW_RIGHT, "Step 1 of 5")
    press(browser, Keys.END, "Step 5 of 5")
    assert browser.driver.current_url.endswith("/fights/1?step=5#step")
    press(browser, Keys.ARROW_LEFT, "Step 4 of 5")
    press(browser, Keys.HOME, "Step 0 of 5")
    browser.driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)   # none
    time.sleep(0.2)
    assert browser.texts("#step-title") == ["Step 0 of 5"]


def test_the_win_chance_chart_shows_once_worked_out(browser: Browser) -> None:
    deadline = time.monotonic() + 30   # the worker process starts with the first fight
    while True:
        browser.visit("/fights/1?step=2")
        if browser.driver.find_elements(By.CSS_SELECTOR, "svg.swing"):
            break
        assert browser.texts("#chances-pending") == [
            "Win chances being worked out: reload in a moment."]
        assert time.monotonic() < deadline, "no win chances within 30 s"
        time.sleep(0.3)
    chart = browser.driver.find_element(By.CSS_SELECTOR, "svg.swing")
    assert chart.is_displayed() and chart.size["width"] > 300
    marks = chart.find_elements(By.CSS_SELECTOR, "circle.mark")
    assert len(marks) == 6 and "current" in marks[2].get_attribute("class")
    titles = [m.find_element(By.TAG_NAME, "title").get_attribute("textContent") for m in marks]
    assert titles[-1] == "Step 5: Olaf 100.0%, Gorbag 0.0%"
    rows = browser.driver.execute_script(
        "return Array.from(document.querySelectorAll('table.swing-figures tbody tr'),"
        " r => Array.from(r.cells, c => c.textContent))")
    assert rows[-1] == ["5", "100.0%", "0.0%"] and len(rows) == 6


def test_the_live_page_shows_a_step_played_after_it_loaded(browser: Browser,
                                                            club: Club) -> None:
    browser.visit("/fights")
    browser.follow("a.live[href='/fights/5/live']")
    assert browser.texts("#live-note") == [
        "Going on: new steps appear below as they are played."]   # the script runs
    assert len(browser.texts("#live-steps > li")) == 1
    heard = club.say("gob !second")[0].split(" ", 1)[1]
    until(browser, "the new step", lambda d: len(browser.texts("#live-steps > li")) == 2)
    assert heard in browser.texts("#live-steps > li:last-child p.said")
    club.dice.push(20)
    club.say("olaf !attack")
    club.dice.push(80, 5)
    club.say("gob !dodge")
    until(browser, "the end", lambda d: browser.texts("#live-note[data-over]") != [])
    assert browser.texts("#live-note") == [
        "The fight is over: its replay says how it ended. The replay"]
    assert "Olaf wins by a kill." in browser.texts("#live-steps > li:last-child p.said")[0]
    assert len(browser.texts("#live-steps > li")) == 4
    browser.follow("#live-note a")
    assert browser.texts("h1")[0].startswith("Fight #5")


def test_the_replay_and_the_live_page_fit_a_phone(browser: Browser) -> None:
    browser.driver.set_window_size(390, 844)
    try:
        for path in ("/fights/1", "/fights/1?step=5", "/fights/5/live"):
            browser.visit(path)
            assert browser.driver.execute_script(
                "return document.documentElement.scrollWidth <= window.innerWidth"), path
    finally:
        browser.driver.set_window_size(1280, 800)


def test_a_stream_refused_for_good_says_the_page_is_not_live(browser: Browser) -> None:
    """A stream the server will not keep (here a 404: no fight 99999; a 503 when too many
    are open, a 401 once the sign-in is gone) closes for good, and the note stops
    promising new steps."""
    browser.visit("/fights")
    browser.driver.execute_script("""
        const list = document.createElement("ol");
        list.id = "live-steps";
        list.dataset.events = "/fights/99999/events";
        const note = document.createElement("p");
        note.id = "live-note";
        const script = document.createElement("script");
        script.src = "/static/live.js";
        document.body.append(list, note, script);""")
    until(browser, "closed for good", lambda d: browser.texts("#live-note") == [
        "Not live: the server did not keep the stream; reload the page."])
    refused = browser.problems()
    assert refused and all("404" in problem for problem in refused), refused
