"""The chain's linear solve (:mod:`bot.odds.linear`): SciPy labels strongly connected
components children first, which keeps the system block triangular (its speed, not its
values, rests on that undocumented order, so a SciPy that changes it shows here)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy.sparse import csr_array

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from engine_fights import warriors

from bot.odds import linear
from bot.odds.advisor import best_defence, policy
from bot.odds.chain import Chain
from rules.ancath import start
from rules.ancath.state import Kind


def test_a_component_never_leads_to_a_later_one() -> None:
    cast = warriors()
    first, _ = start(Kind.PRACTICE, cast[0], cast[3])
    solver = Chain(0, first, policy, best_defence)
    node, payload = solver._node(first)
    solver._add(node, payload)
    solver._grow(float("inf"))
    steps = solver._steps
    frm = np.repeat([at for at, _, _ in steps], [len(ps) for _, ps, _ in steps])
    to = np.array([t for _, _, targets in steps for t in targets])
    size = len(solver.values)
    step = csr_array((np.ones(len(to)), (frm, to)), shape=(size, size))
    labels = linear.components(step)
    assert len(set(labels.tolist())) > 1000
    assert bool(np.all(labels[frm] >= labels[to]))
