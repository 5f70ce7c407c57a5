"""Benchmark: the ledger page and downloads of ``ancath-bot web`` as the ledger grows.

    python bench/web_ledger.py [--rows N] [--warriors W] [--requests R] [--downloads D]
                               [--dir DIR]

Fills two new SQLite files with a valid keyed ledger of N/10 and N rows (default
100000) as ``bench/ledger_memory.py`` does, then serves each with the real ``ancath-bot
web`` in a child process (``tests/integration/webserver.py``) and asks it over HTTP on
loopback, one connection kept open, after one warm-up request of each kind:

- on the large file, R times each (default 50), four ledger pages, timed from the
  request to the last byte: the newest (``/ledger``), one at the oldest rows
  (``/ledger?before=151``), one warrior's rows (``?warrior=W0000``) and words of the
  reason (``?reason=number 4242``, which no index helps);
- on each file, D times each (default 3), the whole ledger as CSV and as JSON
  (``/ledger.csv``, ``/ledger.json``), each checked whole (a line a row). The server's
  peak RSS is reset before each format (``/proc/<pid>/clear_refs``) and read after it
  (``VmHWM``): Linux only.

Prints one figure per line, ``name value``: ``web_ledger.page_<page>.ms_p50`` and
``.ms_p90`` (``newest``, ``oldest``, ``warrior``, ``reason``); for ``csv`` and ``json``,
``web_ledger.<format>.seconds_small`` and ``_large`` (the median download),
``.peak_rss_kb_small`` and ``_large`` and ``.ratio`` (large over small: near 1 when the
download streams in flat memory), ``.growth_kb_small`` and ``_large`` (the peak over
the RSS before the downloads); and ``web_ledger.fill_rows_per_second``.
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "integration"), str(ROOT / "bench")]

from ledger_memory import fill  # noqa: E402
from webserver import WebServer, web_server  # noqa: E402

from storage.keys import new_key  # noqa: E402

PAGES = {
    "newest": "/ledger",
    "oldest": "/ledger?before=151",
    "warrior": "/ledger?warrior=W0000",
    "reason": "/ledger?reason=number+4242",
}
DOWNLOADS = {"csv": "/ledger.csv", "json": "/ledger.json"}
FRAME = {"csv": 1, "json": 2}
"""Lines of a download besides its rows' one each: CSV's header; JSON's ``[`` and ``]``."""


def get(connection: http.client.HTTPConnection, path: str) -> tuple[float, int]:
    """``path`` read to its last byte: the seconds it took and its lines."""
    started = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    lines = 0
    while chunk := response.read(1 << 16):
        lines += chunk.count(b"\n")
    if response.status != 200:
        raise SystemExit(f"GET {path}: {response.status} {response.reason}")
    return time.perf_counter() - started, lines


def memory_kb(pid: int, field: str) -> int:
    """``VmRSS`` or ``VmHWM`` (the peak since started or reset) of ``pid``, in KB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise SystemExit(f"no {field} in /proc/{pid}/status")


def measure(server: WebServer, rows: int, requests: int, downloads: int,
            pages: bool) -> dict[str, float]:
    """The figures of one file (the pages' only when ``pages``), unsuffixed."""
    address = urlsplit(server.address)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=300)
    pid = server.process.pid
    figures: dict[str, float] = {}
    for path in (*PAGES.values(), *(f"{p}?fight=999999" for p in DOWNLOADS.values())):
        get(connection, path)   # the warm-up: imports, templates, caches
    for name, path in PAGES.items() if pages else ():
        times = [get(connection, path)[0] * 1000 for _ in range(requests)]
        figures[f"page_{name}.ms_p50"] = round(statistics.median(times), 2)
        p90 = statistics.quantiles(times, n=10, method="inclusive")[-1]
        figures[f"page_{name}.ms_p90"] = round(p90, 2)
    for name, path in DOWNLOADS.items():
        Path(f"/proc/{pid}/clear_refs").write_text("5")   # VmHWM := VmRSS
        before = memory_kb(pid, "VmRSS")
        times = []
        for _ in range(downloads):
            seconds, lines = get(connection, path)
            if lines != rows + FRAME[name]:
                raise SystemExit(f"{path}: {lines} lines for {rows} rows")
            times.append(seconds)
        peak = memory_kb(pid, "VmHWM")
        figures[f"{name}.seconds"] = round(statistics.median(times), 3)
        figures[f"{name}.peak_rss_kb"] = peak
        figures[f"{name}.growth_kb"] = peak - before
    connection.close()
    return figures


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000, help="rows in the large ledger")
    parser.add_argument("--warriors", type=int, default=50)
    parser.add_argument("--requests", type=int, default=50, help="requests of each page")
    parser.add_argument("--downloads", type=int, default=3, help="downloads of each format")
    parser.add_argument("--dir", help="where to put the databases (default: a temp dir)")
    args = parser.parse_args(argv)
    if args.rows < 20 or args.warriors < 1 or args.requests < 2 or args.downloads < 1:
        parser.error("--rows must be at least 20, --warriors 1, --requests 2, --downloads 1")
    measured = {}
    with tempfile.TemporaryDirectory(prefix="ancath-bench-", dir=args.dir) as scratch:
        key = new_key()
        rates = []
        for label, rows in (("small", args.rows // 10), ("large", args.rows)):
            db = Path(scratch) / f"{label}.sqlite3"
            rates.append(fill(db, rows, args.warriors, key))
            with web_server(str(db)) as server:
                measured[label] = measure(server, rows, args.requests, args.downloads,
                                          pages=label == "large")
    small, large = measured["small"], measured["large"]
    figures = {f"web_ledger.{k}": v for k, v in large.items() if k.startswith("page_")}
    for name in DOWNLOADS:
        for figure in ("seconds", "peak_rss_kb", "growth_kb"):
            figures[f"web_ledger.{name}.{figure}_small"] = small[f"{name}.{figure}"]
            figures[f"web_ledger.{name}.{figure}_large"] = large[f"{name}.{figure}"]
        figures[f"web_ledger.{name}.ratio"] = round(
            large[f"{name}.peak_rss_kb"] / small[f"{name}.peak_rss_kb"], 2)
    figures["web_ledger.fill_rows_per_second"] = round(min(rates), 1)
    for name, value in figures.items():
        print(f"{name} {value}")
    return figures


if __name__ == "__main__":
    main()
    sys.exit(0)
