"""``!odds`` on the console, through the real worker process: at end of input the
console waits for the answers still due, so a piped ``!odds`` prints its answer."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

WARRIORS = """\
gob !create Gorbag goblin club spear
olaf !create Olaf free-clans axe shield
"""


def test_a_piped_odds_prints_its_answer_and_the_limits_hold(tmp_path: Path) -> None:
    stdin = WARRIORS + ("ann !odds Olaf vs Gorbag duel\n"
                        "bob !odds Olaf vs Gorbag\n"
                        "#side ann !odds Gorbag vs Olaf\n")
    result = subprocess.run(
        [sys.executable, "-m", "bot.cli", "console", "--db", str(tmp_path / "club.sqlite3")],
        input=stdin, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    refusals = [
        "#console bob: the odds asked for here are still being worked out; "
        "ask again once they are out",
        "#side ann: one !odds per player every 30 s; ask again in 30 s",
    ]
    lines = result.stdout.splitlines()[2:]  # after the two warriors
    answers = [line for line in lines if line not in refusals]
    assert len(lines) == 3 and len(answers) == 1
    assert re.fullmatch(r"#console ann: Olaf vs Gorbag \(duel\): Olaf wins \d+\.\d% "
                        r"\(exact; policy: !help odds policy\)", answers[0])
