"""Integration tests build warriors with the An Cath transcript helper in tests/unit."""

import re
import sys
from pathlib import Path

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:
    sys.path.insert(0, UNIT)


# --- a real IRC server (ngircd) for the transport tests ------------------------------
# Imported below the sys.path setup above; ircserver.py sits next to this file.

from collections.abc import Iterator  # noqa: E402
from contextlib import ExitStack  # noqa: E402

import pytest  # noqa: E402
from bot_pair import Bots  # noqa: E402
from ircserver import NgircdServer, find_ngircd, in_ci  # noqa: E402

from bot.systems.registry import SYSTEMS  # noqa: E402
from storage.db import open_database  # noqa: E402
from storage.store import Store  # noqa: E402


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    """A store on a new database of each backend (migrated to the newest schema)."""
    engine = open_database(database_url)
    try:
        yield Store(engine, systems=SYSTEMS.rules)
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def ngircd_binary() -> str:
    """Path of ngircd; skips without it, except under CI=true, where it fails."""
    binary = find_ngircd()
    if binary is None:
        message = "ngircd is not installed (apt-get install ngircd)"
        if in_ci():
            pytest.fail(f"{message} (CI=true: .ci/run must install it)")
        pytest.skip(message)
    return binary


@pytest.fixture
def ngircd(ngircd_binary: str) -> Iterator[NgircdServer]:
    """A fresh ngircd on a free 127.0.0.1 port for one test (starts in ~15 ms)."""
    server = NgircdServer(binary=ngircd_binary)
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def bots(database_url: str, tmp_path: Path, ngircd_binary: str) -> Iterator[Bots]:
    """Two ``ancath-bot run`` on one database, each on an ngircd of its own
    (:mod:`bot_pair`); neither may have logged a traceback by the end."""
    with ExitStack() as stack:
        running = Bots(database_url, tmp_path, stack, ngircd_binary)
        yield running
        log = running.logged()
        assert "Traceback" not in _orphans_cut(log), log


def _orphans_cut(log: str) -> str:
    """``log`` without the traceback an ``!odds`` worker prints when its bot was killed
    while starting it (the child finds its parent's pipe closed: EOFError in
    multiprocessing's spawn), the one traceback a SIGKILL may leave that is not the
    bot's."""
    return re.sub(r"Traceback \(most recent call last\):\n(?:.*multiprocessing/spawn\.py.*\n"
                  r"|[ \t].*\n)*?EOFError: Ran out of input\n", "", log)


# --- InspIRCd 3 with fake services, for the IRCv3 account tests ----------------------

from inspircd import InspircdServer, find_inspircd  # noqa: E402


@pytest.fixture(scope="session")
def inspircd_binary() -> str:
    """Path of inspircd; skips without it, except under CI=true, where it fails."""
    binary = find_inspircd()
    if binary is None:
        message = "inspircd is not installed (apt-get install inspircd)"
        if in_ci():
            pytest.fail(f"{message} (CI=true: .ci/run must install it)")
        pytest.skip(message)
    return binary


@pytest.fixture
def inspircd(inspircd_binary: str) -> Iterator[InspircdServer]:
    """A fresh InspIRCd on free 127.0.0.1 ports with ``FakeServices`` linked as
    ``server.services`` (starts and links in ~20 ms; each client's 001 takes ~1 s)."""
    server = InspircdServer(binary=inspircd_binary)
    server.start()
    try:
        yield server
    finally:
        server.close()
