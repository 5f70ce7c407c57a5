"""Signing in to the leadership pages: the form, the session cookie (HttpOnly,
SameSite=Strict, Secure behind TLS, an expiry its MAC covers), signing out, where a
sign-in may send the browser, and wrong tokens (401, one line, slowed down). Through
Starlette's test client, and once through the real server behind a TLS proxy on the
loopback (uvicorn trusts its ``X-Forwarded-Proto``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from club import Club
from club_history import played
from pages_store import read_only_store
from starlette.testclient import TestClient
from webserver import web_server

from bot.web.access import COOKIE, Access
from bot.web.app import make_app
from storage.store import Store

TOKEN = "s3cret"
SITE = {"origin": "http://testserver"}   # what a browser says of this site's own form


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Club:
    return played(tmp_path_factory.mktemp("sign-in"))


@pytest.fixture(scope="module")
def store(club: Club) -> Iterator[Store]:
    with read_only_store(club.db) as store:
        yield store


def client(store: Store, **access: object) -> TestClient:
    """The pages behind TOKEN; a wrong token answered at once unless told."""
    given = Access(TOKEN, **{"wrong_delay": 0.0, **access})  # type: ignore[arg-type]
    return TestClient(make_app(store, access=given), follow_redirects=False)


def sign_in(web: TestClient, token: str = TOKEN, next_: str = "/", **headers: str
            ) -> httpx.Response:
    return web.post("/sign-in", data={"token": token, "next": next_},
                    headers={**SITE, **headers})


def test_the_form_signs_in_back_to_the_page_asked_for_then_signs_out(store: Store) -> None:
    web = client(store)
    asked = web.get("/ledger?warrior=Olaf")
    assert asked.status_code == 401 and "Access token needed" in asked.text
    assert '<input type="hidden" name="next" value="/ledger?warrior=Olaf">' in asked.text
    assert 'action="/sign-in"' in asked.text and "Sign out" not in asked.text
    signed = sign_in(web, next_="/ledger?warrior=Olaf")
    assert signed.status_code == 303 and signed.headers["location"] == "/ledger?warrior=Olaf"
    cookie = signed.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Secure" not in cookie
    assert "Max-Age=2592000" in cookie and "Path=/" in cookie and TOKEN not in cookie
    page = web.get("/ledger?warrior=Olaf")
    assert page.status_code == 200 and 'action="/sign-out"' in page.text
    out = web.post("/sign-out", headers=SITE)
    assert out.status_code == 303 and out.headers["location"] == "/sign-in"
    assert f'{COOKIE}=""' in out.headers["set-cookie"] and "Max-Age=0" in out.headers["set-cookie"]
    assert web.get("/ledger").status_code == 401
    assert "<h1>Sign in</h1>" in web.get("/sign-in").text


def test_the_cookie_is_secure_behind_an_https_base_url_or_over_https(store: Store) -> None:
    for web in (client(store, base_url="https://ancath.club.example"),
                TestClient(make_app(store, access=Access(TOKEN)), base_url="https://testserver",
                           follow_redirects=False)):
        signed = sign_in(web, **{"origin": str(web.base_url).rstrip("/")})
        assert "Secure" in signed.headers["set-cookie"], signed.headers["set-cookie"]
        assert "Secure" in web.get(f"/?token={TOKEN}").headers["set-cookie"]
    # the base_url's host is this site too (a proxy that rewrites Host)
    proxied = client(store, base_url="https://ancath.club.example")
    assert sign_in(proxied, origin="https://ancath.club.example").status_code == 303
    # X-Forwarded-Proto from a client the server does not trust changes nothing
    plain = sign_in(client(store), **{"x-forwarded-proto": "https"})
    assert "Secure" not in plain.headers["set-cookie"]


def test_a_session_expires_at_the_server_too(store: Store) -> None:
    now = [1_000_000.0]
    web = client(store, clock=lambda: now[0], max_age=3600)
    cookie = sign_in(web).cookies[COOKIE]
    assert "Max-Age=3600" in sign_in(web).headers["set-cookie"]
    assert web.get("/").status_code == 200
    now[0] += 3601
    assert web.get("/").status_code == 401   # the browser kept it: the server refuses it
    expires, mac = cookie.split(".")
    web.cookies.set(COOKIE, f"{int(expires) + 86400}.{mac}")   # a later expiry forged
    assert web.get("/").status_code == 401
    web.cookies.set(COOKIE, "a" * 64)   # the old cookie (a MAC with no expiry)
    assert web.get("/").status_code == 401


def test_a_sign_in_goes_only_to_this_site(store: Store) -> None:
    web = client(store)
    for away in ("//evil.example/", "https://evil.example/", "/\\evil.example",
                 "/\tevil", "http:/x", "evil.example", "/sign-out", ""):
        assert sign_in(web, next_=away).headers["location"] == "/", away
    assert sign_in(web, next_="/fights/1?step=2#step").headers["location"] == \
        "/fights/1?step=2#step"


def test_another_sites_form_is_refused(store: Store) -> None:
    web = client(store)
    for headers in ({"origin": "https://evil.example"}, {"origin": "null"}, {},
                    {"sec-fetch-site": "cross-site", "origin": "http://testserver"},
                    {"sec-fetch-site": "same-site"}):
        for path in ("/sign-in", "/sign-out"):
            answer = web.post(path, data={"token": TOKEN}, headers=headers)
            assert answer.status_code == 403, (path, headers)
            assert "own form" in answer.text and "set-cookie" not in answer.headers
    fetched = web.post("/sign-in", data={"token": TOKEN},
                       headers={"sec-fetch-site": "same-origin", "origin": "null"})
    assert fetched.status_code == 303   # no-referrer pages post Origin: null; Chromium says so


def test_a_wrong_token_one_line_401_after_a_second(store: Store) -> None:
    web = client(store, wrong_delay=0.3)
    started = time.monotonic()
    wrong = sign_in(web, token="guess", next_="/fights")
    assert time.monotonic() - started >= 0.3
    assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
    assert wrong.text.count('class="problem"') == 1
    assert "That token is not the one this server was given." in wrong.text
    assert '<input type="hidden" name="next" value="/fights">' in wrong.text
    for asked in ({"url": "/?token=guess"}, {"url": "/", "headers": {"authorization": "Bearer x"}}):
        assert web.get(**asked).status_code == 401   # type: ignore[arg-type]
    assert web.get("/", headers={"authorization": f"Bearer {TOKEN}"}).status_code == 200
    bad = web.post("/sign-in", content=b"{}", headers={**SITE, "content-type": "application/json"})
    assert bad.status_code == 400 and "application/x-www-form-urlencoded" in bad.text
    long = web.post("/sign-in", data={"token": "x" * 5000}, headers=SITE)
    assert long.status_code == 400 and "too long" in long.text


def test_while_wrong_tokens_wait_no_token_is_checked(store: Store) -> None:
    web = client(store)
    access: Access = web.app.state.access  # type: ignore[attr-defined]
    access._waiting = 8   # eight guesses being answered
    for answer in (sign_in(web), web.get(f"/?token={TOKEN}")):
        assert answer.status_code == 429 and "too many wrong tokens" in answer.text
    access._waiting = 0
    assert sign_in(web).status_code == 303


def test_a_link_from_another_site_bounces_once_to_carry_the_strict_cookie(
        store: Store) -> None:
    web = client(store)
    crossed = {"sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate"}
    bounce = web.get("/fights/1", headers=crossed)
    assert bounce.status_code == 401 and '<meta http-equiv="refresh" content="0">' in bounce.text
    again = web.get("/fights/1", headers={**crossed, "sec-fetch-site": "same-origin"})
    assert again.status_code == 401 and "refresh" not in again.text   # no loop


def test_no_token_no_sign_in(store: Store) -> None:
    web = TestClient(make_app(store), follow_redirects=False)
    assert web.get("/sign-in").status_code == 404
    assert "Sign out" not in web.get("/").text


def test_behind_a_tls_proxy_on_the_loopback_the_cookie_is_secure(club: Club) -> None:
    with web_server(club.db, token=TOKEN) as server:
        proxied = httpx.get(f"{server.address}?token={TOKEN}",
                            headers={"x-forwarded-proto": "https"})
        direct = httpx.get(f"{server.address}?token={TOKEN}")
    assert proxied.status_code == direct.status_code == 303
    assert "Secure" in proxied.headers["set-cookie"]
    assert "Secure" not in direct.headers["set-cookie"]


def test_the_config_names_how_long_a_sign_in_lasts(tmp_path: Path) -> None:
    from bot.config import BotConfig, ConfigError, load_config
    assert BotConfig().web.session_days == 30
    path = tmp_path / "bot.yaml"
    path.write_text("web:\n  session_days: 0\n")
    with pytest.raises(ConfigError, match="session_days"):
        load_config(str(path))
