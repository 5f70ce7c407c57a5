"""The rooms of ``bot/`` (issue 33): each subfolder and each top-level module is a room,
and no import runs back up among them, a lazy or ``TYPE_CHECKING`` import included: the
rooms stand on floors, the transport over the router over the chat commands over the
fight flow over the command kit over who is who and the channels' fights over what a
message carries. Nor is an old name kept beside its new one."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[2] / "bot"


def _room(module: str) -> str | None:
    """``chat`` for ``bot.chat.odds``, ``referee`` for ``bot.referee.Referee``."""
    parts = module.split(".")
    if parts[0] != "bot" or len(parts) < 2:
        return None
    return parts[1] if (BOT / parts[1]).is_dir() or (BOT / f"{parts[1]}.py").is_file() else None


def _arrows() -> dict[str, set[str]]:
    """Room -> the other rooms its modules import, anywhere in them."""
    arrows: dict[str, set[str]] = {}
    for path in BOT.rglob("*.py"):
        here = path.relative_to(BOT).parts[0].removesuffix(".py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            for there in filter(None, map(_room, names)):
                if there != here:
                    arrows.setdefault(here, set()).add(there)
    return arrows


def _circle(arrows: dict[str, set[str]]) -> list[str] | None:
    """One circle of rooms, or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(room: str) -> list[str] | None:
        state[room] = 1
        path.append(room)
        for there in sorted(arrows.get(room, ())):
            if state.get(there) == 1:
                return [*path[path.index(there):], there]
            if there not in state and (found := visit(there)):
                return found
        state[room] = 2
        path.pop()
        return None

    return next((found for room in sorted(arrows)
                 if room not in state and (found := visit(room))), None)


def test_no_import_runs_back_up_between_the_rooms_of_bot() -> None:
    assert _circle(_arrows()) is None


def test_the_command_kit_names_no_room_of_commands() -> None:
    """The kit is what chat, fights, systems and the router build on: it stands below
    them all, and the services it names stand below it."""
    assert _arrows()["commands"].isdisjoint({"chat", "fights", "systems", "referee",
                                             "resuming", "irc", "app"})


@pytest.mark.parametrize("module, old", [
    ("bot.unit_copies", "Staged"), ("bot.channel_fights", "Tables"), ("bot.chat.mod", "MOD"),
])
def test_no_old_name_is_kept_beside_its_new_one(module: str, old: str) -> None:
    assert not hasattr(importlib.import_module(module), old)


@pytest.mark.parametrize("gone", ["irc/casemap.py", "irc/text.py", "chat/registry.py",
                                  "chat/messages.py", "fights/table.py", "odds/advice.py",
                                  "staged.py", "odds/desk.py", "irc/realm.py"])
def test_a_moved_module_leaves_no_alias_behind(gone: str) -> None:
    assert not (BOT / gone).exists()
