"""What every room reads of IRC (names folded by casemapping, text safe to send, the
TLS settings) sits at the bottom of ``bot/``, so the configuration, the unit's copies,
who is who and the router import nothing of the IRC transport above them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def imported(path: str) -> set[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return {node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module} | {
        alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
        for alias in node.names}


@pytest.mark.parametrize("path", ["bot/config.py", "bot/unit_copies.py", "bot/identity/identity.py",
                                  "bot/referee.py", "bot/casemap.py", "bot/safe_text.py",
                                  "bot/tls_settings.py", "bot/lost_records.py"])
def test_a_low_room_imports_nothing_of_the_irc_transport(path: str) -> None:
    assert not {name for name in imported(path)
                if name == "bot.irc" or name.startswith("bot.irc.")}
