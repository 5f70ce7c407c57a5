"""``/sign-in`` and ``/sign-out``: the token typed into a form, and the session ended.

``GET /sign-in`` is the form; ``POST /sign-in`` (``token``, and ``next``: where to go
after, an address on this site only, :func:`bot.web.access.local`) sets the session
cookie and goes there, or answers a wrong token with the form again (401, after a
second); ``POST /sign-out`` clears the cookie. Both posts must come from this site's own
pages (:func:`bot.web.access.same_site`): another site's form is refused (403).
"""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from bot.web.access import Access, local, refused, same_site, too_many
from bot.web.query import BadRequest, NotFound, PageError
from bot.web.site import render

__all__ = ["sign_in", "sign_out"]

_LONGEST_BODY = 4096


class Forbidden(PageError):
    status = 403


def _access(request: Request) -> Access:
    access: Access = request.app.state.access
    if access.open:
        raise NotFound("this server has no access token: every page is open")
    return access


def _checked(request: Request, access: Access) -> None:
    if not same_site(request, access):
        raise Forbidden("refused: sign in and out with this site's own form "
                        "(or open a page with ?token= in its address)")


async def _fields(request: Request) -> dict[str, str]:
    """The form's fields (the first of each), from a body of at most 4 KB."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise BadRequest("send the sign-in form as application/x-www-form-urlencoded")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > _LONGEST_BODY:
            raise BadRequest("the form is too long: a token of at most 200 characters")
    fields = parse_qs(body.decode("utf-8", "replace"), max_num_fields=8)
    return {name: values[0] for name, values in fields.items()}


async def sign_in(request: Request) -> Response:
    """The form (GET), or the token it sent checked (POST)."""
    access = _access(request)
    if request.method == "GET":
        signed_in = access.signed_in(request)
        return render(request, "token.html", 200, wrong=False, bounce=False, form=True,
                      next=local(request.query_params.get("next")), sealed=not signed_in,
                      signed_in=signed_in, days=access.max_age // 86400)
    _checked(request, access)
    fields = await _fields(request)
    back = local(fields.get("next"))
    if access.busy:
        return too_many(request)
    if not access.right(fields.get("token", "").strip()):
        await access.wrong()
        return refused(request, wrong=True, back=back)
    response = RedirectResponse(back, status_code=303)
    access.sign_in(response, request)
    return response


async def sign_out(request: Request) -> Response:
    """The session cookie cleared; then the sign-in form."""
    access = _access(request)
    _checked(request, access)
    response = RedirectResponse("/sign-in", status_code=303)
    access.sign_out(response, request)
    return response
