"""The ledger page (``/ledger``) and its downloads (``/ledger.csv``, ``/ledger.json``).

Filters, as query parameters, by warrior, moderator, entry kinds (``kind=award&kind=
spend``), words of the reason, days from and to (UTC), and fight; the page shows 100
rows newest first and pages by row id (``before=<id>``, ``after=<id>`` for the newer
page, ``at=<id>`` for the page from that row on: as fast at row 100,000 as at row 100),
with the count of the rows picked. Filtered to one warrior, each row also shows the
warrior's BP after it (its running balance, summed from all its rows: what the ledger
proves). A download is every row the same filters pick, streamed, named for them
(``ancath-ledger-Gorbag-award+spend-2026-03-01-to-2026-03-31.csv``); for one warrior
the CSV has the balance too. Each row the page shows is checked on its own (its hash
and signature): one that does not hold is marked so.

A search of the reasons reads every row (no index holds words): ``SEARCHES`` run at
once at most, and another is refused as "busy" (503) rather than left to hold the
threads and connections every other page needs."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import chain
from urllib.parse import quote

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from bot.web.downloads import balanced_csv_chunks, csv_chunks, json_chunks
from bot.web.pager import keyed
from bot.web.query import LARGEST, BadRequest, NotFound, NotNow, day, number, some_of, words
from bot.web.redact import ledger_fields
from bot.web.site import render, site_of
from storage.errors import UnknownWarrior
from storage.ledger_view import LEDGER_BATCH, LedgerFilter
from storage.models import Entry
from storage.records import LedgerEntry
from storage.store import Store

__all__ = ["FILTERS", "PAGE", "SEARCHES", "disposition", "filename", "ledger", "ledger_csv",
           "ledger_json"]

PAGE = 100
"""Rows a page."""
FILTERS = ("warrior", "moderator", "kind", "reason", "since", "until", "fight")
"""The query parameters that pick rows (the downloads take the same)."""
SEARCHES = 2
"""Searches of the reasons (pages and downloads) running at once at most."""
_searches = threading.BoundedSemaphore(SEARCHES)


@contextmanager
def _searching(where: LedgerFilter) -> Iterator[None]:
    """Hold a place among the searches while ``where`` reads the reasons."""
    if not where.reason:
        yield
        return
    if not _searches.acquire(blocking=False):
        raise NotNow(f"{SEARCHES} searches of the reasons are running; try again in a moment")
    try:
        yield
    finally:
        _searches.release()


def _searched(where: LedgerFilter, rows: Iterator[LedgerEntry]) -> Iterator[LedgerEntry]:
    """``rows`` streamed while holding a search's place."""
    with _searching(where):
        yield from rows
KINDS = tuple(e.value for e in Entry)


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_UNSAFE_LETTERS = re.compile(r"[^\w-]+")
"""Outside letters (of any script), digits, ``_`` and ``-``: for ``filename*``."""


def _where(params: QueryParams) -> LedgerFilter:
    """The rows ``params`` pick (a bad one is a ``BadRequest``)."""
    kinds = some_of(params.getlist("kind"), "kind", KINDS)
    return LedgerFilter(
        warrior=words(params, "warrior"), moderator=words(params, "moderator"),
        entries=tuple(map(Entry, kinds)), reason=words(params, "reason"),
        since=day(params, "since"), until=day(params, "until"), fight=number(params, "fight"))


def _given(params: QueryParams) -> dict[str, str | list[str]]:
    """The filters as given, for the links that keep them."""
    given: dict[str, str | list[str]] = {
        name: params[name].strip() for name in FILTERS if params.get(name, "").strip()}
    kinds = [kind.strip() for kind in params.getlist("kind") if kind.strip()]
    if kinds:
        given["kind"] = kinds
    return given


def _unknown(where: LedgerFilter) -> NotFound:
    return NotFound(f"no warrior named {where.warrior}")


def filename(where: LedgerFilter, suffix: str, *, letters: bool = False) -> str:
    """The download's file name, naming its filters in safe characters only:
    ``ancath-ledger-Gorbag-award+spend-2026-03-01-to-2026-03-31.csv``; ``letters``:
    keeping the letters of every script (``ancath-ledger-Ólaf.csv``)."""
    unsafe = _UNSAFE_LETTERS if letters else _UNSAFE

    def safe(text: str) -> str:
        return unsafe.sub("_", text).strip("_")[:40]
    since, until = where.since, where.until
    days = f"{since}-to-{until}" if since and until else f"from-{since}" if since else \
        f"to-{until}" if until else ""
    parts = [safe(where.warrior or ""), f"by-{safe(where.moderator)}" if where.moderator
             else "", "+".join(e.value for e in where.entries),
             f"fight-{where.fight}" if where.fight else "",
             f"reason-{safe(where.reason)}" if where.reason else "", days]
    return "-".join(["ancath-ledger", *(p for p in parts if p and p != "by-")]) + f".{suffix}"


def ledger(request: Request) -> Response:
    params = request.query_params
    where = _where(params)
    before, after = number(params, "before"), number(params, "after", low=0)
    at = number(params, "at", high=LARGEST - 1)   # the page is read below at + 1
    if sum(given is not None for given in (before, after, at)) > 1:
        raise BadRequest("give one of before, after and at")
    site = site_of(request)
    site.proof.advance()
    try:
        with _searching(where):
            page = site.store.ledger_window(where, at + 1 if at else before, after, PAGE)
            balances = site.store.ledger_balances(
                where.warrior, [row["id"] for row in page.items]) if where.warrior else None
    except UnknownWarrior:
        raise _unknown(where) from None
    rows = [ledger_fields(r) for r in page.items]
    site.proof.check_rows(rows)
    paging = keyed(page, [str(row["id"]) for row in rows], "rows", {"after": "0"},
                  jump="at", jump_label="Go to row")
    missing = at is not None and not any(row["id"] == at for row in rows)
    return render(request, "ledger.html", rows=rows, paging=paging, at=at, missing=missing,
                  count=page.total, given=_given(params), kinds=KINDS, balances=balances)


def _balanced(store: Store, warrior: str, rows: Iterator[LedgerEntry],
              ) -> Iterator[tuple[LedgerEntry, int]]:
    """``rows`` (one warrior's, oldest first) each with the warrior's BP after it."""
    known = (0, 0)
    piece: list[LedgerEntry] = []
    for row in chain(rows, [None]):   # None: the end
        if row is not None:
            piece.append(row)
        if piece and (row is None or len(piece) == LEDGER_BATCH):
            found = store.ledger_balances(warrior, [r["id"] for r in piece], known)
            yield from ((r, found[r["id"]]) for r in piece)
            known = (piece[-1]["id"], found[piece[-1]["id"]])
            piece = []


def _download(request: Request, chunks: Callable[[Iterator[LedgerEntry]], Iterator[str]],
              media: str, suffix: str) -> Response:
    where = _where(request.query_params)
    store = site_of(request).store
    try:
        rows = store.ledger_rows(where=where)   # refuses a name now
    except UnknownWarrior:
        raise _unknown(where) from None
    if where.reason:   # refused now if busy, rather than as a broken download
        with _searching(where):
            pass
    body = _searched(where, rows)
    text = balanced_csv_chunks(_balanced(store, where.warrior, body)) \
        if where.warrior and suffix == "csv" else chunks(body)
    return StreamingResponse(text, media_type=media, headers={
        "content-disposition": disposition(where, suffix)})


def disposition(where: LedgerFilter, suffix: str) -> str:
    """The download's ``Content-Disposition``: its name in ASCII, and, when a filter has
    other letters, also as ``filename*`` (RFC 6266), which browsers prefer."""
    plain, named = filename(where, suffix), filename(where, suffix, letters=True)
    said = f'attachment; filename="{plain}"'
    return said if named == plain else f"{said}; filename*=UTF-8''{quote(named, safe='+')}"


def ledger_csv(request: Request) -> Response:
    return _download(request, csv_chunks, "text/csv; charset=utf-8", "csv")


def ledger_json(request: Request) -> Response:
    return _download(request, json_chunks, "application/json", "json")
