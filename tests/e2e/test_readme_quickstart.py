"""The README's first session works every time: its transcript, fed to ``ancath-bot
console`` with the dice the README names, says every line the README shows, in order
(the anchor's digits differ on every club)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readmes_duel_says_what_the_readme_shows(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    dice = re.search(r"ancath-bot console --dice ([\d,]+)`", readme)
    block = re.search(r"```text\n(gob !create.*?)```", readme, re.S)
    assert dice is not None and block is not None
    lines = block[1].splitlines()
    typed = [line for line in lines if not line.startswith("#console ")]
    shown = [line for line in lines if line.startswith("#console ")]
    done = subprocess.run([sys.executable, "-m", "bot.cli", "console", "--db",
                           str(tmp_path / "club.sqlite3"), "--dice", dice[1]],
                          input="\n".join(typed) + "\n", capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr

    def masked(line: str) -> str:
        return re.sub(r"(ledger #\d+) [0-9a-f]{16}$", r"\1 <hash>", line)
    said = [masked(line) for line in done.stdout.splitlines()]
    expected = iter(masked(line) for line in shown)
    want = next(expected)
    for line in said:
        if line == want:
            want = next(expected, None)
            if want is None:
                break
    assert want is None, f"the README shows {want!r}, the bot said:\n{done.stdout}"
