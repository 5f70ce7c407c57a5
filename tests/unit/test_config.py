"""Configuration: the example file is valid, and errors name file, key and problem."""

from pathlib import Path

import pytest

from bot.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parents[2]


def test_example_config_is_valid() -> None:
    config = load_config(ROOT / "config.example.yaml")
    assert config.rolls == "auto" and config.irc is None
    assert "alice" in config.moderators


def test_defaults_without_a_file() -> None:
    config = load_config(None)
    assert config.database.startswith("sqlite") and config.turn_timeout_minutes == 10


@pytest.mark.parametrize(("text", "expected"), [
    ("rolls: sometimes\n", "rolls: Input should be 'auto' or 'manual'"),
    ("irc:\n  server: x\n  port: abc\n", "irc.port: Input should be a valid integer"),
    ("colour: red\n", "colour: Extra inputs are not permitted"),
    ("- a list\n", "the top level must be a mapping"),
    ("rolls: [\n", "not valid YAML"),
])
def test_errors_name_file_key_and_problem(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(path) in str(error.value) and expected in str(error.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.yaml")
