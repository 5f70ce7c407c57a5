"""Smoke test: the CLI stub imports and answers --help."""

import pytest

from bot import cli


def test_help_exits_zero() -> None:
    with pytest.raises(SystemExit) as excinfo:
        cli.main(["--help"])
    assert excinfo.value.code == 0
