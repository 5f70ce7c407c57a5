"""The search (``/search?q=...``, the form in every page's header): a fight number
(``12`` or ``#12``) or a warrior's name, or part of one.

A number goes straight to its fight when there is one (a name starts with a letter);
a name goes to its warrior when it names exactly one (names compare case-folded, as
the bot compares them, R2.5), or when it is the only thing found. Otherwise a page
lists the warriors whose names hold the words, those they begin first (the first
``SHOWN``, with how many in all), a dead one marked; or says nothing was found.
Longer than ``LONGEST`` characters is refused (400)."""

from __future__ import annotations

import re
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from bot.web.query import BadRequest
from bot.web.site import render, site_of

__all__ = ["LONGEST", "SHOWN", "search"]

LONGEST = 60
"""The most characters a search may have (a name has at most 24)."""
SHOWN = 50
"""The most warriors a results page lists."""
_LAST_FIGHT = 2**31 - 1
_FIGHT = re.compile(r"#?\s*0*([0-9]{1,10})")


def search(request: Request) -> Response:
    text = request.query_params.get("q", "").strip()
    if len(text) > LONGEST or "\x00" in text:
        raise BadRequest(f"q: a warrior's name or a fight number, at most {LONGEST} "
                         "characters")
    if not text:
        return render(request, "search.html", q="", names=[], total=0, number=None,
                      shown=SHOWN, dead=set())
    site = site_of(request)
    match = _FIGHT.fullmatch(text)
    number = int(match[1]) if match is not None else None
    fight = site.store.fight_summary(number) \
        if number is not None and number <= _LAST_FIGHT else None
    if fight is not None:
        return RedirectResponse(f"/fights/{fight.id}", 303)
    names, total = site.store.warriors_matching(text, SHOWN)
    exact = [name for name in names if name.casefold() == text.casefold()]
    if exact or total == 1:
        return RedirectResponse(f"/warriors/{quote((exact or names)[0], safe='')}", 303)
    with site.proof.reading() as seen:
        proved = seen.warriors(names)
    dead = {name for name, found in proved.items() if found.columns["status"] == "dead"}
    return render(request, "search.html", q=text, names=names, total=total,
                  number=number, shown=SHOWN, dead=dead)
