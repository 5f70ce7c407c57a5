"""``make_app``: the leadership pages over one read-only store, as a Starlette app.

Every page is a plain function, so Starlette runs it in its thread pool and a slow
query never holds the event loop. A refused request is a short page: 400 for a bad
parameter, 401 without the token, 404 for what is not there, 503 when the records
cannot be read now; never a traceback.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from bot.web.access import Access, Headers, TokenGate
from bot.web.chances import WinChances
from bot.web.export import audit_export
from bot.web.fights import fight, fights
from bot.web.integrity import integrity
from bot.web.integrity_check import IntegrityCheck
from bot.web.ledger import ledger, ledger_csv, ledger_json
from bot.web.live import LiveFeeds, events, live
from bot.web.moderators import moderators
from bot.web.proving import REWALK_SECONDS, LedgerProof
from bot.web.query import PageError
from bot.web.search import search
from bot.web.sign_in import sign_in, sign_out
from bot.web.site import Site, render, templates
from bot.web.standings import standings
from bot.web.warriors import warrior
from storage.errors import StorageError, UnknownWarrior
from storage.signing import PublicKey
from storage.store import Store

__all__ = ["AUDIT_SECONDS", "make_app"]

AUDIT_SECONDS = 60.0
"""How long the integrity page keeps a check."""
_STATIC = Path(__file__).with_name("static")


def _refused(request: Request, error: Exception) -> Response:
    """A short page for a refused request."""
    if isinstance(error, PageError):
        status, message = error.status, str(error)
    elif isinstance(error, UnknownWarrior):
        status, message = 404, str(error)
    elif isinstance(error, StorageError):
        status, message = 503, f"the records cannot be read now: {error}"
    elif isinstance(error, PoolTimeout):   # every connection busy with other pages
        status, message = 503, "the records are busy; try again in a moment"
    elif isinstance(error, HTTPException):
        status, message = error.status_code, error.detail
    else:   # Starlette re-raises it after this page, for the server's log
        status, message = 500, "this page failed; the server's log says why"
    return render(request, "error.html", status, code=status, message=message)


def make_app(store: Store, *, token: str | None = None, access: Access | None = None,
             audit_seconds: float = AUDIT_SECONDS,
             rewalk_seconds: float = REWALK_SECONDS,
             trusted: tuple[PublicKey, ...] = (),
             chances: WinChances | None = None) -> Starlette:
    """The pages over ``store`` (open it read-only: ``open_read_only(url, live=True)``),
    behind ``token`` when one is given (or ``access``: the token, ``web.base_url`` and
    how long a sign-in lasts), proving the ledger with the store's keys and the
    ``trusted`` public keys (a server without the ledger secret needs only these). The
    ledger's first walk starts now, in a thread of its own (``app.state.site.proof``:
    ``wait()`` for it); the whole chain is walked again every ``rewalk_seconds`` (0:
    only when the integrity page asks). ``chances`` keeps the replays' win chances
    (default: worked out in a worker process started with the first)."""
    access = access or Access(token)
    app = Starlette(
        routes=[
            Route("/", standings, name="standings"),
            Route("/warriors/{name}", warrior, name="warrior"),
            Route("/ledger", ledger, name="ledger"),
            Route("/ledger.csv", ledger_csv, name="ledger_csv"),
            Route("/ledger.json", ledger_json, name="ledger_json"),
            Route("/fights", fights, name="fights"),
            Route("/fights/{number}", fight, name="fight"),
            Route("/fights/{number}/live", live, name="live"),
            Route("/fights/{number}/events", events, name="events"),
            Route("/moderators", moderators, name="moderators"),
            Route("/integrity", integrity, name="integrity"),
            Route("/search", search, name="search"),
            Route("/audit-export.jsonl", audit_export, name="audit_export"),
            Route("/sign-in", sign_in, methods=["GET", "POST"], name="sign_in"),
            Route("/sign-out", sign_out, methods=["POST"], name="sign_out"),
            Mount("/static", StaticFiles(directory=_STATIC), name="static"),
        ],
        middleware=[Middleware(Headers), Middleware(TokenGate, access=access)],
        exception_handlers={PageError: _refused, StorageError: _refused,
                            HTTPException: _refused, PoolTimeout: _refused,
                            Exception: _refused},
    )
    proof = LedgerProof(store, rewalk_seconds, trusted)
    proof.integrity = IntegrityCheck(store, audit_seconds, proof.report, trusted)
    app.state.access = access
    app.state.site = Site(store, templates(), proof.integrity, proof)
    app.state.chances = chances or WinChances()   # replays' win chances: bot.web.chances
    app.state.live = LiveFeeds(store)   # the live pages' polls: bot.web.live
    proof.start()
    return app
