"""Cutting a minimum spanning tree into clusters (paper 003, section 4.3).

:func:`split_mst` removes the longest edges (the paper's procedure),
:func:`split_mst_feasible` only those that leave ``k`` records on both sides
(Laszlo & Mukherjee 2005); :mod:`kanon_graph.records.partition` uses them.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit  # numba loads on a kernel's first call
from .mst import HAVE_NUMBA

__all__ = ["split_mst", "split_mst_feasible"]


def _components(u, v, keep, n_nodes):
    from scipy.sparse import coo_matrix  # scipy.sparse loads only when an MST is cut
    from scipy.sparse.csgraph import connected_components

    forest = coo_matrix((np.ones(int(keep.sum())), (u[keep], v[keep])), shape=(n_nodes, n_nodes))
    _, labels = connected_components(forest, directed=False)
    first = np.full(labels.max(initial=-1) + 1, n_nodes, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(n_nodes))
    rank = np.empty_like(first)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[labels].astype(np.int64)


def split_mst(u, v, w, n_nodes, n_records, k):
    """Remove the longest MST edges and label the sub-trees (003 section 4.3).

    Parameters
    ----------
    u, v, w : ndarray
        The tree's edges over the graph's (distinct-tuple) nodes.
    n_nodes : int
    n_records : int
        ``n``, the number of records (node multiplicities summed).
    k : int

    Returns
    -------
    cluster_of : ndarray of int64, shape (n_nodes,)
        Sub-tree of every node, numbered by smallest node.
    removed : int
        Number of edges removed.

    Notes
    -----
    The paper writes both ``ceil(n/k) - 1`` (section 4.3) and
    ``floor(n/k) - 1`` (the algorithm, line 8). We remove
    ``floor(n/k) - 1``: it is what the worked example does (n = 10, k = 3:
    2 edges, 3 clusters), and ``floor(n/k)`` is the largest number of
    classes of at least ``k`` records a table of ``n`` records can have,
    so removing more only creates clusters that must be merged back.

    Edges are taken by decreasing weight, ties broken by the smaller
    ``(min end, max end)`` node pair; weights are compared after rounding to
    9 decimals, so that sums of the same fractions in a different order tie.

    The tree spans distinct tuples; identical tuples are one node. On the
    records' graph they would hang on the tree by zero-weight edges, which
    come after every positive edge in the queue. We never cut those: at
    most ``n_nodes - 1`` edges are removed, so identical tuples always share
    a class (cutting zero-weight edges could only split identical tuples in
    an arbitrary, tie-dependent way and does not change any distance).

    Examples
    --------
    >>> import numpy as np
    >>> u, v, w = np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([1.0, 5.0, 1.0])
    >>> split_mst(u, v, w, 4, 4, 2)
    (array([0, 0, 1, 1]), 1)
    """
    removed = int(max(min(n_records // k - 1, n_nodes - 1), 0))
    order = np.lexsort((np.maximum(u, v), np.minimum(u, v), -np.round(w, 9)))
    keep = np.zeros(len(u), dtype=bool)
    keep[order[removed:]] = True
    return _components(u, v, keep, n_nodes), removed


def _feasible_cuts_py(u, v, order, counts, k):
    """Cut, by decreasing weight, every tree edge that leaves >= k records on both sides."""
    n = counts.shape[0]
    m = u.shape[0]
    degree = np.zeros(n + 1, dtype=np.int64)
    for e in range(m):
        degree[u[e] + 1] += 1
        degree[v[e] + 1] += 1
    for i in range(n):
        degree[i + 1] += degree[i]
    fill = degree[:-1].copy()
    adj = np.empty(2 * m, dtype=np.int64)
    adj_edge = np.empty(2 * m, dtype=np.int64)
    for e in range(m):
        adj[fill[u[e]]] = v[e]
        adj_edge[fill[u[e]]] = e
        fill[u[e]] += 1
        adj[fill[v[e]]] = u[e]
        adj_edge[fill[v[e]]] = e
        fill[v[e]] += 1
    parent = np.full(n, -1, dtype=np.int64)
    child_of_edge = np.zeros(m, dtype=np.int64)
    bfs = np.empty(n, dtype=np.int64)
    seen = np.zeros(n, dtype=np.bool_)
    bfs[0] = 0
    seen[0] = True
    head, tail = 0, 1
    while head < tail:
        x = bfs[head]
        head += 1
        for q in range(degree[x], degree[x + 1]):
            y = adj[q]
            if not seen[y]:
                seen[y] = True
                parent[y] = x
                child_of_edge[adj_edge[q]] = y
                bfs[tail] = y
                tail += 1
    sub = counts.astype(np.int64).copy()
    for i in range(n - 1, 0, -1):
        sub[parent[bfs[i]]] += sub[bfs[i]]
    top = np.zeros(n, dtype=np.bool_)      # the root of its current component
    top[0] = True
    cut = np.zeros(m, dtype=np.bool_)
    for idx in range(order.shape[0]):
        e = order[idx]
        child = child_of_edge[e]
        r = parent[child]
        while not top[r]:
            r = parent[r]
        below = sub[child]
        if below >= k and sub[r] - below >= k:
            cut[e] = True
            top[child] = True
            x = parent[child]
            while True:
                sub[x] -= below
                if x == r:
                    break
                x = parent[x]
    return cut


_feasible_cuts = njit(cache=True)(_feasible_cuts_py) if HAVE_NUMBA else _feasible_cuts_py


def split_mst_feasible(u, v, w, counts, k):
    """Cut only tree edges that leave at least ``k`` records on both sides.

    Edges are visited by decreasing weight (same tie rule as
    :func:`split_mst`); an edge is cut when both parts of its current
    sub-tree keep at least ``k`` records. This is the minimum spanning tree
    partitioning of Laszlo & Mukherjee (2005), the reference [26] paper 003
    builds on: every cluster has at least ``k`` records, so no merging is
    needed for k-anonymity, and no long edge is kept merely because the
    paper's edge budget ran out.

    Examples
    --------
    >>> import numpy as np
    >>> u, v, w = np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([9.0, 5.0, 1.0])
    >>> split_mst_feasible(u, v, w, np.ones(4, dtype=np.int64), 2)
    (array([0, 0, 1, 1]), 1)
    """
    n_nodes = len(counts)
    if n_nodes <= 1:
        return np.zeros(n_nodes, dtype=np.int64), 0
    order = np.lexsort((np.maximum(u, v), np.minimum(u, v), -np.round(w, 9))).astype(np.int64)
    cut = _feasible_cuts(u.astype(np.int64), v.astype(np.int64), order,
                         np.asarray(counts, dtype=np.int64), int(k))
    return _components(u, v, ~cut, n_nodes), int(cut.sum())


def _cut_between_cells(u, v, cluster_of, cell_of_node):
    """Cut every tree edge inside a cluster whose endpoints lie in different MAGVal cells."""
    keep = (cluster_of[u] == cluster_of[v]) & (cell_of_node[u] == cell_of_node[v])
    return _components(u, v, keep, len(cluster_of))
