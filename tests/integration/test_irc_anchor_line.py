"""A fight's end with the longest names, nicks and ransom, through ngircd: it comes as
one line ending with its whole ledger anchor, so ``audit verify --anchors`` finds the
anchor in the channel's log (it once came as two lines, ``... ledger`` and ``#39
4305b5ca``, and the log held no anchor)."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path

from ircbot import BOT_NICK, bot_on, from_bot, player
from ircserver import NgircdServer

WINNER, LOSER = "Aelfricthewanderingbardo", "Gorbagsonofgrishnakhthef"   # 24 letters
OLAF, GOB = "olaf" + "x" * 26, "gob" + "y" * 27                        # 30-letter nicks
RANSOM = ("ten fat goats, a barrel of ale and the silver-hilted sword of his grandfather.."
          )[:80]
ANCHOR = re.compile(r"ledger #(\d+) ([0-9a-f]{16})$")


def test_the_longest_closing_line_is_one_line_with_its_whole_anchor(
        ngircd: NgircdServer, tmp_path: Path) -> None:
    ngircd.max_penalty_time = 0
    ngircd.stop()
    ngircd.start()
    log: list[str] = []

    async def scenario() -> str:
        async with bot_on(ngircd, tmp_path) as run:
            gob, olaf = await player(ngircd, GOB), await player(ngircd, OLAF)
            await gob.say("#arena", f"!create {LOSER} goblin club spear")
            await from_bot(gob, f"created {LOSER}")
            await olaf.say("#arena", f"!create {WINNER} free-clans broadsword shield")
            await from_bot(olaf, f"created {WINNER}")
            await olaf.say("#arena", f"!challenge {LOSER} mortal")
            await from_bot(gob, "challenges you")
            run.dice.push(50, 40)            # the winner-to-be has the initiative
            await gob.say("#arena", "!accept")
            await from_bot(olaf, "!first | !second")
            await olaf.say("#arena", "!first")
            await from_bot(olaf, "to act:")
            run.dice.push(20)                # a hit
            await olaf.say("#arena", "!attack")
            await from_bot(gob, "defend:")
            run.dice.push(80, 70)            # the parry fails; damage 70: no effect
            await gob.say("#arena", "!parry")
            await from_bot(gob, "to act:")
            await gob.say("#arena", "!yield")
            await from_bot(olaf, "answer the yield")
            await olaf.say("#arena", f"!accept prisoner ransom {RANSOM}")
            closing = await from_bot(olaf, "prisoner")
            await olaf.say("#arena", "!status")   # one more line after the end
            await from_bot(olaf, "there is no fight")
            log.extend(f"<{line.nick}> {line.text}" for line in olaf.lines
                       if line.command == "PRIVMSG")
            return closing.text
    closing = asyncio.run(scenario())

    assert ANCHOR.search(closing), closing
    assert len(closing.encode()) <= 510 - len(f":{BOT_NICK}!~x@127.0.0.1 PRIVMSG #arena :")
    said = [line for line in log if line.startswith(f"<{BOT_NICK}>")]
    assert not any(re.match(rf"<{BOT_NICK}> #\d+ [0-9a-f]", line) for line in said), said
    channel_log = tmp_path / "channel.log"
    channel_log.write_text("\n".join(log) + "\n", encoding="utf-8")
    verified = subprocess.run(
        [sys.executable, "-m", "bot.cli", "audit", "verify", "--db",
         str(tmp_path / "bot.sqlite3"), "--anchors", str(channel_log)],
        capture_output=True, text=True, timeout=120)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    anchor = ANCHOR.search(closing)
    assert anchor is not None
    assert f"anchor ledger #{anchor[1]} {anchor[2]}: holds" in verified.stdout, verified.stdout
