"""The pagers and filters of the leadership pages in Debian's headless Chromium
(``browser_session.chromium``) against ``ancath-bot web`` over the played club grown to
more than a page of ledger rows: a moderator gives Gorbag BP 110 times.

A reader clicks Older, Newer, Oldest and the jump to a row; ticks two entry kinds; and
downloads one warrior's CSV, named for its filters, with his running balance."""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

INTEGRATION = str(Path(__file__).resolve().parents[1] / "integration")
if INTEGRATION not in sys.path:
    sys.path.insert(0, INTEGRATION)

from browser_session import Browser, chromium  # noqa: E402  (tests/e2e/)
from club import Club  # noqa: E402  (tests/integration/)
from club_history import played  # noqa: E402
from webserver import web_server  # noqa: E402

ROWS = "table.ledger tbody td:first-child"


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Club:
    club = played(tmp_path_factory.mktemp("paging"))
    for turn in range(110):
        club.say(f"mod !mod bp Gorbag +0.1 round {turn}")
    return club


@pytest.fixture(scope="module")
def browser(club: Club, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    with web_server(club.db) as server, \
            chromium(tmp_path_factory.mktemp("chromium"), server.address) as session:
        yield session


def shown(browser: Browser) -> list[int]:
    return [int(cell.split()[0]) for cell in browser.texts(ROWS)]


def test_older_newer_oldest_and_a_jump_to_a_row(browser: Browser, club: Club) -> None:
    everything = [row["id"] for row in club.referee.store.ledger_rows()][::-1]
    total = len(everything)
    browser.visit("/ledger")
    assert browser.texts(".pager .count") == [f"Rows 1-100 of {total}"]
    assert shown(browser) == everything[:100]
    browser.follow(".pager a[rel=next]")
    assert browser.texts(".pager .count") == [f"Rows 101-{total} of {total}"]
    assert shown(browser) == everything[100:]
    browser.follow(".pager a[rel=prev]")
    assert shown(browser) == everything[:100]
    browser.follow(".pager a[rel=last]")
    assert shown(browser) == everything[-100:]
    browser.driver.find_element(By.CSS_SELECTOR, ".pager form.jump input[name=at]") \
        .send_keys(str(everything[42]))
    browser.follow(".pager form.jump button[type=submit]")
    assert shown(browser)[0] == everything[42]
    assert browser.texts("tr.target td:first-child") == [str(everything[42])]
    assert browser.texts(".pager .count") == [f"Rows 43-{min(142, total)} of {total}"]


def test_two_entry_kinds_ticked_at_once(browser: Browser, club: Club) -> None:
    browser.visit("/ledger")
    browser.driver.find_element(By.CSS_SELECTOR, "details.kinds summary").click()
    for kind in ("award", "spend"):
        browser.driver.find_element(By.CSS_SELECTOR, f"input[name=kind][value={kind}]").click()
    browser.follow("form.filters button[type=submit]")
    assert "kind=award&kind=spend" in browser.driver.current_url
    assert set(browser.texts("table.ledger tbody td:nth-child(4)")) == {"award", "spend"}
    assert browser.driver.find_element(By.CSS_SELECTOR, "details.kinds") \
        .get_attribute("open") is not None


def test_one_warriors_csv_named_for_its_filters_with_the_balance(browser: Browser,
                                                                 club: Club) -> None:
    browser.visit("/ledger?warrior=Gorbag&kind=award&kind=moderator-bp")
    total, after = 0, {}
    for row in club.referee.store.ledger_rows("Gorbag"):
        total += round(row["bp"] * 10)
        after[row["id"]] = f"{total / 10:.1f}"
    balance = browser.texts("table.ledger tbody td:nth-child(6)")
    assert balance == [after[row] for row in shown(browser)]
    got = browser.download("a[href^='/ledger.csv']")
    assert got.name == "ancath-ledger-Gorbag-award+moderator-bp.csv"
    with got.open(newline="") as text:
        rows = list(csv.DictReader(text))
    assert {row["entry"] for row in rows} == {"award", "moderator-bp"}
    assert [row["balance"] for row in rows] == [after[int(row["id"])] for row in rows]
    assert rows[-1]["balance"] == f"{club.referee.store.warrior('Gorbag').sheet.bp / 10:.1f}"
