"""Merge-and-resplit of two adjacent classes: a refinement move beyond single tuples.

Single-tuple moves (:mod:`~kanon_graph.records.refine`) cannot turn two
classes of ``1.5k`` records into three of ``k``, nor re-cut two classes whose
boundary runs through the wrong attribute. :func:`resplit_pairs` takes pairs
of graph-adjacent classes holding ``2k`` records or more together (each
class with its :data:`PARTNERS` closest neighbour classes, least cost rise
first), re-clusters their tuples by the least-cost agglomeration of
:mod:`~kanon_graph.records.adjacent` over all pairs of those tuples, and keeps
the new parts (each of at least ``k`` records) when they cost less than the
two classes did. In a pass every class takes part in at most one accepted
move; passes repeat while one helps. The total cost never increases.
"""

from __future__ import annotations

import numpy as np

from .adjacent import _agglomerate
from .costs import _set_cost
from .mst import HAVE_NUMBA
from .resplit import _pairs, _split_parts

from .._jit import njit  # numba loads on a kernel's first call

__all__ = ["resplit_pairs"]

GAIN = 1e-9
"""A move must lower the total cost by more than this."""

MAX_UNION_PAIRS = 1200
"""Largest number of tuple pairs the agglomeration of one union considers
(Adult, sd, k = 10: 400 -> 0.0894, 1,200 -> 0.0864, 3,000 -> same)."""

PARTNERS = 4
"""Neighbour classes each class tries (Adult, sd, k = 5, before the median cuts:
1 -> 0.0545, 2 -> 0.0539, 4 -> 0.0536, 8 -> 0.0535; with them, mst Adult k = 5
2 -> 0.0522, 4 -> 0.0519, k = 10 0.0824 -> 0.0821, sd wide 0.2710 -> 0.2694, for
0-10% more CPU)."""


def _class_costs_py(order, start, codes, counts, tables):
    """Cost of every class ``order[start[c]:start[c + 1]]``."""
    n = start.shape[0] - 1
    out = np.zeros(n)
    for c in range(n):
        out[c] = _set_cost(order[start[c]:start[c + 1]], start[c + 1] - start[c], codes,
                           counts, tables)
    return out


def _union_costs_py(lo, hi, order, start, codes, counts, tables):
    """Cost of the union of classes ``lo[p]`` and ``hi[p]`` for every pair ``p``."""
    out = np.zeros(lo.shape[0])
    buf = np.empty(codes.shape[0], dtype=np.int64)
    for p in range(lo.shape[0]):
        n = 0
        for c in (lo[p], hi[p]):
            for i in range(start[c], start[c + 1]):
                buf[n] = order[i]
                n += 1
        out[p] = _set_cost(buf, n, codes, counts, tables)
    return out


_class_costs = njit(cache=True)(_class_costs_py) if HAVE_NUMBA else _class_costs_py
_union_costs = njit(cache=True)(_union_costs_py) if HAVE_NUMBA else _union_costs_py


def resplit_pairs(cost, labels, counts, eu, ev, k, *, max_passes=3, partners=PARTNERS):
    """Re-cut adjacent class pairs where that lowers the cost (module docstring).

    Parameters
    ----------
    cost : ClassCost
    labels : ndarray of int (u,)
        Class of every node; every class has at least ``k`` records.
    counts : ndarray of int (u,)
    eu, ev : ndarray of int
        Edges between nodes; classes joined by one are adjacent.
    k : int
    max_passes : int
    partners : int
        Each class tries its ``partners`` closest neighbour classes (least
        cost increase per record were the two merged).

    Returns
    -------
    labels : ndarray of int64 (u,)
        Classes numbered ``0..C-1``.
    moves : int
        Pairs re-cut.

    Examples
    --------
    >>> import numpy as np, kanon_graph as kg
    >>> from kanon_graph.records.costs import ClassCost
    >>> table = kg.datasets.paper_003_table()
    >>> data = kg.encode(table, kg.datasets.paper_003_schema())
    >>> from kanon_graph.records import RecordGraph
    >>> g = RecordGraph(data)
    >>> bad = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0, 1])       # two interleaved classes
    >>> c = ClassCost(data, g.codes)
    >>> eu, ev = np.arange(9), np.arange(1, 10)
    >>> good, moves = resplit_pairs(c, bad, g.counts, eu, ev, 3)
    >>> moves >= 1, bool(c.of_labels(good, g.counts) < c.of_labels(bad, g.counts))
    (True, True)
    """
    codes, tables = cost.codes, cost.tables
    labels = np.unique(labels, return_inverse=True)[1].reshape(-1).astype(np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    eu, ev = np.asarray(eu, dtype=np.int64), np.asarray(ev, dtype=np.int64)
    moves = 0
    tried = set()
    for _ in range(max_passes):
        n_classes = int(labels.max()) + 1
        order = np.argsort(labels, kind="stable")
        start = np.concatenate([[0], np.cumsum(np.bincount(labels, minlength=n_classes))])
        sizes = np.bincount(labels, weights=counts, minlength=n_classes)
        own = _class_costs(order, start, codes, counts, tables)
        a, b = labels[eu], labels[ev]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        keep = (lo != hi) & (sizes[lo] + sizes[hi] >= 2 * k)
        pairs = np.unique(lo[keep] * n_classes + hi[keep])
        lo, hi = pairs // n_classes, pairs % n_classes
        # each class tries its closest neighbour class only: least increase per record
        # if the two merged (they overlap most, so a different cut may fit both better)
        rise = (_union_costs(lo, hi, order, start, codes, counts, tables) - own[lo] - own[hi]) \
            / (sizes[lo] + sizes[hi])
        rank = np.argsort(rise, kind="stable")
        seen = np.zeros(n_classes, dtype=np.int64)
        chosen = np.zeros(len(rank), dtype=bool)
        for p in rank:
            if seen[lo[p]] < partners or seen[hi[p]] < partners:
                chosen[p] = True
            seen[lo[p]] += 1
            seen[hi[p]] += 1
        rank = rank[chosen[rank]]
        busy = np.zeros(n_classes, dtype=bool)
        done = 0
        for p in rank:
            x, y = int(lo[p]), int(hi[p])
            if busy[x] or busy[y]:
                continue
            union = np.concatenate([order[start[x]:start[x + 1]], order[start[y]:start[y + 1]]])
            m = len(union)
            if m < 2 or m * (m - 1) // 2 > MAX_UNION_PAIRS:
                continue
            key = np.sort(union).tobytes()
            if key in tried:
                continue
            tried.add(key)
            sub_codes, sub_counts = codes[union], counts[union]
            i, j = _pairs(m)
            local, _ = _agglomerate(np.arange(m, dtype=np.int64), i, j,
                                    np.zeros(m, dtype=np.bool_), int(k),
                                    np.zeros(m, dtype=np.int64), sub_codes, sub_counts, tables)
            n_parts, parts = _split_parts(local, np.arange(m, dtype=np.int64), sub_codes,
                                          sub_counts, tables)
            if n_parts < 2 or np.bincount(local, weights=sub_counts).min() < k:
                continue
            if parts < own[x] + own[y] - GAIN:
                top = int(labels.max()) + 1
                new = np.where(local == 0, x, np.where(local == 1, y, top + local - 2))
                labels[union] = new
                busy[x] = busy[y] = True
                done += 1
        moves += done
        labels = np.unique(labels, return_inverse=True)[1].reshape(-1).astype(np.int64)
        if not done:
            break
    return labels, moves
