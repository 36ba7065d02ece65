"""Compiled main loop of greedy k-member clustering (Byun et al. 2007, Figure 2).

:class:`PackedDistances` turns the record graph's per-attribute distances
(dense matrices, :class:`~kanon_graph.records.NumericGap`,
:class:`~kanon_graph.records.LevelGap`) into flat arrays, and
:func:`cluster` runs the loop of Figure 2 on the distinct tuples (nodes):

* the furthest remaining node from the previous seed (one pass over the
  remaining nodes, which also drops the used-up ones from the list);
* one pass computing, for every remaining node ``r``, its distance to the
  new seed ``s`` (kept for the next furthest search) and the pair cost
  ``IL({s, r}) / 2``, which is a lower bound of the cost of any cluster
  holding ``s`` grown by ``r`` (every term of the cost grows with the
  group);
* each ``find_best_record`` step evaluates the full cost only for nodes
  whose pair cost does not exceed the best cost found so far. A node
  skipped that way costs strictly more than the best, so it could be
  neither the best nor tied with it: the clusters are exactly those of the
  unpruned scan, with the same ties (the lowest node index wins).

Distances and costs are summed attribute by attribute in the same order as
:meth:`RecordGraph.distances_to` and :meth:`GroupCoster.merge_cost`, so the
kernel sees the same floating-point values as the numpy code.
"""

from __future__ import annotations

import numpy as np

from ..records.distances import LevelGap, NumericGap
from ._cost_kernels import njit, union_cost

__all__ = ["PackedDistances", "cluster"]

MATRIX, NUMERIC, LEVELS = 0, 1, 2


class PackedDistances:
    """The record graph's per-attribute distances as arrays for :func:`cluster`.

    Attribute ``a`` is of ``kind[a]``: a dense ``(m, m)`` matrix stored at
    ``fbuf[foff[a]:]`` and read at ``codes[s, a] * width[a] + codes[r, a]``
    (kind 0); ``|value[r, a] - value[s, a]| * scale[a]`` (kind 1, the value
    of every node's code in ``value``); or the weight ``weight[s, a, L]`` of
    the level ``L < top[a]`` where the nodes' ancestors ``anc[., a, L]``
    first agree, else of ``top[a]`` (kind 2). Per-node rows keep the scan's
    reads in memory order.
    """

    def __init__(self, graph):
        codes = graph.codes
        u, d = codes.shape
        self.kind = np.zeros(d, dtype=np.int64)
        self.width = np.zeros(d, dtype=np.int64)
        self.foff = np.zeros(d, dtype=np.int64)
        self.scale = np.zeros(d)
        self.top = np.zeros(d, dtype=np.int64)
        self.value = np.zeros((u, d))
        gaps = [p for p in graph.parts if isinstance(p, LevelGap)]
        depth = max((p.level_map.shape[0] for p in gaps), default=1)
        self.anc = np.zeros((u, d, depth), dtype=np.int64)
        # per node, attribute and level: a LevelGap's weight may depend on the code
        # (weights[L, code], e.g. the loss distance), the same for both ends of a pair
        self.weight = np.zeros((u, d, depth))
        mats, size = [], 0
        for a, part in enumerate(graph.parts):
            if isinstance(part, NumericGap):
                self.kind[a] = NUMERIC
                self.value[:, a] = np.asarray(part.values, dtype=np.float64)[codes[:, a]]
                self.scale[a] = float(part.scale)
            elif isinstance(part, LevelGap):
                self.kind[a] = LEVELS
                lmap = np.asarray(part.level_map, dtype=np.int64)
                top = lmap.shape[0] - 1
                self.top[a] = top
                weights = np.asarray(part.weights, dtype=np.float64)
                for level in range(depth):
                    self.anc[:, a, level] = lmap[min(level, top), codes[:, a]]
                    self.weight[:, a, level] = weights[min(level, top)] if weights.ndim == 1 \
                        else weights[min(level, top), codes[:, a]]
            else:
                self.kind[a] = MATRIX
                self.width[a] = part.shape[0]
                self.foff[a] = size
                mats.append(np.asarray(part, dtype=np.float64).ravel())
                size += mats[-1].size
        self.fbuf = np.concatenate(mats) if mats else np.zeros(1)

    def args(self):
        return (self.kind, self.width, self.foff, self.fbuf, self.value, self.scale,
                self.anc, self.weight, self.top)


@njit(cache=True, inline="always")
def _distance(codes, s, r, kind, width, foff, fbuf, value, scale, anc, weight, top):
    """Record-graph distance from node ``s`` to node ``r`` (attribute terms in order)."""
    total = 0.0
    for a in range(kind.shape[0]):
        if kind[a] == 0:
            total += fbuf[foff[a] + codes[s, a] * width[a] + codes[r, a]]
        elif kind[a] == 1:
            total += abs(value[r, a] - value[s, a]) * scale[a]
        else:
            level = top[a]
            for l in range(top[a]):
                if anc[s, a, l] == anc[r, a, l]:
                    level = l
                    break
            total += weight[s, a, level]
    return total


@njit(cache=True, inline="always")
def _take(v, count, label, taken, remaining, order, starts, class_of):
    begin = starts[v] + taken[v]
    for t in range(count):
        class_of[order[begin + t]] = label
    taken[v] += count
    remaining[v] -= count


@njit(cache=True)
def cluster(k, start, codes, kind, width, foff, fbuf, value, scale, anc, weight, top,
            values, leaves, cat_anc, cat_cost, spans, remaining, cell, left_in, order, starts,
            class_of):
    """Figure 2's loop over the nodes; fills ``class_of`` and returns the clusters' summaries.

    ``values`` (u, p) and ``leaves`` (u, q) are the nodes' numeric values and
    leaf codes, ``cat_anc`` / ``cat_cost`` their :func:`leaf_tables`.
    ``remaining`` (records left per node), ``left_in`` (per MAGVal cell) and
    ``class_of`` are updated in place. Returns ``(n_clusters, lo, hi, level,
    leaf, size, cluster_cell, taken)``.
    """
    u = remaining.shape[0]
    p = values.shape[1]
    q = leaves.shape[1]
    n_left = 0
    for v in range(u):
        n_left += remaining[v]
    max_clusters = n_left // k + 1
    c_lo = np.empty((max_clusters, p))
    c_hi = np.empty((max_clusters, p))
    c_level = np.zeros((max_clusters, q), np.int64)
    c_leaf = np.zeros((max_clusters, q), np.int64)
    c_size = np.zeros(max_clusters, np.int64)
    c_cell = np.zeros(max_clusters, np.int64)
    zero_levels = np.zeros((u, q), np.int64)
    taken = np.zeros(u, np.int64)
    ids = np.empty(u, np.int64)
    dist = np.empty(u)
    pair = np.empty(u)
    n_ids = 0
    for v in range(u):
        if remaining[v] > 0:
            ids[n_ids] = v
            dist[n_ids] = _distance(codes, start, v, kind, width, foff, fbuf, value, scale,
                                    anc, weight, top)
            n_ids += 1
    lo = np.empty(p)
    hi = np.empty(p)
    level = np.zeros(q, np.int64)
    n_clusters = 0
    while True:
        more = False
        for x in range(left_in.shape[0]):
            if left_in[x] >= k:
                more = True
                break
        if not more:
            break
        # the furthest remaining node from the previous seed; drop used-up nodes
        w = 0
        far = -np.inf
        s_pos = -1
        for i in range(n_ids):
            v = ids[i]
            if remaining[v] == 0:
                continue
            ids[w] = v
            dist[w] = dist[i]
            if left_in[cell[v]] >= k and dist[w] > far:
                far = dist[w]
                s_pos = w
            w += 1
        n_ids = w
        s = ids[s_pos]
        label = n_clusters
        size = min(remaining[s], k)
        _take(s, size, label, taken, remaining, order, starts, class_of)
        for t in range(p):
            lo[t] = values[s, t]
            hi[t] = values[s, t]
        level[:] = 0
        s_anc = cat_anc[s]                 # the cluster's leaf is its seed's
        # distances from the seed (next furthest search) and pair-cost bounds
        for i in range(n_ids):
            v = ids[i]
            dist[i] = _distance(codes, s, v, kind, width, foff, fbuf, value, scale,
                                anc, weight, top)
            if size < k and remaining[v] > 0 and cell[v] == cell[s]:
                pair[i] = union_cost(lo, hi, level, s_anc, values, values, zero_levels,
                                     cat_anc, cat_cost, v, spans)
            else:
                pair[i] = np.inf
        while size < k:            # find_best_record, pruned by the pair-cost bound
            best = np.inf
            b_pos = -1
            for i in range(n_ids):
                if pair[i] == np.inf or pair[i] > best:
                    continue
                cost = union_cost(lo, hi, level, s_anc, values, values, zero_levels,
                                  cat_anc, cat_cost, ids[i], spans)
                if cost < best:
                    best = cost
                    b_pos = i
            v = ids[b_pos]
            for t in range(p):
                if values[v, t] < lo[t]:
                    lo[t] = values[v, t]
                if values[v, t] > hi[t]:
                    hi[t] = values[v, t]
            for c in range(q):
                for l in range(level[c], cat_anc.shape[2]):
                    if s_anc[c, l] == cat_anc[v, c, l]:
                        level[c] = l
                        break
            count = min(remaining[v], k - size)
            _take(v, count, label, taken, remaining, order, starts, class_of)
            size += count
            if remaining[v] == 0:
                pair[b_pos] = np.inf
        c_lo[label] = lo
        c_hi[label] = hi
        c_level[label] = level
        c_leaf[label] = leaves[s]
        c_size[label] = size
        c_cell[label] = cell[s]
        left_in[cell[s]] -= size
        n_clusters += 1
    return n_clusters, c_lo, c_hi, c_level, c_leaf, c_size, c_cell, taken
