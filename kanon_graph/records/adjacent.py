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


def _joint_level(level_a, level_b, r, x, att, nlev, width, off, anc):
    """The lowest level of attribute ``att`` at or above both classes' LCA levels where
    their member codes ``r`` and ``x`` meet."""
    m = width[att]
    base = off[att]
    level = max(level_a, level_b)
    while level < nlev[att] - 1 and anc[base + level * m + x] != anc[base + level * m + r]:
        level += 1
    return level


def _union_cost(a, b, head, nxt, size, lev, ref, lo, hi, codes, tables):
    """:func:`~kanon_graph.records.costs.set_cost` of classes ``a`` and ``b`` together,
    from their summaries (``lev``/``ref``: the LCA level and a member's code per
    hierarchy attribute; ``lo``/``hi``: the range per numeric one): ``O(d H)``, the
    same float; a set attribute walks the members."""
    kind, nlev, width, off, anc, cell, values, scale, settab, setoff, mark, mode = tables
    total_size = size[a] + size[b]
    if mode == 1:
        return float(total_size) * float(total_size)
    total = 0.0
    for att in range(kind.shape[0]):
        if kind[att] == 0:
            level = _joint_level(lev[a, att], lev[b, att], ref[a, att], ref[b, att], att,
                                 nlev, width, off, anc)
            total += cell[off[att] + level * width[att] + ref[a, att]]
        elif kind[att] == 1:
            total += (max(hi[a, att], hi[b, att]) - min(lo[a, att], lo[b, att])) * scale[att]
        else:
            mark[0] += 1
            stamp = mark[0]
            distinct = 0
            for c in (a, b):
                y = head[c]
                while y >= 0:
                    slot = 1 + off[att] + codes[y, att]
                    if mark[slot] != stamp:
                        mark[slot] = stamp
                        distinct += 1
                    y = nxt[y]
            total += settab[setoff[att] + distinct]
    return total * total_size


def _merge_summary(keep, gone, lev, ref, lo, hi, tables):
    """The summaries of ``keep`` become those of ``keep`` and ``gone`` together."""
    kind, nlev, width, off, anc = tables[0], tables[1], tables[2], tables[3], tables[4]
    for att in range(kind.shape[0]):
        if kind[att] == 0:
            lev[keep, att] = _joint_level(lev[keep, att], lev[gone, att], ref[keep, att],
                                          ref[gone, att], att, nlev, width, off, anc)
        elif kind[att] == 1:
            lo[keep, att] = min(lo[keep, att], lo[gone, att])
            hi[keep, att] = max(hi[keep, att], hi[gone, att])


def _class_summaries(head, nxt, codes, tables):
    """Per class (a linked list of nodes): its LCA level and first member's code per
    hierarchy attribute, its range per numeric attribute."""
    kind, nlev, width, off, anc = tables[0], tables[1], tables[2], tables[3], tables[4]
    values = tables[6]
    n_classes = head.shape[0]
    d = kind.shape[0]
    lev = np.zeros((n_classes, d), dtype=np.int64)
    ref = np.zeros((n_classes, d), dtype=np.int64)
    lo = np.zeros((n_classes, d))
    hi = np.zeros((n_classes, d))
    for c in range(n_classes):
        if head[c] < 0:
            continue
        for att in range(d):
            r = codes[head[c], att]
            ref[c, att] = r
            if kind[att] == 0:
                m = width[att]
                base = off[att]
                level = 0
                y = nxt[head[c]]
                while y >= 0:
                    x = codes[y, att]
                    while level < nlev[att] - 1 and \
                            anc[base + level * m + x] != anc[base + level * m + r]:
                        level += 1
                    y = nxt[y]
                lev[c, att] = level
            elif kind[att] == 1:
                low = np.inf
                high = -np.inf
                y = head[c]
                while y >= 0:
                    v = values[off[att] + codes[y, att]]
                    low = min(low, v)
                    high = max(high, v)
                    y = nxt[y]
                lo[c, att] = low
                hi[c, att] = high
    return lev, ref, lo, hi


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
    lev, ref, lo, hi = _class_summaries(head, nxt, codes, tables)
    heap = [(0.0, np.int64(0), np.int64(0), np.int64(0))]
    heap.pop()
    for e in range(eu.shape[0]):
        a = labels[eu[e]]
        b = labels[ev[e]]
        if a == b or cell[a] != cell[b]:
            continue
        if size[a] >= k and size[b] >= k and not flag[a] and not flag[b]:
            continue
        delta = _union_cost(a, b, head, nxt, size, lev, ref, lo, hi, codes, tables) - own[a] - own[b]
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
            delta = _union_cost(a, b, head, nxt, size, lev, ref, lo, hi, codes, tables) - own[a] - own[b]
            heapq.heappush(heap, (delta, e, version[a], version[b]))
            continue
        keep, gone = min(a, b), max(a, b)
        own[keep] = own[a] + own[b] + delta
        parent[gone] = keep
        _merge_summary(keep, gone, lev, ref, lo, hi, tables)
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
    _joint_level = njit(cache=True, inline="always")(_joint_level)
    _union_cost = njit(cache=True)(_union_cost)
    _merge_summary = njit(cache=True)(_merge_summary)
    _class_summaries = njit(cache=True)(_class_summaries)
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
