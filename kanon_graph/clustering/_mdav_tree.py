"""A k-d tree with deletions for MDAV's farthest and nearest records (compiled).

MDAV asks, per class it forms, for the record farthest from a point and the
``k - 1`` records nearest to a record, among the records not yet grouped.
A linear scan answers each in O(m d); this tree answers them by branch and
bound over boxes, and forgets a grouped record by shrinking the boxes on
its path to the root (each box is kept tight around the records still in
it, so the farthest search, which the outer records leave first, keeps
pruning).

The answers are exactly the linear scan's, ties included: a record's squared
distance is computed by the same expression
(:func:`kanon_graph.clustering._mdav_kernels._dist2`), candidates are ranked by
``(distance, row)`` (the farthest: largest distance, then lowest row; the
nearest: smallest distance, then lowest row), and a box is skipped only
when its bound is beyond the current answer by more than a relative
``1e-9`` (a bound is computed by other float operations than the distances
it bounds, so it may be off in the last bits).

Coordinates: the standardized numeric attributes and the ordinal ranks
divided by their number of categories (MDAV-generic's distance on both is
Euclidean in these coordinates). Tables with a nominal attribute use the
linear scan.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit
from ._mdav_dist import dist2, keep_nearest

__all__ = ["build", "farthest", "nearest", "remove"]

LEAF = 16
SLACK = 1e-9


@njit
def build(coords):
    """The tree: (order, start, end, left, right, parent, leaf_of, lo, hi, count)."""
    n, p = coords.shape
    cap = 2 * (n // LEAF + 1) * 2 + 1
    order = np.arange(n)
    start = np.zeros(cap, dtype=np.int64)
    end = np.zeros(cap, dtype=np.int64)
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    parent = np.full(cap, -1, dtype=np.int64)
    leaf_of = np.zeros(n, dtype=np.int64)
    lo = np.zeros((cap, p))
    hi = np.zeros((cap, p))
    count = np.zeros(cap, dtype=np.int64)
    stack = np.zeros(cap, dtype=np.int64)
    nodes = 1
    start[0], end[0] = 0, n
    top = 1
    stack[0] = 0
    while top:
        top -= 1
        node = stack[top]
        a, b = start[node], end[node]
        count[node] = b - a
        for j in range(p):
            lo[node, j] = np.inf
            hi[node, j] = -np.inf
        for t in range(a, b):
            for j in range(p):
                v = coords[order[t], j]
                lo[node, j] = min(lo[node, j], v)
                hi[node, j] = max(hi[node, j], v)
        if b - a <= LEAF:
            for t in range(a, b):
                leaf_of[order[t]] = node
            continue
        dim, width = 0, -1.0
        for j in range(p):
            if hi[node, j] - lo[node, j] > width:
                dim, width = j, hi[node, j] - lo[node, j]
        part = order[a:b]
        keys = np.empty(b - a)
        for t in range(b - a):
            keys[t] = coords[part[t], dim]
        order[a:b] = part[np.argsort(keys, kind="mergesort")]
        mid = (a + b) // 2
        start[nodes], end[nodes] = a, mid
        start[nodes + 1], end[nodes + 1] = mid, b
        parent[nodes] = node
        parent[nodes + 1] = node
        stack[top] = nodes
        stack[top + 1] = nodes + 1
        top += 2
        left[node], right[node] = nodes, nodes + 1
        nodes += 2
    return order, start, end, left, right, parent, leaf_of, lo, hi, count


@njit
def remove(i, coords, alive, tree):
    """Forget record ``i`` (``alive[i]`` already False): shrink the boxes above it."""
    order, start, end, left, right, parent, leaf_of, lo, hi, count = tree
    p = coords.shape[1]
    node = leaf_of[i]
    count[node] -= 1
    for j in range(p):
        lo[node, j] = np.inf
        hi[node, j] = -np.inf
    for t in range(start[node], end[node]):
        r = order[t]
        if alive[r]:
            for j in range(p):
                lo[node, j] = min(lo[node, j], coords[r, j])
                hi[node, j] = max(hi[node, j], coords[r, j])
    node = parent[node]
    while node >= 0:
        count[node] -= 1
        for j in range(p):
            lo[node, j] = np.inf
            hi[node, j] = -np.inf
        for side in range(2):
            child = left[node] if side == 0 else right[node]
            if count[child] > 0:
                for j in range(p):
                    lo[node, j] = min(lo[node, j], lo[child, j])
                    hi[node, j] = max(hi[node, j], hi[child, j])
        node = parent[node]


@njit
def _far_bound(node, q, lo, hi):
    d = 0.0
    for j in range(q.shape[0]):
        t = max(q[j] - lo[node, j], hi[node, j] - q[j])
        d += t * t
    return d


@njit
def _near_bound(node, q, lo, hi):
    d = 0.0
    for j in range(q.shape[0]):
        t = max(lo[node, j] - q[j], 0.0, q[j] - hi[node, j])
        d += t * t
    return d


@njit
def farthest(q, point, tree, alive, stack):
    """The alive record farthest from ``point`` (ties: the lowest row).

    ``q`` is the point in the tree's coordinates (for the bounds), ``point``
    the ``(num, num_c, ordc, ord_c, ord_size, nomc, nom_c)`` that
    :func:`dist2` measures exactly.
    """
    order, start, end, left, right, parent, leaf_of, lo, hi, count = tree
    num, num_c, ordc, ord_c, ord_size, nomc, nom_c = point
    best, best_d = -1, -1.0
    top = 1
    stack[0] = 0
    while top:
        top -= 1
        node = stack[top]
        if count[node] == 0 or _far_bound(node, q, lo, hi) * (1 + SLACK) < best_d:
            continue
        if left[node] < 0:
            for t in range(start[node], end[node]):
                i = order[t]
                if alive[i]:
                    d = dist2(i, num, num_c, ordc, ord_c, ord_size, nomc, nom_c)
                    if d > best_d or (d == best_d and i < best):
                        best, best_d = i, d
            continue
        a, b = left[node], right[node]
        if _far_bound(a, q, lo, hi) > _far_bound(b, q, lo, hi):
            a, b = b, a                             # the more promising child on top
        stack[top] = a
        stack[top + 1] = b
        top += 2
    return best


@njit
def nearest(q, centre, want, point, tree, alive, stack, near_d, near_i):
    """The ``want`` alive records nearest to point ``q`` but record ``centre``, by (distance, row)."""
    order, start, end, left, right, parent, leaf_of, lo, hi, count = tree
    num, num_c, ordc, ord_c, ord_size, nomc, nom_c = point
    got = 0
    if want == 0:
        return 0
    top = 1
    stack[0] = 0
    while top:
        top -= 1
        node = stack[top]
        if count[node] == 0:
            continue
        if got == want and _near_bound(node, q, lo, hi) * (1 - SLACK) > near_d[want - 1]:
            continue
        if left[node] < 0:
            for t in range(start[node], end[node]):
                i = order[t]
                if not alive[i] or i == centre:
                    continue
                d = dist2(i, num, num_c, ordc, ord_c, ord_size, nomc, nom_c)
                got = keep_nearest(near_d, near_i, got, want, d, i)
            continue
        a, b = left[node], right[node]
        if _near_bound(a, q, lo, hi) < _near_bound(b, q, lo, hi):
            a, b = b, a                             # the nearer child on top
        stack[top] = a
        stack[top + 1] = b
        top += 2
    return got
