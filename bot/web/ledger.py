"""The ledger page (``/ledger``) and its downloads (``/ledger.csv``, ``/ledger.json``).

Filters, as query parameters, by warrior, moderator, entry kind, words of the reason,
days from and to (UTC), and fight; the page shows 100 rows newest first and pages back
by row id (``before=<id>``: as fast at row 100,000 as at row 100); a download is every
row the same filters pick, streamed. Each row the page shows is checked on its own
(its hash and signature): one that does not hold is marked so.

A search of the reasons reads every row (no index holds words): ``SEARCHES`` run at
once at most, and another is refused as "busy" (503) rather than left to hold the
threads and connections every other page needs."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from bot.web.downloads import csv_chunks, json_chunks
from bot.web.query import NotFound, NotNow, day, number, one_of, words
from bot.web.redact import ledger_fields
from bot.web.site import render, site_of
from storage.errors import UnknownWarrior
from storage.ledger_view import LedgerFilter
from storage.models import Entry
from storage.records import LedgerEntry

__all__ = ["FILTERS", "PAGE", "SEARCHES", "ledger", "ledger_csv", "ledger_json"]

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


def _where(params: Mapping[str, str]) -> LedgerFilter:
    """The rows ``params`` pick (a bad one is a ``BadRequest``)."""
    kind = one_of(params, "kind", KINDS)
    return LedgerFilter(
        warrior=words(params, "warrior"), moderator=words(params, "moderator"),
        entry=Entry(kind) if kind else None, reason=words(params, "reason"),
        since=day(params, "since"), until=day(params, "until"), fight=number(params, "fight"))


def _given(params: Mapping[str, str]) -> dict[str, str]:
    """The filters as given, for the links that keep them."""
    return {name: params[name].strip() for name in FILTERS if params.get(name, "").strip()}


def _unknown(where: LedgerFilter) -> NotFound:
    return NotFound(f"no warrior named {where.warrior}")


def ledger(request: Request) -> Response:
    params = request.query_params
    where = _where(params)
    before = number(params, "before")
    site = site_of(request)
    site.proof.advance()
    try:
        with _searching(where):
            page = site.store.ledger_page(where, before, PAGE)
            count = site.store.ledger_count(where)
    except UnknownWarrior:
        raise _unknown(where) from None
    rows = [ledger_fields(r) for r in page.rows]
    site.proof.check_rows(rows)
    return render(request, "ledger.html", rows=rows, older=page.older, before=before,
                  count=count, given=_given(params), kinds=KINDS)


def _download(request: Request, chunks: Callable[[Iterator[LedgerEntry]], Iterator[str]],
              media: str, suffix: str) -> Response:
    where = _where(request.query_params)
    try:
        rows = site_of(request).store.ledger_rows(where=where)   # refuses a name now
    except UnknownWarrior:
        raise _unknown(where) from None
    if where.reason:   # refused now if busy, rather than as a broken download
        with _searching(where):
            pass
    return StreamingResponse(chunks(_searched(where, rows)), media_type=media, headers={
        "content-disposition": f'attachment; filename="ancath-ledger.{suffix}"'})


def ledger_csv(request: Request) -> Response:
    return _download(request, csv_chunks, "text/csv; charset=utf-8", "csv")


def ledger_json(request: Request) -> Response:
    return _download(request, json_chunks, "application/json", "json")
