"""Keep the host-flood benchmark working: a small flood, no timing asserted."""

import functools
import logging

import pytest
from benches import load_bench
from ircserver import NgircdServer

FIGURES = [
    "host_flood.bystander_same_host_ms_p50",
    "host_flood.bystander_same_host_ms_max",
    "host_flood.bystander_other_host_ms_p50",
    "host_flood.bystander_other_host_ms_max",
    "host_flood.bystander_lost",
    "host_flood.fight_ms_max",
    "host_flood.queue_max",
    "host_flood.lines_to_flooders",
    "host_flood.lines_dropped",
]


def test_irc_host_flood_bench_runs(ngircd: NgircdServer, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch,
                                   request: pytest.FixtureRequest) -> None:
    module = load_bench("irc_host_flood", monkeypatch)
    ancath = logging.getLogger("ancath")  # the bench quiets it: given back after
    request.addfinalizer(functools.partial(ancath.setLevel, ancath.level))
    assert module.main(["--identities", "3", "--odds", "60", "--ctcp", "30", "--seconds", "1",
                        "--every", "1", "--after", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == FIGURES
    figures = {name: float(value) for name, value in (line.split() for line in lines)}
    assert figures["host_flood.bystander_lost"] == 0
    assert figures["host_flood.bystander_same_host_ms_max"] > 0
    assert figures["host_flood.bystander_other_host_ms_max"] > 0
