"""One process of ``bench/group_commit.py``'s two-process phases (started by it):

    python bench/group_commit_child.py NETWORK DATABASE_URL --first F --fights N
        --lines L --window MS --think S --sync-ms D --seed SEED

Builds its referee on NETWORK (signing with the key in the environment), prints
``ready``, reads the common start (epoch seconds) from stdin, plays its L lines in the
fights numbered from F, and prints its timings as JSON."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

from group_commit import NETWORKS, play, referee_on, slow_sync  # noqa: E402

from storage.keys import KEY_ENV  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("network", choices=NETWORKS)
    parser.add_argument("database")
    for name in ("--first", "--fights", "--lines", "--seed"):
        parser.add_argument(name, type=int, required=True)
    for name in ("--window", "--think", "--sync-ms"):
        parser.add_argument(name, type=float, required=True)
    args = parser.parse_args()
    slow_sync(args.sync_ms)
    referee = referee_on(args.database, args.network, os.environ[KEY_ENV])
    try:
        print("ready", flush=True)
        start = float(sys.stdin.readline())
        time.sleep(max(0.0, start - time.time()))
        played = asyncio.run(play(referee, args, args.window / 1000, args.think, args.first))
        ended = time.time()
    finally:
        referee.store.engine.dispose()
    print(json.dumps({"timings": played.timings, "commits": played.commits, "ended": ended}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
