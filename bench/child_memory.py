"""A child process's own peak memory, and the import floor beside it (issue 34).

``ru_maxrss`` from ``wait4`` is no child's own figure on Linux: a child started by fork
(or vfork) and exec keeps the peak of the memory it left at exec, the parent's. So the
child runs under ``/usr/bin/time``, whose own small process is what its child inherits,
and the figure is that child's peak RSS (``%M``, KB). The import floor is a child under
the same wrapper that only imports the modules the measured child had loaded at its end.
The wrapper also gives the child's CPU time (user and system), steadier than wall time
on a shared machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
TIME = "/usr/bin/time"
RUN_MODULE = ("import atexit, runpy, sys\n"
              "out, sys.argv = sys.argv[1], sys.argv[2:]\n"
              "atexit.register(lambda: open(out, 'w').write('\\n'.join(sorted(sys.modules))))\n"
              "runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)\n")
IMPORTS = ("import importlib, sys\n"
           "for name in sys.stdin.read().split():\n"
           "    try:\n"
           "        importlib.import_module(name)\n"
           "    except Exception:\n"
           "        pass\n")


@dataclass(frozen=True)
class Usage:
    """A child's run: wall seconds, CPU seconds (user and system), own peak RSS in KB,
    its stdout."""

    seconds: float
    cpu: float
    peak: int
    out: bytes


def usage(argv: Sequence[str], stdin: bytes = b"") -> Usage:
    """Run ``argv`` in ROOT under ``/usr/bin/time``: its ``Usage``. Exits with its
    stderr when it fails."""
    with tempfile.NamedTemporaryFile(prefix="ancath-peak-", delete=False) as report:
        path = report.name
    try:
        started = time.perf_counter()
        done = subprocess.run([TIME, "-f", "%M %U %S", "-o", path, *argv], cwd=ROOT,
                              input=stdin, capture_output=True, check=False)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv[:6])} exited {done.returncode}: "
                             f"{done.stderr.decode(errors='replace')[-2000:]}")
        peak, user, system = Path(path).read_text().split()[-3:]
    finally:
        os.unlink(path)
    return Usage(seconds, float(user) + float(system), int(peak), done.stdout)


def own_peak(argv: Sequence[str], stdin: bytes = b"") -> tuple[float, int, bytes]:
    """``usage``'s wall seconds, own peak RSS in KB and stdout."""
    used = usage(argv, stdin)
    return used.seconds, used.peak, used.out


def module_usage(module: str, args: Sequence[str]) -> tuple[Usage, list[str]]:
    """``python -m module args`` under ``usage``, with the modules it had loaded."""
    with tempfile.NamedTemporaryFile(prefix="ancath-modules-", delete=False) as listed:
        path = listed.name
    try:
        used = usage([sys.executable, "-c", RUN_MODULE, path, module, *args])
        return used, Path(path).read_text().split()
    finally:
        os.unlink(path)


def import_floor_kb(modules: Sequence[str]) -> int:
    """The peak RSS in KB of a child that only imports ``modules``."""
    return own_peak([sys.executable, "-c", IMPORTS], "\n".join(modules).encode())[1]
