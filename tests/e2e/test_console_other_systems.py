"""A Simple Contest fight piped through ``ancath-bot console --dice`` (the contract)."""

import re
import subprocess
import sys
from pathlib import Path

DUEL = """al !create Alain contest 15W sword^3 armour 2
bo !create Bors contest 12 axe^2
al !challenge Bors
bo !accept
al !strike
bo !strike
al !strike
bo !strike
"""


def test_a_simple_contest_through_the_console(tmp_path: Path) -> None:
    db = str(tmp_path / "club.sqlite3")
    result = subprocess.run(
        [sys.executable, "-m", "bot.cli", "console", "--db", db, "--dice", "5,19,3,9"],
        input=DUEL, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert all(line.startswith("#console ") for line in lines)
    assert re.fullmatch(r".* Alain wins a major victory, \+1 edge: Bors dying \(ratings 15/6\)\. "
                        r"Alain wins: the foe is dying\. ledger #3 [0-9a-f]{16}", lines[-1])
    verdict = subprocess.run([sys.executable, "-m", "bot.cli", "audit", "verify", "--db", db],
                             capture_output=True, text=True, timeout=60)
    assert verdict.returncode == 0
