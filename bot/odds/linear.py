"""The chain's values as one sparse linear system, solved with SciPy.

Imported by the odds worker only (:mod:`bot.odds.worker` warms it): the bot and its
command line never pay for SciPy's import.
"""

from __future__ import annotations

from itertools import chain

import numpy as np
from scipy.sparse import csr_array, eye_array
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import splu

from bot.odds.nodes import UNSOLVED

__all__ = ["components", "solve"]


def solve(base: int, values: list[float],
          steps: list[tuple[int, list[float], list[int]]]) -> list[float]:
    """The values of the nodes from ``base`` on, given each grown node's ``steps`` (its
    id, chances, targets): ``v = P v + b``, where ``P`` holds the steps among them and
    ``b`` the steps to the nodes below ``base`` (solved) and the ends' own values.
    Injuries only grow, so the chain's cycles are short (a round of misses comes back to
    the same node). ``I - P`` is a nonsingular M-matrix (every fight can end), so a
    sparse LU factorisation without pivoting is stable in any symmetric order, and the
    values come out within a few 1e-15 of any other solve. The order is SciPy's strongly
    connected component labels, which come out children first (undocumented;
    ``tests/unit/test_odds_linear.py`` checks it): the system is then block triangular
    with small blocks and has no fill-in outside them (in another order it stays right
    but fills in: ``bench/README.md``)."""
    count = len(values) - base
    sizes = np.fromiter((len(ps) for _, ps, _ in steps), dtype=np.int64, count=len(steps))
    total = int(sizes.sum())
    frm = np.repeat(np.fromiter((at for at, _, _ in steps), dtype=np.int64,
                                count=len(steps)), sizes) - base
    to = np.fromiter(chain.from_iterable(t for _, _, t in steps), dtype=np.int64, count=total)
    chance = np.fromiter(chain.from_iterable(p for _, p, _ in steps), dtype=np.float64,
                         count=total)
    known = np.asarray(values, dtype=np.float64)
    old = to < base
    b = np.bincount(frm[old], weights=chance[old] * known[to[old]], minlength=count)
    fresh = known[base:]
    ends = fresh != UNSOLVED
    b[ends] = fresh[ends]
    new = ~old
    step = csr_array((chance[new], (frm[new], to[new] - base)), shape=(count, count))
    order = np.argsort(components(step), kind="stable")
    system = (eye_array(count, format="csr") - step)[order][:, order]
    factor = splu(system.tocsc(), permc_spec="NATURAL", diag_pivot_thresh=0.0)
    out = np.empty(count)
    out[order] = factor.solve(b[order])
    result: list[float] = out.tolist()
    return result


def components(step: csr_array) -> np.ndarray:
    """Each node's strongly connected component among the steps ``step`` (SciPy's
    labels: a component's label is never below that of one it leads to)."""
    _, labels = connected_components(step, directed=True, connection="strong")
    result: np.ndarray = labels
    return result
