"""The README's install, as a newcomer runs it: a fresh virtual environment made by
Debian's own ``python3`` (externally managed, PEP 668), ``pip install .`` from a copy of
the source, then the bot on SQLite, a PostgreSQL URL refused in one line naming the
``postgres`` extra, and the same URL working once ``.[postgres]`` is installed.

It needs the package index (pip fetches the dependencies), so it runs under ``CI=true``
or with ``ANCATH_TEST_FRESH_INSTALL=1``, and skips otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WANTED = os.environ.get("CI", "").lower() == "true" or bool(
    os.environ.get("ANCATH_TEST_FRESH_INSTALL"))
pytestmark = pytest.mark.skipif(not WANTED, reason="needs the package index: runs in CI, "
                                "or with ANCATH_TEST_FRESH_INSTALL=1")


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None,
        stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, input=stdin,
                          env={**os.environ, **(env or {})} if env else None)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the source with ``.venv`` made by Debian's python3 and ``pip install .``
    (once for both backends: the PostgreSQL case adds the extra after)."""
    python = shutil.which("python3", path="/usr/bin") or sys.executable
    source = tmp_path_factory.mktemp("fresh") / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "build", "*.egg-info", "__pycache__", ".hypothesis", "*.sqlite3*",
        ".mypy_cache", ".ruff_cache"))
    made = run(python, "-m", "venv", ".venv", cwd=source)
    assert made.returncode == 0, made.stderr
    installed = run(source / ".venv/bin/pip", "install", "--quiet", ".", cwd=source)
    assert installed.returncode == 0, installed.stderr
    return source


def test_a_plain_install_in_a_fresh_venv_runs_on_sqlite_then_postgresql(
    fresh: Path, database_url: str,
) -> None:
    source = fresh
    pip, bot = source / ".venv/bin/pip", source / ".venv/bin/ancath-bot"
    assert run(bot, "--version", cwd=source).stdout.startswith("ancath-bot ")

    if database_url.startswith("sqlite"):   # the README's first command, fed a duel
        played = run(bot, "console", "--db", database_url, cwd=source,
                     stdin="gob !create Gorbag goblin club spear\n")
        assert played.returncode == 0, played.stderr
        assert "gob: created Gorbag" in played.stdout, played.stdout
        return
    key = {"ANCATH_LEDGER_KEY": os.environ["ANCATH_LEDGER_KEY"]}
    missing = run(bot, "warrior", "show", "Nobody", "--json", "--db", database_url,
                  cwd=source, env=key)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert "ancath-bot[postgres]" in missing.stderr, missing.stderr
    extra = run(pip, "install", "--quiet", ".[postgres]", cwd=source)
    assert extra.returncode == 0, extra.stderr
    shown = run(bot, "warrior", "show", "Nobody", "--json", "--db", database_url,
                cwd=source, env=key)
    assert (shown.returncode, shown.stderr) == (2, "ancath-bot: no warrior named Nobody\n")
