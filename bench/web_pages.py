"""Benchmark: what issue 35 added to the pages of ``ancath-bot web``, on a busy club,
beside the pages as they were before it (a read-only copy of the older tree).

    python bench/web_pages.py [--rows N] [--warriors W] [--requests R] [--fights F]
                              [--watchers S] [--live-seconds T] [--before DIR] [--dir DIR]

Fills a new SQLite file with a valid keyed ledger of N rows (default 100000) over W
warriors (default 20: 5,000 rows each) as ``bench/ledger_memory.py`` does, then, through
the referee (``tests/integration/club.py``) on the same file, one practice fight played
to its end (fight 1) and F fights going on (default 5). The real ``ancath-bot web``
serves it in a child process, and, with ``--before DIR`` (the tree before issue 35:
``git archive 26cee61 | tar -x -C DIR``), the older server serves the same file in
another; both are asked over HTTP on loopback, one connection each kept open, after a
warm-up request of each page and once each server idles (its first walk of the ledger,
proving every row, done), the two servers' requests alternating:

- R times each (default 30), timed to the last byte: the ledger's newest page, its
  oldest (``?before=151``), a Newer page (``?after=N/2``), a jump to a middle row
  (``?at=N/2``), one warrior's rows (``?warrior=W0000``, with its running balance), that
  warrior's page (``/warriors/W0000``) and the standings (``/``, its ranking history
  drawn); of the older server the pages it has (newest, oldest, warrior, the warrior
  page, the standings);
- the standings' first request after a new ledger head (a warrior created through the
  referee), three times: how long it took, whether it showed the ranking history drawn
  through that row (else it says through which row it is drawn), and for the first how
  long until the page shows it (a request a second, at most 75 s);
- the ranking history's own walk in this process (``Store.ranking_rows``, then
  ``bot.web.ranking``), three times, in CPU seconds;
- the server's CPU (``/proc/<pid>/stat``) over T seconds (default 20) with no stream
  open, then with S streams (default 50) of ``/fights/<n>/events`` open over the F
  fights going on (no step made meanwhile: the polling's cost);
- page weight: the bytes of ``/``, ``/ledger``, ``/fights/1``, ``style.css``,
  ``replay.js``, ``live.js`` (of the older server: the first four it has).

Prints one figure per line, ``name value``: ``web_pages.<page>.ms_p50`` and ``.ms_p90``
(``before_<page>`` for the older server's), ``.x_before`` (p50 over the older server's
p50), ``web_pages.<page>.bytes``; ``web_pages.standings_new_head.ms_max``,
``.fresh`` (of 3), ``.drawn_ms`` (the first head's); ``web_pages.ranking_walk.cpu_seconds_max``;
``web_pages.live.cpu_per_second_idle`` and ``_watched``; ``web_pages.goal_pages_under_1s
met`` (every p90 under 1000 ms) or ``missed``.
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "integration"), str(ROOT / "bench")]

from club import Club  # noqa: E402
from ledger_memory import fill  # noqa: E402
from webserver import WebServer, web_server  # noqa: E402

from bot.systems.registry import SYSTEMS  # noqa: E402
from bot.web.ranking import rank_chart, ranking  # noqa: E402
from storage.db import open_read_only  # noqa: E402
from storage.keys import default_key_path, load_keyring, new_key  # noqa: E402
from storage.store import Store  # noqa: E402

STALE = b"Drawn through ledger #"
"""What the standings say while the chart is not drawn through the newest row (being
drawn, or on a busy club waiting for its once-a-minute redraw)."""
LAG_SECONDS = 75.0
"""How long the first new head's request waits for the chart drawn through it."""
WEIGHED = {"standings": "/", "ledger": "/ledger", "fight": "/fights/1",
           "style_css": "/static/style.css", "replay_js": "/static/replay.js",
           "live_js": "/static/live.js"}
OLD_HAS = ("standings", "ledger", "fight", "style_css")


def pages(rows: int) -> dict[str, str]:
    middle = rows // 2
    return {"newest": "/ledger", "oldest": "/ledger?before=151",
            "newer": f"/ledger?after={middle}", "jump": f"/ledger?at={middle}",
            "warrior": "/ledger?warrior=W0000", "warrior_page": "/warriors/W0000",
            "standings": "/"}


OLD_PAGES = ("newest", "oldest", "warrior", "warrior_page", "standings")


class Client:
    """One kept-open connection to a server."""

    def __init__(self, server: WebServer) -> None:
        address = urlsplit(server.address)
        self.host, self.port = address.hostname or "", address.port or 80
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=300)
        self.pid = server.process.pid

    def get(self, path: str) -> tuple[float, bytes]:
        """``path`` read to its last byte: the milliseconds it took and the body."""
        started = time.perf_counter()
        self.connection.request("GET", path)
        response = self.connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise SystemExit(f"GET {path}: {response.status} {response.reason}")
        return (time.perf_counter() - started) * 1000, body


def older_server(tree: Path, db: str) -> WebServer:
    """The older tree's ``ancath-bot web`` on ``db``, on a free port."""
    env = {k: v for k, v in os.environ.items() if k != "ANCATH_WEB_TOKEN"}
    env["PYTHONPATH"] = str(tree)
    return WebServer(subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "web", "--db", db, "--port", "0"], cwd=tree,
        env=env, stderr=subprocess.PIPE, text=True))


class Says:
    """What is said on one channel of ``club``."""

    def __init__(self, club: Club, channel: str) -> None:
        self.club, self.channel = club, channel

    def __call__(self, line: str) -> list[str]:
        return self.club.say(f"{self.channel} {line}")


def club_with_fights(scratch: Path, db: str, going: int) -> Club:
    """Fight 1 played to its end, then ``going`` practice fights going on."""
    club = Club(scratch, database=db)
    for n in range(going + 1):   # one fight per channel
        tag = chr(ord("a") + n)
        say = Says(club, f"#arena{tag}")
        say(f"gob{tag} !create Gorbag{tag} goblin club spear")
        say(f"olaf{tag} !create Olaf{tag} free-clans broadsword shield")
        say(f"olaf{tag} !challenge Gorbag{tag} practice")
        club.dice.push(50, 40)
        if not any("Practice fight" in line for line in say(f"gob{tag} !accept")):
            raise SystemExit(f"no fight begun: {club.last()}")
        if n == 0:   # Olaf acts first, hits, Gorbag's dodge fails, damage 5 kills
            say(f"olaf{tag} !first")
            club.dice.push(20)
            say(f"olaf{tag} !attack")
            club.dice.push(80, 5)
            say(f"gob{tag} !dodge")
    return club


def cpu_seconds(pid: int) -> float:
    """``pid``'s user and system CPU so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settled(pid: int, timeout: float = 300.0) -> None:
    """Wait until ``pid`` idles (under 5% of a core over half a second): its first walk
    of the ledger, which proves every row in a thread at start, and the ranking history
    drawn by a warm-up, done, so they do not weigh on the requests timed."""
    give_up = time.monotonic() + timeout
    while cpu_per_second(pid, 0.5) >= 0.05:
        if time.monotonic() > give_up:
            raise SystemExit(f"the server {pid} is still busy after {timeout:.0f} s")


def cpu_per_second(pid: int, seconds: float) -> float:
    started, cpu = time.perf_counter(), cpu_seconds(pid)
    time.sleep(seconds)
    return (cpu_seconds(pid) - cpu) / (time.perf_counter() - started)


def watch(client: Client, path: str, opened: threading.Barrier, stop: threading.Event) -> None:
    """Hold ``path``'s stream open, reading what comes, until ``stop``."""
    connection = http.client.HTTPConnection(client.host, client.port, timeout=60)
    connection.request("GET", path)
    response = connection.getresponse()
    if response.status != 200:
        raise SystemExit(f"GET {path}: {response.status}")
    response.readline()
    opened.wait()
    while not stop.is_set() and response.fp is not None:
        try:
            if not response.fp.readline():
                break
        except (OSError, ValueError):
            break
    connection.close()


def live_cost(server: WebServer, fights: range, watchers: int, seconds: float) -> dict[str,
                                                                                       float]:
    """The server's CPU per second, idle and with ``watchers`` streams open."""
    pid, client = server.process.pid, Client(server)
    settled(pid)
    idle = cpu_per_second(pid, seconds)
    opened, stop = threading.Barrier(watchers + 1), threading.Event()
    threads = [threading.Thread(target=watch, daemon=True, args=(
        client, f"/fights/{fights[n % len(fights)]}/events", opened, stop))
        for n in range(watchers)]
    for thread in threads:
        thread.start()
    opened.wait(timeout=60)
    watched = cpu_per_second(pid, seconds)
    stop.set()
    return {"live.cpu_per_second_idle": round(idle, 4),
            "live.cpu_per_second_watched": round(watched, 4)}


def timed_pages(now: Client, old: Client | None, paths: dict[str, str],
                requests: int) -> dict[str, float]:
    """Each page's p50 and p90 (and bytes), the two servers' requests alternating."""
    asked = [("", now, name, path) for name, path in paths.items()]
    if old is not None:
        asked += [("before_", old, name, paths[name]) for name in OLD_PAGES]
    for _, client, _, path in asked:
        client.get(path)   # the warm-up: imports, templates, the ranking history
    for client in {id(c): c for _, c, _, _ in asked}.values():
        settled(client.pid)
        client.connection.close()   # the server drops one idle that long: the next opens anew
    times: dict[str, list[float]] = {f"{at}{name}": [] for at, _, name, _ in asked}
    weight: dict[str, int] = {}
    for _ in range(requests):
        for at, client, name, path in asked:
            ms, body = client.get(path)
            times[f"{at}{name}"].append(ms)
            weight[f"{at}{name}"] = len(body)
    figures: dict[str, float] = {}
    for name, got in times.items():
        figures[f"{name}.ms_p50"] = round(statistics.median(got), 2)
        figures[f"{name}.ms_p90"] = round(
            statistics.quantiles(got, n=10, method="inclusive")[-1], 2)
        figures[f"{name}.bytes"] = weight[name]
    for name in OLD_PAGES if old is not None else ():
        figures[f"{name}.x_before"] = round(
            figures[f"{name}.ms_p50"] / figures[f"before_{name}.ms_p50"], 2)
    return figures


def new_heads(club: Club, now: Client, times: int) -> dict[str, float]:
    """The standings' first request after each of ``times`` new ledger heads (its time,
    and whether its chart was drawn through that head), and for the first head how long
    until a request every second shows the chart drawn through it (at most
    ``LAG_SECONDS``: a busy club's chart is redrawn at most once a minute)."""
    took, fresh = [], 0
    drawn = LAG_SECONDS * 1000
    for n in range(times):
        club.say(f"new{n} !create Newcomer{chr(ord('a') + n)} goblin club spear")
        started = time.perf_counter()
        ms, body = now.get("/")
        took.append(ms)
        fresh += STALE not in body
        if n == 0:
            while STALE in body and time.perf_counter() - started < LAG_SECONDS:
                time.sleep(1.0)
                body = now.get("/")[1]
            if STALE not in body:
                drawn = (time.perf_counter() - started) * 1000
    return {"standings_new_head.ms_max": round(max(took), 1),
            "standings_new_head.fresh": fresh,
            "standings_new_head.drawn_ms": round(drawn, 1)}


def ranking_walk(db: str, times: int) -> float:
    """The ranking history's walk through the whole ledger: the most CPU seconds."""
    engine = open_read_only(db)
    try:
        store = Store(engine, systems=SYSTEMS.rules, keyring=load_keyring(db, create=False))
        head = store.ledger_head()
        assert head is not None
        spent = []

        def walk(rows: Iterator[Any]) -> None:
            rank_chart(*ranking(rows))

        for _ in range(times):
            started = time.process_time()
            store.ranking_rows(head.id, walk)
            spent.append(time.process_time() - started)
    finally:
        engine.dispose()
    return round(max(spent), 3)


def main(argv: list[str] | None = None) -> dict[str, float | str]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000, help="ledger rows filled")
    parser.add_argument("--warriors", type=int, default=20)
    parser.add_argument("--requests", type=int, default=30, help="requests of each page")
    parser.add_argument("--fights", type=int, default=5, help="fights going on")
    parser.add_argument("--watchers", type=int, default=50, help="live streams open")
    parser.add_argument("--live-seconds", type=float, default=20.0)
    parser.add_argument("--before", help="the tree before issue 35 (read-only copy)")
    parser.add_argument("--dir", help="where to put the database (default: a temp dir)")
    args = parser.parse_args(argv)
    if args.rows < 400 or args.warriors < 1 or args.requests < 2 or not 0 < args.fights < 20 \
            or args.watchers < 1 or args.live_seconds <= 0:
        parser.error("--rows at least 400, --warriors 1, --requests 2, --fights 1-19, "
                     "--watchers 1, --live-seconds above 0")
    figures: dict[str, float | str] = {}
    with tempfile.TemporaryDirectory(prefix="ancath-bench-", dir=args.dir) as scratch:
        db = str(Path(scratch) / "pages.sqlite3")
        key = new_key()
        fill(Path(db), args.rows, args.warriors, key)
        key_path = default_key_path(db)   # the referee's and the pages' key: the fill's
        assert key_path is not None
        key_path.write_text(key + "\n", encoding="utf-8")
        key_path.chmod(0o600)
        club = club_with_fights(Path(scratch), db, args.fights)
        old = older_server(Path(args.before), db) if args.before else None
        try:
            with web_server(db) as server:
                now = Client(server)
                measured = timed_pages(now, Client(old) if old else None,
                                       pages(args.rows), args.requests)
                for name, path in WEIGHED.items():
                    measured[f"{name}.bytes"] = len(now.get(path)[1])
                    if old is not None and name in OLD_HAS:
                        measured[f"before_{name}.bytes"] = len(Client(old).get(path)[1])
                measured.update(new_heads(club, now, 3))
                measured.update(live_cost(server, range(2, args.fights + 2), args.watchers,
                                          args.live_seconds))
        finally:
            if old is not None:
                old.process.terminate()
                old.process.communicate(timeout=20)
        measured["ranking_walk.cpu_seconds_max"] = ranking_walk(db, 3)
    figures = {f"web_pages.{name}": value for name, value in measured.items()}
    slow = [name for name, value in measured.items()   # this tree's pages, not the older's
            if name.endswith(".ms_p90") and not name.startswith("before_") and value >= 1000]
    figures["web_pages.goal_pages_under_1s"] = "missed" if slow else "met"
    for name, value in figures.items():
        print(f"{name} {value}")
    return figures


if __name__ == "__main__":
    main()
    sys.exit(0)
