"""The pager every list that can grow shows under it (``_macros.html``'s ``pager``):
Newest, Newer, Older and Oldest links, a count (``rows 101-200 of 4,210``) and, where
the list has one, a jump to a row or fight number; each link keeps the page's filters.

A list read by key (:class:`storage.paging.Window`: the ledger, the fights, the
moderators' actions) pages by ``before=<key>`` and ``after=<key>``; a list a page
already holds whole (a warrior's) by a page number of its own (``steps=2``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from storage.paging import Window

__all__ = ["Pager", "keyed", "sliced"]

_T = TypeVar("_T")
Link = dict[str, str | None]
"""A link's parameters, over the page's filters (None: left out)."""


@dataclass(frozen=True, slots=True)
class Pager:
    """What the pager shows: each link's parameters, or None where it has none."""

    noun: str
    first: int
    """The page's first item's place in the list (from 1; 0 on an empty page)."""
    last: int
    total: int
    newest: Link | None
    newer: Link | None
    older: Link | None
    oldest: Link | None
    jump: str | None = None
    """The parameter a jump gives, or None for no jump."""
    jump_label: str = ""
    anchor: str = ""
    """Where on the page its links land (``#steps``), or ''."""
    jump_date: bool = False
    """The jump takes a day (``2026-03-01``) rather than a number."""


def keyed(window: Window[_T], keys: Sequence[str], noun: str, oldest: Link, *,
          jump: str | None = None, jump_label: str = "", jump_date: bool = False) -> Pager:
    """The pager of ``window``, whose items have ``keys`` (in order), by ``before`` and
    ``after``; ``oldest`` is the link to the oldest page."""
    shown = len(window.items)
    newer, older = window.above > 0, window.above + shown < window.total
    none: Link = {"before": None, "after": None, "at": None}
    return Pager(noun, window.above + 1 if shown else 0, window.above + shown, window.total,
                 none if newer else None,
                 {**none, "after": keys[0]} if newer and shown else None,
                 {**none, "before": keys[-1]} if older and shown else None,
                 {**none, **oldest} if older or (window.total and not shown) else None,
                 jump, jump_label, jump_date=jump_date)


def sliced(items: Sequence[_T], page: int | None, size: int, param: str, noun: str, *,
           oldest_first: bool = False, jump: str | None = None, jump_label: str = "",
           ) -> tuple[list[_T], Pager]:
    """Page ``page`` (1, the newest, when None; the oldest when beyond it) of ``items``,
    ``size`` a page, by ``param``. ``oldest_first``: ``items`` run oldest first, as each
    page shows them."""
    total = len(items)
    pages = max(1, -(-total // size))
    page = min(page or 1, pages)
    if oldest_first:
        end = total - (page - 1) * size
        start = max(0, end - size)
    else:
        start = (page - 1) * size
        end = min(total, start + size)

    def link(number: int) -> Link:
        return {param: str(number) if number > 1 else None, **({jump: None} if jump else {})}

    return list(items[start:end]), Pager(
        noun, start + 1 if end > start else 0, end, total,
        link(1) if page > 1 else None, link(page - 1) if page > 1 else None,
        link(page + 1) if page < pages else None, link(pages) if page < pages else None,
        jump, jump_label, f"#{param}")
