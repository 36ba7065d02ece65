"""Sparse neighbour structures over the graph's nodes, beside the MST.

* :func:`component_pairs` -- every pair of nodes inside each large component
  of a forest (the k-member-style split of a feasible MST component looks at
  all of them; components are small);
* :func:`block_edges` -- an index of near tuples: nodes that agree on every
  quasi-identifier but one (for each attribute in turn), and nodes that agree
  on every attribute at hierarchy level 1, then 2, are chained in code order.
  Their HDist is small, and the chain costs ``O(u d log u)`` to build.

Both return edge arrays ``(eu, ev)`` for :func:`~kanon_graph.records.adjacent.merge_adjacent`
and :func:`~kanon_graph.records.refine.refine_classes`.
"""

from __future__ import annotations

import numpy as np

from .._jit import HAVE_NUMBA, njit  # numba loads on a kernel's first call

__all__ = ["block_edges", "component_pairs"]

MAX_COMPONENT_PAIRS = 5000
"""Components with more node pairs than this contribute their chain of block edges only."""


def component_pairs(component, nodes_ok):
    """All node pairs inside each component flagged by ``nodes_ok`` (one flag per node).

    Components with more than :data:`MAX_COMPONENT_PAIRS` pairs are skipped.

    Examples
    --------
    >>> import numpy as np
    >>> component_pairs(np.array([0, 0, 1, 1, 1]), np.array([0, 0, 1, 1, 1], dtype=bool))
    (array([2, 2, 3]), array([3, 4, 4]))
    """
    order = np.argsort(component, kind="stable")
    bounds = np.flatnonzero(np.diff(component[order])) + 1
    us, vs = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    for chunk in np.split(order, bounds):
        m = len(chunk)
        if m < 2 or not nodes_ok[chunk[0]] or m * (m - 1) // 2 > MAX_COMPONENT_PAIRS:
            continue
        i, j = np.triu_indices(m, 1)
        us.append(chunk[i])
        vs.append(chunk[j])
    return np.concatenate(us).astype(np.int64), np.concatenate(vs).astype(np.int64)


def block_edges(data, codes, *, window=2, free=2):
    """Chains of near tuples (see the module docstring), as edge arrays over nodes.

    Parameters
    ----------
    data : EncodedTable
    codes : ndarray (u, d)
        Node code tuples.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> from kanon_graph.records import RecordGraph
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> g = RecordGraph(data)
    >>> eu, ev = block_edges(data, g.codes)
    >>> sorted(zip((eu + 1).tolist(), (ev + 1).tolist()))[:3]      # records 1-based
    [(1, 2), (1, 3), (2, 3)]
    """
    u, d = codes.shape
    if u < 2 or d == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    from itertools import combinations

    # every key is one integer: the codes it groups by, densely renumbered
    dense = [_dense(codes[:, a]) for a in range(d)]
    leaf_order = _lexicographic(dense)
    rank = np.empty(u, dtype=np.int64)
    rank[leaf_order] = np.arange(u)
    groupings = []
    for r in range(1, min(free, d - 1) + 1):
        groupings += [[dense[b] for b in range(d) if b not in out]
                      for out in combinations(range(d), r)]
    for level in (1, 2):
        cols = []
        for a, attr in enumerate(data.attributes):
            h = attr.hierarchy
            col = h.level_map[min(level, h.height)][codes[:, a]] if h is not None else codes[:, a]
            cols.append(_dense(col))
        groupings.append(cols)
    us, vs = [], []
    for cols in groupings:
        key, span = _mixed_radix(cols)
        # the nodes by (key, rank): one sort of key * u + rank when it fits in an int64,
        # else a stable sort of the keys in rank order (both far faster than a lexsort)
        if span * u < 2 ** 62:
            packed = np.sort(key * u + rank)
            order, key = leaf_order[packed % u], packed // u
        else:
            order = leaf_order[np.argsort(key[leaf_order], kind="stable")]
            key = key[order]
        for step in range(1, window + 1):
            same = key[step:] == key[:-step]
            us.append(order[:-step][same])
            vs.append(order[step:][same])
    return _sorted_pairs(np.concatenate(us), np.concatenate(vs), u)


def _sorted_pairs(eu, ev, u):
    """The distinct pairs ``(min, max)`` of the edges, sorted: what sorting the pairs as one
    int64 ``min * u + max`` and dropping repeats gives, by a counting sort on ``min`` and
    a sort of each node's few partners (a million-tuple table's ~40 million chained pairs
    were a sort of them all)."""
    eu, ev = np.asarray(eu, dtype=np.int64), np.asarray(ev, dtype=np.int64)
    if _pairs_kernel is None or len(eu) < 4096:
        pairs = np.minimum(eu, ev) * u + np.maximum(eu, ev)
        pairs.sort()                             # sorting then dropping repeats beats unique()
        if len(pairs):
            pairs = pairs[np.concatenate([[True], pairs[1:] != pairs[:-1]])]
        return (pairs // u).astype(np.int64), (pairs % u).astype(np.int64)
    return _pairs_kernel(eu, ev, int(u))


SHORT_RUN = 32
"""A node's partners up to this many are sorted in place by insertion (no array made per
node: 20,000 np.sort calls were half of the kernel's 6.4 ms on patients), more by np.sort."""


def _pairs_py(eu, ev, u):
    start = np.zeros(u + 1, dtype=np.int64)
    for e in range(eu.shape[0]):
        start[min(eu[e], ev[e]) + 1] += 1
    for a in range(u):
        start[a + 1] += start[a]
    fill = start[:-1].copy()
    high = np.empty(eu.shape[0], dtype=np.int64)
    for e in range(eu.shape[0]):
        a = min(eu[e], ev[e])
        high[fill[a]] = max(eu[e], ev[e])
        fill[a] += 1
    out_u = np.empty(eu.shape[0], dtype=np.int64)
    n = 0
    for a in range(u):
        lo, hi = start[a], start[a + 1]
        if hi - lo > SHORT_RUN:
            high[lo:hi] = np.sort(high[lo:hi])
        for i in range(lo + 1, hi if hi - lo <= SHORT_RUN else lo):    # insertion sort in place
            v = high[i]
            j = i - 1
            while j >= lo and high[j] > v:
                high[j + 1] = high[j]
                j -= 1
            high[j + 1] = v
        for j in range(lo, hi):
            if j == lo or high[j] != high[j - 1]:
                out_u[n] = a
                high[n] = high[j]            # n <= j: nothing unread is overwritten
                n += 1
    return out_u[:n].copy(), high[:n].copy()


def _dense(col):
    """Non-negative integer codes renumbered 0, 1, ... in value order (``np.unique``'s inverse)."""
    col = np.asarray(col, dtype=np.int64)
    if not len(col):
        return col
    if col.min() < 0 or col.max() > 4 * len(col) + 4096:     # sparse: sort them
        return _dense_any(col)
    present = np.zeros(int(col.max()) + 1, dtype=np.int64)
    present[col] = 1
    return (np.cumsum(present) - 1)[col]


def _mixed_radix(cols):
    """One int64 key per row ordering the rows as the columns do; ``(key, keys possible)``."""
    key = np.zeros(len(cols[0]) if cols else 0, dtype=np.int64)
    span = 1
    for col in cols:
        width = int(col.max()) + 1 if len(col) else 1
        if span * width >= 2 ** 62:                  # renumber before it could overflow
            key = _dense_any(key)
            span = int(key.max()) + 1
        key = key * width + col
        span *= width
    return key, span


_pairs_kernel = None
if HAVE_NUMBA:      # small calls run as Python: a first run need not compile it
    _pairs_kernel = njit(cache=True, work=lambda eu, ev, u: 3 * len(eu) + u)(_pairs_py)


def _dense_any(key):
    return np.unique(key, return_inverse=True)[1].reshape(-1).astype(np.int64)


def _lexicographic(cols):
    """The rows in lexicographic order of ``cols`` (ties by row: ``np.lexsort``'s order)."""
    key, _ = _mixed_radix(cols)
    return np.argsort(key, kind="stable")
