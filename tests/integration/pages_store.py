"""The leadership pages over a club's file for the web tests: the file opened read-only
as ``ancath-bot web`` opens it (``read_only_store``), and a test client whose server
has made its first walk of the ledger (``proved_client``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from starlette.testclient import TestClient

from bot.systems.registry import SYSTEMS
from bot.web.app import make_app
from storage.db import open_read_only
from storage.keys import load_keyring
from storage.store import Store

__all__ = ["proved_client", "read_only_store"]


@contextmanager
def read_only_store(db: str) -> Iterator[Store]:
    """``db`` opened read-only and live, with its ledger key; disposed on leaving."""
    engine = open_read_only(db, live=True)
    try:
        yield Store(engine, systems=SYSTEMS.rules, keyring=load_keyring(db, create=False))
    finally:
        engine.dispose()


def proved_client(store: Store, **options: Any) -> TestClient:
    """A client of the pages over ``store`` (``make_app``'s ``options``), once the
    ledger's first walk, made as the app starts, is done."""
    app = make_app(store, **options)
    assert app.state.site.proof.wait(30)
    return TestClient(app)
