"""Who may read the pages, and what a browser may do with them.

:class:`Access`: the access token and the session a sign-in opens. With a token
configured, every page (not the style sheet, not the sign-in form) wants one of: the
session cookie, set by the sign-in form (``POST /sign-in``, :mod:`bot.web.sign_in`) or
by ``?token=`` once in an address (then redirected to the same address without it, so
it stays out of the address bar, the history and the logs); or
``Authorization: Bearer ...`` on every request (scripts). The cookie is HttpOnly,
SameSite=Strict, Secure behind TLS (the request came over https, as uvicorn reads it
from a trusted proxy's ``X-Forwarded-Proto``, or ``web.base_url`` is https), and holds
its expiry and a MAC of the token over it, never the token: an old cookie stops working
at the server too. A wrong token is answered after a second, on the event loop's timer
(:meth:`Access.wrong`); while :data:`WRONG_AT_ONCE` wait, a token is not even checked.

SameSite=Strict: a link from another site (a web IRC client's, to what ``!fight``
names) arrives without the cookie; such a navigation gets a page that loads the same
address again from this site (a meta refresh, no script), which carries it.

:class:`Headers`: every response says scripts and their connections only from this
site (no inline script or style), no framing, no referrer, no caching, and no content
sniffing.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bot.web.site import render

__all__ = ["COOKIE", "SESSION_DAYS", "SIGNED_IN", "WRONG_AT_ONCE", "Access", "Headers",
           "TokenGate", "local", "refused", "same_site", "too_many"]

COOKIE = "ancath_web"
SESSION_DAYS = 30
"""How long a sign-in lasts (``web.session_days``)."""
WRONG_AT_ONCE = 8
"""Wrong tokens answered at once (each after a second): at most so many guesses a second."""
SIGNED_IN = "ancath.signed_in"
"""The scope's key saying the request came with the session cookie (the nav's sign-out)."""
_PUBLIC = ("/static/",)
_OPEN = ("/sign-in", "/sign-out")
_HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; connect-src 'self'; "
                               "style-src 'self'; img-src 'self'; form-action 'self'; "
                               "base-uri 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}


def local(path: str | None) -> str:
    """``path`` if it is an address on this site (``/ledger?warrior=Olaf``), else ``/``:
    never another site's (``//host``, ``/\\host``, ``https://host``)."""
    if not path or len(path) > 2000 or not path.startswith("/") or path.startswith("//") \
            or "\\" in path or any(c.isspace() or ord(c) < 32 for c in path):
        return "/"
    parts = urlsplit(path)
    if parts.scheme or parts.netloc or parts.path in _OPEN:
        return "/"
    return path


@dataclass(slots=True)
class Access:
    """The token (None or empty: every page open to all) and the sessions it opens."""

    token: str | None
    base_url: str | None = None
    """``web.base_url``: https makes the cookie Secure; its host counts as this site."""
    max_age: int = SESSION_DAYS * 86400
    wrong_delay: float = 1.0
    clock: Callable[[], float] = time.time
    """The wall clock the cookie's expiry is read by."""
    _waiting: int = field(default=0, init=False)

    @property
    def open(self) -> bool:
        return not self.token

    def right(self, given: str) -> bool:
        assert self.token
        return hmac.compare_digest(given.encode("utf-8", "surrogateescape"),
                                   self.token.encode())

    def _mac(self, expires: int) -> str:
        assert self.token
        return hmac.new(self.token.encode(), b"ancath-web session %d" % expires,
                        hashlib.sha256).hexdigest()

    def session(self) -> str:
        """A new cookie's value: its expiry and the MAC over it."""
        expires = int(self.clock()) + self.max_age
        return f"{expires}.{self._mac(expires)}"

    def holds(self, cookie: str) -> bool:
        """``cookie`` is a session of this token that has not expired."""
        expires, _, mac = cookie.partition(".")
        if not expires.isascii() or not expires.isdigit() or len(expires) > 12:
            return False
        return int(expires) > self.clock() and hmac.compare_digest(
            mac.encode("ascii", "replace"), self._mac(int(expires)).encode())

    def signed_in(self, request: Request) -> bool:
        return not self.open and self.holds(request.cookies.get(COOKIE, ""))

    @property
    def busy(self) -> bool:
        """So many wrong tokens wait for their answer that no token is checked now."""
        return self._waiting >= WRONG_AT_ONCE

    async def wrong(self) -> None:
        """A wrong token's second of waiting, on the loop's timer (no thread held)."""
        self._waiting += 1
        try:
            await asyncio.sleep(self.wrong_delay)
        finally:
            self._waiting -= 1

    def _secure(self, request: Request) -> bool:
        return request.url.scheme == "https" or (self.base_url or "").startswith("https:")

    def sign_in(self, response: Response, request: Request) -> None:
        response.set_cookie(COOKIE, self.session(), max_age=self.max_age, path="/",
                            httponly=True, samesite="strict", secure=self._secure(request))

    def sign_out(self, response: Response, request: Request) -> None:
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict",
                               secure=self._secure(request))

    def hosts(self, request: Request) -> set[str]:
        """This site's host names, with their ports: the request's and ``base_url``'s."""
        return {request.headers.get("host", ""), urlsplit(self.base_url or "").netloc} - {""}


def same_site(request: Request, access: Access) -> bool:
    """A form posted from this site's own pages: the browser's ``Sec-Fetch-Site`` says
    so, or (an older browser) its ``Origin`` is this site."""
    fetched = request.headers.get("sec-fetch-site")
    if fetched is not None:
        return fetched in ("same-origin", "none")
    origin = request.headers.get("origin", "null")
    return origin != "null" and urlsplit(origin).netloc in access.hosts(request)


def refused(request: Request, *, wrong: bool = False,
            bounce: bool = False, back: str | None = None) -> Response:
    """The 401 page: the sign-in form, then ``back`` (else this address, less a token)."""
    if back is None:
        rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
        back = local(request.url.path + (f"?{urlencode(rest)}" if rest else ""))
    response = render(request, "token.html", 401, wrong=wrong, bounce=bounce, form=False,
                      next=back, sealed=True, days=request.app.state.access.max_age // 86400)
    response.headers["www-authenticate"] = 'Bearer realm="ancath"'
    return response


def too_many(request: Request) -> Response:
    return render(request, "error.html", 429, code=429, sealed=True,
                  message="too many wrong tokens just now: try again in a minute")


class TokenGate:
    """Every page behind ``access``'s token."""

    def __init__(self, app: ASGIApp, access: Access) -> None:
        self.app = app
        self.access = access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or self.access.open or path.startswith(_PUBLIC) \
                or path in _OPEN:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        given = request.query_params.get("token")
        scheme, _, bearer = request.headers.get("authorization", "").partition(" ")
        tried = given if given is not None else \
            bearer.strip() if scheme.lower() == "bearer" else None
        response: Response
        if tried is not None:
            if self.access.busy:
                response = too_many(request)
            elif not self.access.right(tried):
                await self.access.wrong()
                response = refused(request, wrong=True)
            elif given is None:   # the bearer
                await self.app(scope, receive, send)
                return
            else:
                rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
                # one leading slash: "//host/" would send the browser to another site
                back = "/" + request.url.path.lstrip("/") + (f"?{urlencode(rest)}" if rest
                                                             else "")
                response = RedirectResponse(back, status_code=303)
                self.access.sign_in(response, request)
        elif self.access.signed_in(request):
            scope[SIGNED_IN] = True
            await self.app(scope, receive, send)
            return
        else:
            crossed = request.headers.get("sec-fetch-site") in ("cross-site", "same-site") \
                and request.headers.get("sec-fetch-mode") == "navigate" \
                and request.method == "GET"
            response = refused(request, bounce=crossed)
        await response(scope, receive, send)


class Headers:
    """The security headers on every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in _HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, with_headers)
