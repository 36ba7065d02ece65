"""Graph-adjacent merging: small classes join a neighbouring class, least cost first.

Classes are sets of graph nodes; two classes are *adjacent* when a tree edge
(an MST edge, or any sparse neighbour structure given as edge arrays) joins
a member of one to a member of the other. While some class is *small*
(fewer than ``k`` records, or flagged by the privacy model), the adjacent
pair with a small member whose union raises the total cost least is merged
(the cost of :mod:`~kanon_graph.records.costs`, under the chosen metric).
A heap of edges with lazily refreshed costs makes this ``O(E log E)``
merges-and-costings for ``E`` edges, each costing ``O((|A| + |B|) d)``:
``O(classes x degree)`` candidates, never the ``O(classes^2)`` scan of
:func:`~kanon_graph.records.merge_small_classes`.

Started from single nodes over the uncut edges of a tree component, it is
the component split of :func:`~kanon_graph.records.split_mst_feasible`'s
caller: a k-member-style pass that stays inside the component.
"""

from __future__ import annotations

import heapq

import numpy as np

from .costs import _set_cost
from .mst import HAVE_NUMBA

from .._jit import njit  # numba loads on a kernel's first call

__all__ = ["merge_adjacent"]


def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def _union_cost(a, b, head, nxt, buf, codes, counts, tables):
    n = 0
    x = head[a]
    while x >= 0:
        buf[n] = x
        n += 1
        x = nxt[x]
    x = head[b]
    while x >= 0:
        buf[n] = x
        n += 1
        x = nxt[x]
    return _set_cost(buf, n, codes, counts, tables)


def _agglomerate_py(labels, eu, ev, small_of, k, cell, codes, counts, tables):
    """Merge adjacent classes while one of them is small; returns (labels, merges).

    ``small_of[c]`` flags classes to merge whatever their size (l / t);
    a class is also small while it has fewer than ``k`` records. Classes of
    different ``cell`` are never merged. Ties go to the lower edge index.
    """
    u = labels.shape[0]
    n_classes = 0
    for x in range(u):
        n_classes = max(n_classes, labels[x] + 1)
    parent = np.arange(n_classes)
    size = np.zeros(n_classes, dtype=np.int64)
    head = np.full(n_classes, -1, dtype=np.int64)
    tail = np.full(n_classes, -1, dtype=np.int64)
    nxt = np.full(u, -1, dtype=np.int64)
    for x in range(u):
        c = labels[x]
        size[c] += counts[x]
        if head[c] < 0:
            head[c] = x
        else:
            nxt[tail[c]] = x
        tail[c] = x
    flag = small_of.copy()
    version = np.zeros(n_classes, dtype=np.int64)
    own = np.zeros(n_classes)
    buf = np.empty(u, dtype=np.int64)
    for c in range(n_classes):
        if head[c] >= 0:
            n = 0
            x = head[c]
            while x >= 0:
                buf[n] = x
                n += 1
                x = nxt[x]
            own[c] = _set_cost(buf, n, codes, counts, tables)
    heap = [(0.0, np.int64(0), np.int64(0), np.int64(0))]
    heap.pop()
    for e in range(eu.shape[0]):
        a = labels[eu[e]]
        b = labels[ev[e]]
        if a == b or cell[a] != cell[b]:
            continue
        if size[a] >= k and size[b] >= k and not flag[a] and not flag[b]:
            continue
        delta = _union_cost(a, b, head, nxt, buf, codes, counts, tables) - own[a] - own[b]
        heap.append((delta, np.int64(e), version[a], version[b]))
    heapq.heapify(heap)
    merges = 0
    while len(heap) > 0:
        delta, e, va, vb = heapq.heappop(heap)
        a = _find(parent, labels[eu[e]])
        b = _find(parent, labels[ev[e]])
        if a == b:
            continue
        if size[a] >= k and size[b] >= k and not flag[a] and not flag[b]:
            continue
        if va != version[a] or vb != version[b]:
            delta = _union_cost(a, b, head, nxt, buf, codes, counts, tables) - own[a] - own[b]
            heapq.heappush(heap, (delta, e, version[a], version[b]))
            continue
        keep, gone = min(a, b), max(a, b)
        own[keep] = own[a] + own[b] + delta
        parent[gone] = keep
        size[keep] += size[gone]
        nxt[tail[keep]] = head[gone]
        tail[keep] = tail[gone]
        head[gone] = -1
        flag[keep] = False
        version[keep] += 1
        version[gone] += 1
        merges += 1
    out = np.empty(u, dtype=np.int64)
    for x in range(u):
        out[x] = _find(parent, labels[x])
    return out, merges


if HAVE_NUMBA:
    _find = njit(cache=True, inline="always")(_find)
    _union_cost = njit(cache=True)(_union_cost)
    _agglomerate = njit(cache=True)(_agglomerate_py)
else:  # pragma: no cover
    _agglomerate = _agglomerate_py


def _compact(labels):
    """Renumber labels 0..C-1 by their smallest node."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.reshape(-1)]


def merge_adjacent(cost, labels, counts, eu, ev, k, *, cell_of_node=None, failing=None):
    """Merge small classes into adjacent ones, least increase of the metric first.

    Parameters
    ----------
    cost : ClassCost
        The metric's tables (its ``codes`` are the nodes' code tuples).
    labels : ndarray of int (u,)
        Initial class of every node.
    counts : ndarray of int (u,)
        Records per node.
    eu, ev : ndarray of int (E,)
        The neighbour structure: edges between nodes (an MST's edges).
    k : int
    cell_of_node : ndarray (u,), optional
        MAGVal cell of every node; classes of different cells never merge
        (every initial class must lie in one cell).
    failing : callable, optional
        ``failing(labels) -> bool per class`` (l-diversity, t-closeness): after
        the k pass, flagged classes are merged with a neighbour too, pass after
        pass, until none is flagged or none can merge.

    Returns
    -------
    labels : ndarray of int64 (u,)
        Final classes, numbered ``0..C-1`` by their smallest node.
    merges : int

    Notes
    -----
    A small class none of whose neighbours it may join (an isolated
    component, or all neighbours in other MAGVal cells) stays small; the
    caller decides what to do with it.

    Examples
    --------
    >>> import kanon_graph as kg, numpy as np
    >>> from kanon_graph.records import RecordGraph, minimum_spanning_edges
    >>> from kanon_graph.records.costs import ClassCost
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> g = RecordGraph(data)
    >>> u, v, w = minimum_spanning_edges(g)
    >>> labels, merges = merge_adjacent(ClassCost(data, g.codes), np.arange(10), g.counts, u, v, 3)
    >>> merges, bool(np.bincount(labels).min() >= 3)
    (7, True)
    """
    labels = _compact(np.asarray(labels, dtype=np.int64))
    counts = np.asarray(counts, dtype=np.int64)
    eu = np.asarray(eu, dtype=np.int64)
    ev = np.asarray(ev, dtype=np.int64)
    n_classes = int(labels.max(initial=-1)) + 1
    if cell_of_node is None:
        cell = np.zeros(n_classes, dtype=np.int64)
    else:
        cell = np.zeros(n_classes, dtype=np.int64)
        cell[labels] = np.asarray(cell_of_node, dtype=np.int64)
    small = np.zeros(n_classes, dtype=np.bool_)
    labels, merges = _agglomerate(labels, eu, ev, small, int(k), cell, cost.codes, counts,
                                  cost.tables)
    labels = _compact(labels)
    while failing is not None and labels.max(initial=0) > 0:
        flagged = np.asarray(failing(labels), dtype=np.bool_)
        if not flagged.any():
            break
        cell = np.zeros(len(flagged), dtype=np.int64)
        if cell_of_node is not None:
            cell[labels] = np.asarray(cell_of_node, dtype=np.int64)
        new, made = _agglomerate(labels, eu, ev, flagged, int(k), cell, cost.codes, counts,
                                 cost.tables)
        if not made:
            break
        labels, merges = _compact(new), merges + made
    return labels, int(merges)
