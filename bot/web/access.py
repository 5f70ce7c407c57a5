"""Who may read the pages, and what a browser may do with them.

:class:`TokenGate`: with an access token configured, every page (not the style sheet)
wants it: once as ``?token=...``, which sets an HttpOnly, SameSite=Lax cookie and
redirects to the same address without it (so it stays out of the address bar, the
history and the logs), or in every request as ``Authorization: Bearer ...``. Anything
else gets a 401 page that says how to pass it. Tokens are compared with
``hmac.compare_digest``; the cookie holds a MAC of the token, never the token. Lax,
not Strict: a link to a page from another site (a web IRC client, a forum) is opened
with the cookie; the pages change nothing, so a cross-site request has nothing to forge.

:class:`Headers`: every response says no script, no framing, no referrer, no caching,
and no content sniffing.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import urlencode

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bot.web.site import render

__all__ = ["COOKIE", "Headers", "TokenGate"]

COOKIE = "ancath_web"
_PUBLIC = ("/static/",)
_HEADERS = {
    "content-security-policy": "default-src 'none'; style-src 'self'; img-src 'self'; "
                               "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}


def _same(given: str, wanted: bytes) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), wanted)


class TokenGate:
    """Every page behind ``token`` (None or empty: open to all)."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token.encode() if token else None
        self.cookie = hmac.new(self.token, b"ancath-web cookie", hashlib.sha256).hexdigest() \
            if self.token else ""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.token is None or \
                str(scope["path"]).startswith(_PUBLIC):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        given = request.query_params.get("token")
        response: Response
        if given is not None and _same(given, self.token):
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
            # one leading slash: "//host/" would send the browser to another site
            back = "/" + request.url.path.lstrip("/") + (f"?{urlencode(rest)}" if rest else "")
            response = RedirectResponse(back, status_code=303)
            response.set_cookie(COOKIE, self.cookie, httponly=True, samesite="lax",
                                secure=request.url.scheme == "https")
        elif given is None and self._carries(request):
            await self.app(scope, receive, send)
            return
        else:
            response = render(request, "token.html", 401, wrong=given is not None,
                              sealed=True)
            response.headers["www-authenticate"] = 'Bearer realm="ancath"'
        await response(scope, receive, send)

    def _carries(self, request: Request) -> bool:
        """The request carries the token as a bearer, or the cookie it set."""
        assert self.token is not None
        scheme, _, bearer = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and _same(bearer.strip(), self.token):
            return True
        return _same(request.cookies.get(COOKIE, ""), self.cookie.encode())


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
