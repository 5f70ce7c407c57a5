"""One headless Chromium session for the tests of the leadership pages: Debian's
Chromium driven by Selenium through Debian's chromedriver, nothing downloaded, nothing
leaving the machine (``chromium`` checks the net log when the session ends), every page
load checked for the browser log's SEVERE entries (:class:`Browser`)."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.selenium_manager import SeleniumManager
from selenium.webdriver.support.wait import WebDriverWait

INTEGRATION = str(Path(__file__).resolve().parents[1] / "integration")
if INTEGRATION not in sys.path:
    sys.path.insert(0, INTEGRATION)

from ircserver import in_ci  # noqa: E402  (tests/integration/)

__all__ = ["Browser", "chromium"]

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run",
         # Debian's Chromium has Google's API keys (/etc/chromium.d/apikeys) and asks, these
         # flags notwithstanding, the autofill servers about forms and Google the time...
         "--disable-features=AutofillServerCommunication,NetworkTimeServiceQuerying",
         # ...and its accounts and update services, and the search engine: no name resolves
         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
LOOPBACK = ("127.0.0.1:", "[::1]:")


class Browser:
    """One Chromium session on one server; every load is checked for what went wrong."""

    def __init__(self, driver: WebDriver, address: str, downloads: Path) -> None:
        self.driver = driver
        self.address = address
        self.downloads = downloads

    def problems(self) -> list[str]:
        """What went wrong since the last call: the browser log's SEVERE entries."""
        return [e["message"] for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]

    def visit(self, path: str) -> None:
        """Load ``path`` of the server, which must load cleanly."""
        self.driver.get(self.address + path.lstrip("/"))
        assert self.problems() == [], path

    def follow(self, css: str) -> None:
        """Click the link or button ``css`` picks and wait for the page it loads."""
        was = self.driver.current_url
        self.driver.find_element(By.CSS_SELECTOR, css).click()
        WebDriverWait(self.driver, 10, poll_frequency=0.01).until(
            lambda d: d.current_url != was
            and d.execute_script("return document.readyState") == "complete")
        assert self.problems() == [], (css, self.driver.current_url)

    def download(self, css: str) -> Path:
        """Click the download link ``css`` picks; the file, once whole."""
        for old in self.downloads.iterdir():
            old.unlink()
        self.driver.find_element(By.CSS_SELECTOR, css).click()
        deadline = time.monotonic() + 10
        while not (done := [p for p in self.downloads.iterdir()   # not a part, nor hidden
                            if not p.name.endswith(".crdownload") and p.name[0] != "."]):
            assert time.monotonic() < deadline, "no download within 10 s"
            time.sleep(0.02)
        assert self.problems() == [], css
        return done[0]

    def texts(self, css: str) -> list[str]:
        """The text of each element ``css`` picks, as shown (one round trip)."""
        return self.driver.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0]), e => e.innerText)", css)


def beyond_loopback(net_log: Path) -> list[str]:
    """What Chromium's net log shows leaving the machine: a DNS query, a TCP connection
    tried or a UDP datagram sent to any address but the loopback's. (A UDP socket
    connected to learn the local address, sending nothing, does not count.)"""
    log = json.loads(net_log.read_text())
    kinds = {number: name for name, number in log["constants"]["logEventTypes"].items()}
    peers: dict[int, str] = {}   # a UDP socket's id: the address it is connected to
    found = []
    for event in log["events"]:
        kind, source, params = kinds[event["type"]], event["source"]["id"], event.get("params", {})
        if kind == "UDP_CONNECT" and "address" in params:
            peers[source] = params["address"]
        address = peers.get(source, "?") if kind == "UDP_BYTES_SENT" else params.get("address")
        sent = kind in ("TCP_CONNECT_ATTEMPT", "UDP_BYTES_SENT") and address
        if (kind == "DNS_TRANSACTION" and "hostname" in params) or (
                sent and not address.startswith(LOOPBACK)):
            found.append(f"{kind} {params} {address}")
    return found


@contextmanager
def chromium(scratch: Path, address: str) -> Iterator[Browser]:
    """A Chromium session on the server at ``address`` (its profile, downloads and net
    log in ``scratch``); skips the test without Debian's packages (fails under CI=true).
    On leaving: nothing late in the browser's log, nothing sent beyond the loopback."""
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    if missing:
        message = f"{' and '.join(missing)} missing (apt-get install chromium chromium-driver)"
        if in_ci():
            pytest.fail(f"{message} (CI=true: .ci/run must install them)")
        pytest.skip(message)
    downloads = scratch / "downloads"
    downloads.mkdir()
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    net_log = scratch / "net-log.json"
    for flag in (*FLAGS, f"--user-data-dir={scratch / 'profile'}", f"--log-net-log={net_log}"):
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})

    def fetch(*_: object) -> None:
        raise AssertionError("Selenium Manager asked to find (or fetch) a browser or driver")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SeleniumManager, "binary_paths", fetch)
        driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        try:
            session = Browser(driver, address, downloads)
            yield session
            assert session.problems() == []   # what the last page brought late
        finally:
            driver.quit()
    assert beyond_loopback(net_log) == []
