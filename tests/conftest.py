"""Shared pytest configuration for the ancath-bot test suite.

``database_url`` gives a test an empty database on every backend the storage layer
supports: ``sqlite`` (a file in the test's ``tmp_path``) and ``postgresql`` (a freshly
created database on the server that ``ANCATH_TEST_PG_URL`` names, dropped afterwards).
Without that variable the PostgreSQL cases skip, except under ``CI=true``, where they
fail: CI must not pass by testing only one backend. A PostgreSQL database has no default
ledger key, so its cases get one in ``ANCATH_LEDGER_KEY`` (a SQLite file makes its own).

Under ``CI=true`` hypothesis runs derandomized, so a landing never hinges on a new
random draw; local runs keep exploring and save what they find in ``.hypothesis``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

PG_ENV = "ANCATH_TEST_PG_URL"
PG_LEDGER_KEY = "test-ledger-key-for-the-postgresql-cases-0123456789"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "postgresql: needs the PostgreSQL test server")


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() == "true"


settings.register_profile("ci", derandomize=True, print_blob=True)
if _in_ci():
    settings.load_profile("ci")


@pytest.fixture(scope="session")
def _pg_admin() -> Iterator[Any]:
    """An autocommit engine on the server's admin database (created once per run)."""
    url = os.environ.get(PG_ENV)
    if not url:
        message = f"{PG_ENV} is not set: no PostgreSQL server to test against"
        if _in_ci():
            pytest.fail(f"{message} (CI=true: .ci/run must start one)")
        pytest.skip(message)
    from sqlalchemy import create_engine

    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL of a new, empty database (no schema yet) on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ancath.sqlite3'}"
        return
    from sqlalchemy import make_url, text

    admin = request.getfixturevalue("_pg_admin")
    request.getfixturevalue("monkeypatch").setenv("ANCATH_LEDGER_KEY", PG_LEDGER_KEY)
    name = f"ancath_test_{uuid.uuid4().hex[:16]}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(os.environ[PG_ENV]).set(database=name).render_as_string(
            hide_password=False
        )
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
