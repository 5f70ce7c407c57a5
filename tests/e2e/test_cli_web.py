"""``ancath-bot web`` as a newcomer runs it: a server of its own on a real SQLite file,
serving a page on a free port until it is stopped, and refusing what it cannot serve
(no database, a port in use) in one line with exit status 2."""

from __future__ import annotations

import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from rules.ancath.sheet import create_warrior
from rules.ancath.system import AN_CATH
from rules.ancath.tables import Culture, Skill
from rules.contest.system import CONTEST
from rules.general.system import GENERAL
from storage.db import open_database
from storage.store import Store

INTEGRATION = str(Path(__file__).resolve().parents[1] / "integration")
if INTEGRATION not in sys.path:
    sys.path.insert(0, INTEGRATION)

from webserver import web_server  # noqa: E402  (tests/integration/webserver.py)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True,
                          text=True, timeout=60)


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "club.sqlite3")
    engine = open_database(path)
    sheet, _ = create_warrior("Gorbag", Culture.GOBLIN, [Skill.CLUB, Skill.SPEAR])
    Store(engine, systems=[AN_CATH, CONTEST, GENERAL]).create_warrior(sheet, "gob")
    engine.dispose()
    return path


def test_it_serves_the_pages_on_a_free_port_until_stopped(db: str) -> None:
    with web_server(db, token="club-secret") as server:
        assert "every page asks for the token in $ANCATH_WEB_TOKEN" in server.first_line
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(server.address, timeout=10)
        assert refused.value.code == 401
        asked = urllib.request.Request(server.address,
                                       headers={"Authorization": "Bearer club-secret"})
        with urllib.request.urlopen(asked, timeout=10) as page:
            assert page.status == 200
            assert 'href="/warriors/Gorbag"' in page.read().decode()
    assert server.process.returncode == 0, server.rest
    assert "Traceback" not in server.rest


def test_a_missing_database_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = cli("web", "--db", str(tmp_path / "nowhere.sqlite3"), "--port", "0")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"ancath-bot: {tmp_path / 'nowhere.sqlite3'}: no such database file"]


def test_a_port_in_use_is_one_line_and_exit_2(db: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = cli("web", "--db", db, "--port", str(port))
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"ancath-bot: web: cannot listen on 127.0.0.1:{port}: ")
    assert "choose another port with --port" in line
