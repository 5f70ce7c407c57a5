"""The integrity page (``/integrity``): what the server's proof of the ledger found
(:mod:`bot.web.proving`), the result of ``store.audit()``, the very check ``ancath-bot
audit verify`` makes, the ledger's head to publish, an anchor a visitor pastes checked
against the chain (``?anchor=ledger #4123 9f2c1a7e0b5d8c33`` or ``4123:9f2c...``), and
the club's public key with the audit export to check it all with. The audit is kept a
while, and never waited for (:mod:`bot.web.integrity_check`).

A pasted anchor's row id is at most ``MOST_ROW_ID`` (2**31 - 1, PostgreSQL's largest
integer): a greater one is answered as no such row, never looked up."""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import Response

from bot.web.integrity_check import AGAIN_AFTER, Checked
from bot.web.query import NotNow, one_of, words
from bot.web.site import render, site_of
from storage.ledger import Anchor, anchors_in
from storage.proved import MOST_ROW_ID

__all__ = ["NOT_AN_ANCHOR", "integrity", "pasted"]

NOT_AN_ANCHOR = ("that is not an anchor: paste it as the bot says it, ledger #4123 "
                 "9f2c1a7e0b5d8c33, or as 4123:9f2c1a7e0b5d8c33 (8 or more hex digits)")


_TOO_LONG = re.compile(r"(?:ledger #0*([1-9]\d*) |#?0*([1-9]\d*):)[0-9a-fA-F]{8,64}\b")
"""An anchor, whatever its row id's length (``pasted`` takes 18 digits at most)."""


def pasted(text: str) -> Anchor | None:
    """An anchor as a visitor pastes it: ``ledger #4123 9f2c1a7e0b5d8c33`` (as the bot
    says it, in any text) or ``4123:9f2c1a7e0b5d8c33``; None when it is neither."""
    found = anchors_in(text)
    if found:
        return found[0]
    try:
        return Anchor.parse(text)
    except ValueError:
        return None


def past_every_row(text: str) -> str | None:
    """What to answer an anchor whose row id is over ``MOST_ROW_ID`` (also one of 19
    digits or more, which ``pasted`` does not take); None for any other text."""
    for found in _TOO_LONG.finditer(text):
        digits = found[1] or found[2]
        shown = digits if len(digits) <= 24 else f"{digits[:20]}... ({len(digits)} digits)"
        if len(digits) > len(str(MOST_ROW_ID)) or int(digits) > MOST_ROW_ID:
            return (f"there is no row {shown}: no ledger row id is over {MOST_ROW_ID} "
                    "(the largest the ledger's id column holds)")
    return None


def integrity(request: Request) -> Response:
    """The integrity page (``/integrity``; ``?again=1`` to check again now,
    ``?anchor=...`` to check an anchor)."""
    params = request.query_params
    again = one_of(params, "again", ("1",)) is not None
    given = words(params, "anchor")
    anchor = pasted(given) if given else None
    site = site_of(request)
    with site.proof.reading() as seen:
        held = seen.anchor(anchor) if anchor is not None else None
    if given and anchor is None:
        held = (False, past_every_row(given) or NOT_AN_ANCHOR)
    elif anchor is not None and anchor.id > MOST_ROW_ID:   # never asked of the database
        held = (False, past_every_row(f"{anchor.id}:{anchor.mac}") or NOT_AN_ANCHOR)
    try:
        checked: Checked | None = site.integrity.result(again)
    except NotNow:
        checked = None
    return render(request, "integrity.html", checked=checked, again_after=AGAIN_AFTER,
                  given=given or "", anchor=anchor, held=held)
