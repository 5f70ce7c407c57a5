"""The ``log:`` section: every level in text and in JSON lines, to a file."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import ConfigError, LogConfig
from bot.logs import setup_logging

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


@pytest.fixture(autouse=True)
def _restore_root() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        handler.close()
    root.handlers[:], root.level = handlers, level


def emit_each_level() -> None:
    log = logging.getLogger("ancath.test")
    for level in LEVELS:
        log.log(getattr(logging, level), "a %s line", level.lower())


@pytest.mark.parametrize("level", LEVELS)
def test_text_lines_at_and_above_the_level(tmp_path: Path, level: str) -> None:
    path = tmp_path / "bot.log"
    setup_logging(LogConfig(level=level, format="text", file=str(path)))  # type: ignore[arg-type]
    emit_each_level()
    lines = path.read_text(encoding="utf-8").splitlines()
    expected = LEVELS[LEVELS.index(level):]
    assert [line.split()[2] for line in lines] == list(expected)
    assert all(f"ancath.test: a {lv.lower()} line" in line for lv, line in zip(expected, lines,
                                                                                strict=True))


@pytest.mark.parametrize("level", LEVELS)
def test_json_lines_at_and_above_the_level(tmp_path: Path, level: str) -> None:
    path = tmp_path / "bot.log"
    setup_logging(LogConfig(level=level, format="json", file=str(path)))  # type: ignore[arg-type]
    emit_each_level()
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("ancath.test").exception("it failed")
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    expected = LEVELS[LEVELS.index(level):]
    assert [e["level"] for e in entries] == [*expected, "ERROR"]
    assert {tuple(e)[:4] for e in entries} == {("time", "level", "logger", "message")}
    assert entries[0]["logger"] == "ancath.test"
    assert entries[0]["message"] == f"a {expected[0].lower()} line"
    assert "ValueError: boom" in entries[-1]["exception"]


def test_a_log_file_that_cannot_be_opened(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"log\.file: cannot open"):
        setup_logging(LogConfig(file=str(tmp_path / "missing" / "bot.log")))
