"""What every page shares: the store it reads, the templates, the ledger's proof, and
how a page is rendered (Jinja2 with autoescape on everything, so whatever people typed
is escaped; every page with what the proof says, ``base.html``'s
``id="integrity-status"``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from bot.web.integrity_check import IntegrityCheck
from bot.web.proving import LedgerProof
from bot.web.redact import hide_hosts, who
from storage.store import Store

__all__ = ["Site", "render", "site_of", "templates", "url"]


def url(path: str, params: dict[str, Any] | None = None, **more: Any) -> str:
    """``path`` with the query of ``params`` and ``more`` that are set (a list: the
    parameter once per value)."""
    query = {k: v for k, v in {**(params or {}), **more}.items() if v not in (None, "")}
    return f"{path}?{urlencode(query, doseq=True)}" if query else path


def _tenths(value: int) -> str:
    return f"{value / 10:.1f}"


def _change(bp: float) -> str:
    """A ledger row's BP: ``+0.2``, ``-1.0``, or '' when it changed none."""
    return f"{bp:+.1f}" if bp else ""


def _when(at: str | None) -> str:
    """A stored time (UTC, ISO 8601) to the second: ``2026-03-01 20:15:07``."""
    return at[:19].replace("T", " ") if at else ""


def templates() -> Jinja2Templates:
    """The pages' templates, package data of ``bot.web``."""
    env = Environment(loader=PackageLoader("bot.web", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(tenths=_tenths, change=_change, when=_when, who=who,
                       hide_hosts=hide_hosts, path=lambda name: quote(name, safe=""))
    env.globals["url"] = url
    return Jinja2Templates(env=env)


@dataclass(frozen=True, slots=True)
class Site:
    """The application's own state (``app.state.site``)."""

    store: Store
    templates: Jinja2Templates
    integrity: IntegrityCheck
    proof: LedgerProof
    """The ledger proved, and what every page says of it."""


def site_of(request: Request) -> Site:
    site: Site = request.app.state.site
    return site


def render(request: Request, template: str, status: int = 200, **context: Any) -> Response:
    """``template`` rendered with ``context`` (the request is there as ``request``), and
    what every page says: the ledger's proof (``proved``: a ``proving.Status``) and the
    club's public keys (``club_keys``). ``sealed=True``: a page for a visitor without
    the token, which names no problem; ``signed_in``: the request carried the session
    cookie (the nav offers to sign out)."""
    site = site_of(request)
    context.setdefault("proved", site.proof.status())
    context.setdefault("club_keys", [key.text for key in site.proof.public_keys()])
    context.setdefault("sealed", False)
    context.setdefault("signed_in", bool(request.scope.get("ancath.signed_in")))
    return site.templates.TemplateResponse(request, template, context, status_code=status)
