"""The console half of the command-line contract: a whole duel piped through
``ancath-bot console`` with scripted dice, its exit statuses, then ``warrior show``.

    ancath-bot console [--config FILE] [--db URL_OR_PATH] [--dice N,N,...]

Each stdin line is ``<nick> <message>`` or ``<#channel> <nick> <message>``; each bot
message is printed as ``<target> <text>``. Scripted dice that run out or do not fit
their die end the run with status 3 and a message naming the roll; dice left over at
the end of input give status 4. A fight's closing line ends with its ledger anchor,
``ledger #<row> <mac>``; the MAC is the database's own, so ``masked`` says ``<mac>``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

DUEL = """\
gob !create Gorbag goblin club spear
olaf !create Olaf free-clans broadsword shield
olaf !challenge Gorbag
gob !accept
olaf !first
olaf !attack
gob !dodge
"""
DUEL_DICE = "50,40,20,80,5"
"""Initiative Olaf 50, Gorbag 40; Olaf's attack 20 hits (25); Gorbag's dodge 80 fails
(30); damage 5 on leather kills."""

LINE = re.compile(r"(?P<target>[#&]\S+|[^\s#&]\S*) (?P<text>\S.*)")
MAC = re.compile(r"(ledger #\d+) [0-9a-f]{16}\b")


def masked(output: str) -> list[str]:
    """The output's lines, a ledger anchor's MAC as ``<mac>``."""
    return [MAC.sub(r"\1 <mac>", line) for line in output.splitlines()]


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def console(db: Path, dice: str | None, stdin: str, *more: str) -> subprocess.CompletedProcess[str]:
    args = ["console", "--db", str(db), *more]
    if dice is not None:
        args += ["--dice", dice]
    return cli(*args, stdin=stdin)


def show(db: Path, name: str) -> dict[str, object]:
    result = cli("warrior", "show", name, "--db", str(db), "--json")
    assert result.returncode == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout)
    return data


TRANSCRIPT = [
    ["#console gob: created Gorbag (goblin, leather, gob): club 30, move 30, spear 30; "
     "BP 0.0 (0 to spend); test 40; free"],
    ["#console olaf: created Olaf (free-clans, highlander, olaf): broadsword 30, move 30, "
     "shield 30; BP 0.0 (0 to spend); test 40; free"],
    ["#console Gorbag, Olaf challenges you to a practice fight: gob may !accept or !decline."],
    ["#console Practice fight: Olaf (olaf) vs Gorbag (gob). Olaf: broadsword and shield "
     "(dodge 30, block 30, parry 25). Gorbag: spear (dodge 30, parry 25). Olaf rolls 50 for "
     "initiative. Gorbag rolls 40 for initiative. Olaf (olaf) chooses: !first | !second"],
    ["#console Olaf acts first. Olaf (olaf) to act: !attack 25 | !press 50 | !test 40 | "
     "!close 30 | !flee | !yield"],
    ["#console Olaf attacks [20 vs 25: hit]. Gorbag (gob), defend: !dodge 30 | !parry 25 | "
     "!luck 5"],
    ["#console Gorbag dodges [80 vs 30: fails]. Olaf's damage 5: kill. Olaf wins by a kill. "
     "BP: Olaf +0.2, Gorbag +0.1. ledger #5 <mac>"],
]
"""What each line of ``DUEL`` is answered with: one line per command."""


def test_a_practice_duel_through_the_console(tmp_path: Path) -> None:
    db = tmp_path / "club.sqlite3"
    result = console(db, DUEL_DICE, DUEL + "#side ann !sheet Olaf\n")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    lines = masked(result.stdout)
    parsed = [LINE.fullmatch(line) for line in lines]
    assert all(parsed), lines
    assert lines[:-1] == [line for answer in TRANSCRIPT for line in answer]
    assert lines[-1].startswith("#side ann: Olaf (free-clans, highlander, olaf)")
    assert "BP 0.2" in lines[-1]

    assert show(db, "olaf") == {
        "name": "Olaf", "owner": "olaf", "culture": "free-clans", "armour": "highlander",
        "skills": {"broadsword": 30, "move": 30, "shield": 30}, "bp": 0.2, "bp_spent": 0,
        "test": 40, "status": "free", "captor": None,
    }
    gorbag = show(db, "Gorbag")
    assert (gorbag["bp"], gorbag["status"], gorbag["owner"]) == (0.1, "free", "gob")
    verified = cli("audit", "verify", "--db", str(db))
    assert verified.returncode == 0, verified.stdout
    log = tmp_path / "console.log"        # the channel's log: its closing line anchors
    log.write_text(result.stdout, encoding="utf-8")
    anchored = cli("audit", "verify", "--db", str(db), "--anchors", str(log))
    assert anchored.returncode == 0, anchored.stdout
    assert "anchor ledger #5 " in anchored.stdout and "holds" in anchored.stdout


def test_the_duel_can_be_fed_in_two_runs(tmp_path: Path) -> None:
    """The database carries warriors (and the open fight) from one run to the next."""
    db = tmp_path / "club.sqlite3"
    first, rest = DUEL.splitlines(keepends=True)[:5], DUEL.splitlines(keepends=True)[5:]
    assert console(db, "50,40", "".join(first)).returncode == 0
    result = console(db, "20,80,5", "".join(rest))
    assert result.returncode == 0, result.stderr
    assert masked(result.stdout)[-1].endswith("BP: Olaf +0.2, Gorbag +0.1. ledger #5 <mac>")
    assert show(db, "Olaf")["bp"] == 0.2


def test_a_moderator_from_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("moderators: [boss]\n", encoding="utf-8")
    db = tmp_path / "club.sqlite3"
    stdin = ("gob !create Gorbag goblin club spear\n"
             "gob !mod bp Gorbag +1.0 self-promotion\n"
             "boss !mod bp Gorbag +1.5 tournament prize\n")
    result = console(db, None, stdin, "--config", str(config))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:] == [
        "#console gob: only moderators use !mod (by services account or host mask; without "
        "services: /msg <bot> !mod login <password>)",
        "#console boss: Gorbag: +1.5 BP recorded",
    ]
    assert show(db, "Gorbag")["bp"] == 1.5
    assert show(db, "Gorbag")["test"] == 43


def test_running_out_of_dice_exits_3_naming_the_roll(tmp_path: Path) -> None:
    result = console(tmp_path / "club.sqlite3", "50,40,20,80", DUEL)
    assert result.returncode == 3
    assert "roll 5 (d100)" in result.stderr and "ran out" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.splitlines()[-1] == TRANSCRIPT[5][0]


def test_no_dice_at_all_exits_3_at_the_first_roll(tmp_path: Path) -> None:
    result = console(tmp_path / "club.sqlite3", "", "ann !roll 2d6\n")
    assert result.returncode == 3
    assert "roll 1 (d6)" in result.stderr


def test_dice_left_over_exit_4(tmp_path: Path) -> None:
    db = tmp_path / "club.sqlite3"
    result = console(db, DUEL_DICE + ",7,7", DUEL)
    assert result.returncode == 4
    assert "2 scripted dice left over" in result.stderr
    assert masked(result.stdout)[-1].endswith("BP: Olaf +0.2, Gorbag +0.1. ledger #5 <mac>")
    assert show(db, "Olaf")["bp"] == 0.2  # what was played still counts


@pytest.mark.parametrize(("dice", "roll"), [
    ("50,101", "roll 2: 101 is not a face of a d100"),
    ("0", "roll 1: 0 is not a face of a d100"),
    ("50,40,-3", "roll 3: -3 is not a face of a d100"),
])
def test_a_die_out_of_range_exits_3_naming_the_roll(tmp_path: Path, dice: str, roll: str) -> None:
    result = console(tmp_path / "club.sqlite3", dice, DUEL)
    assert result.returncode == 3
    assert roll in result.stderr
    assert "Traceback" not in result.stderr


def test_a_die_out_of_range_for_a_small_die(tmp_path: Path) -> None:
    result = console(tmp_path / "club.sqlite3", "7", "ann !roll d6\n")
    assert result.returncode == 3
    assert "roll 1: 7 is not a face of a d6" in result.stderr


def test_dice_that_are_not_numbers_are_a_usage_error(tmp_path: Path) -> None:
    result = console(tmp_path / "club.sqlite3", "50,x", DUEL)
    assert result.returncode == 2
    assert "--dice" in result.stderr and "Traceback" not in result.stderr


def test_blank_and_one_word_lines_are_ignored(tmp_path: Path) -> None:
    result = console(tmp_path / "club.sqlite3", None, "\n   \nann\n#side\nann hello there\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""


def test_an_overlong_nick_does_not_crash_the_console(tmp_path: Path) -> None:
    stdin = "n" * 65 + " !help\nann !sheet Nobody\n"
    result = console(tmp_path / "club.sqlite3", None, stdin)
    assert "Traceback" not in result.stderr
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1] == "#console ann: no warrior named Nobody"
