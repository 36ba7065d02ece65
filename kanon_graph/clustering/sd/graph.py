"""SD's clusters grown on a k-nearest-neighbour record graph (``variant="graph"``).

The paper's procedure (:mod:`.paper`) grows one class at a time and, for
every record it adds, rescans every remaining tuple (and, with many
categorical values, recomputes an ``m x m`` distance matrix per class): on
20,000 continuous records that is hours. This variant keeps SD's idea --
put each record with its nearest records, hierarchy-free if the schema has
no hierarchies -- but walks a sparse graph:

1. **The record graph, sparsified.** Nodes are SD's distinct tuples
   (:mod:`.tuples`). Candidate neighbours come from ``d`` sorted orders,
   one per quasi-identifier (that attribute first, the others after it in
   turn): each tuple meets the ``window`` tuples on either side in each
   order. Of these, each tuple keeps its ``neighbours`` nearest, the
   distance of two tuples being the information loss of releasing them
   together (NCP, eq. 2-3 of paper 000: the numeric range over the column's
   range, the number of distinct categorical values over the attribute's,
   or with a hierarchy the lowest common ancestor's share of the leaves --
   the cost the release pays). The graph is made symmetric. ``O(u d w)``
   pairs for ``u`` tuples.
2. **Nearest-neighbour merging with a priority queue.** Every cluster
   smaller than ``k`` keeps its best neighbouring cluster (reached through
   its members' graph edges) in a heap, keyed by the increase of the total
   loss ``|C u C'| NCP(C u C') - |C| NCP(C) - |C'| NCP(C')``. The cheapest
   merge is made; entries of clusters that changed since are re-evaluated
   when they come up (lazy deletion). A cluster of ``k`` records or more
   starts no merge but can still absorb a small neighbour. ``O(u log u)``
   heap operations, each ``O(size x neighbours x d)``.
3. **Orphans.** A small cluster whose graph neighbours all lie inside it
   (rare) joins the cluster of least loss increase found by a scan of all
   clusters; ``stats["orphans"]`` counts them.

Identical tuples always share a class. With generalization boundaries the
procedure runs inside each MAGVal cell.

References
----------
Sarrafi Aghdam & Sonehara, "On enhancing data utility in k-anonymization
for data without hierarchical taxonomies", IJCSI (2016): section 4.2 (the
greedy clustering this follows), eq. (2)-(3) (NCP).
"""

from __future__ import annotations

import heapq
from types import SimpleNamespace

import numpy as np

from ...records.merge import ClassSummaries, _popcount, _union_level
from ._contingency import njit

__all__ = ["graph_classes", "knn_graph"]

BITSET_CODES = 1024
"""Categorical attributes with more codes count a union's values by walking its members."""


@njit(cache=True)
def _union_ncp(c, o, lev, anc, toff, nlev, ncost, noff, lo, hi, scale, bits, word_off,
               n_words, width, head, nxt, big, big_width, seen, tick):
    """NCP (unweighted sum over attributes) of the union of clusters ``c`` and ``o``."""
    total = 0.0
    for a in range(lev.shape[1]):
        level = _union_level(anc, toff, nlev, lev, a, c, o)
        total += ncost[noff[toff[a] + level] + anc[c, toff[a] + level]]
    for a in range(lo.shape[1]):
        total += (max(hi[c, a], hi[o, a]) - min(lo[c, a], lo[o, a])) * scale[a]
    for a in range(word_off.shape[0]):
        count = 0
        for w in range(word_off[a], word_off[a] + n_words[a]):
            count += _popcount(bits[c, w] | bits[o, w])
        if count > 1:
            total += count / width[a]
    for b in range(big.shape[1]):
        tick[0] += 1
        count = 0
        for start in (c, o):
            m = head[start]
            while m >= 0:
                v = big[m, b]
                if seen[b, v] != tick[0]:
                    seen[b, v] = tick[0]
                    count += 1
                m = nxt[m]
        if count > 1:
            total += count / big_width[b]
    return total


def _summary(data, tuples):
    """Per-tuple summaries (ClassSummaries) and the member-walked categorical attributes."""
    small, big, widths, cols = [], [], [], []
    for a, attr in enumerate(data.attributes):
        if attr.hierarchy is None and attr.kind != "numeric" and attr.n_codes > BITSET_CODES:
            big.append(tuples.codes[:, a])
            widths.append(attr.n_codes)
        else:
            small.append(attr)
            cols.append(a)
    u = len(tuples.weight)
    s = ClassSummaries(SimpleNamespace(attributes=small), tuples.codes[:, cols],
                       np.arange(u, dtype=np.int64), tuples.weight)
    big = np.ascontiguousarray(np.column_stack(big) if big else np.zeros((u, 0), np.int64))
    seen = np.zeros((big.shape[1], max(widths, default=0)), dtype=np.int64)
    args = (s.lev, s.anc, s.toff, s.nlev, s.ncost, s.noff, s.lo, s.hi, s.scale, s.bits,
            s.word_off, s.n_words, s.width)
    return args, big, np.asarray(widths, dtype=float), seen


@njit(cache=True)
def _knn(orders, window, neighbours, lev, anc, toff, nlev, ncost, noff, lo, hi, scale, bits,
         word_off, n_words, width, head, nxt, big, big_width, seen, tick):
    """Each tuple's ``neighbours`` nearest among its sorted-order windows, made symmetric."""
    d, u = orders.shape
    where = np.empty((d, u), np.int64)
    for a in range(d):
        for p in range(u):
            where[a, orders[a, p]] = p
    mark = np.full(u, -1, np.int64)
    cand = np.empty(2 * d * window, np.int64)
    cost = np.empty(2 * d * window)
    kept = np.full((u, neighbours), -1, np.int64)
    degree = np.zeros(u, np.int64)
    for t in range(u):
        n_c = 0
        for a in range(d):
            p = where[a, t]
            for q in range(max(p - window, 0), min(p + window + 1, u)):
                v = orders[a, q]
                if v != t and mark[v] != t:
                    mark[v] = t
                    cand[n_c] = v
                    cost[n_c] = _union_ncp(t, v, lev, anc, toff, nlev, ncost, noff, lo, hi,
                                           scale, bits, word_off, n_words, width, head, nxt,
                                           big, big_width, seen, tick)
                    n_c += 1
        rank = np.argsort(cost[:n_c], kind="mergesort")   # nearest first, ties: order met
        for i in range(min(neighbours, n_c)):
            v = cand[rank[i]]
            kept[t, i] = v
            degree[t] += 1
            degree[v] += 1
    indptr = np.zeros(u + 1, np.int64)
    for t in range(u):
        indptr[t + 1] = indptr[t] + degree[t]
    fill = indptr[:-1].copy()
    nbr = np.empty(indptr[u], np.int64)
    for t in range(u):                  # an edge kept by either end is an edge of both
        for i in range(neighbours):
            v = kept[t, i]
            if v < 0:
                break
            nbr[fill[t]] = v
            fill[t] += 1
            nbr[fill[v]] = t
            fill[v] += 1
    return indptr, nbr


def knn_graph(tuples, state, *, neighbours=10, window=10):
    """The sparsified record graph of step 1 (module docstring), as CSR arrays.

    Returns
    -------
    indptr, nbr : ndarray of int64
        ``nbr[indptr[t]:indptr[t + 1]]`` are the graph neighbours of tuple
        ``t`` (an edge may appear twice).
    """
    d = tuples.codes.shape[1]
    keys = [tuples.codes[:, a] for a in range(d)]    # numeric codes follow the values
    orders = np.empty((d, len(tuples.weight)), np.int64)
    for a in range(d):
        rotated = [keys[(a + j) % d] for j in range(d)]
        orders[a] = np.lexsort(rotated[::-1])        # attribute a first, the others in turn
    return _knn(orders, window, neighbours, *state)


@njit(cache=True)
def _find(parent, x):
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:
        parent[x], x = root, parent[x]
    return root


@njit(cache=True)
def _best(c, indptr, nbr, parent, size, own, mark, k, lev, anc, toff, nlev, ncost, noff, lo,
          hi, scale, bits, word_off, n_words, width, head, nxt, big, big_width, seen, tick):
    """Cheapest graph neighbour cluster of cluster ``c``: (loss increase, cluster, NCP)."""
    best, best_cost, best_ncp = -1, np.inf, 0.0
    m = head[c]
    while m >= 0:
        for e in range(indptr[m], indptr[m + 1]):
            o = _find(parent, nbr[e])
            if o == c or mark[o] == c:
                continue
            mark[o] = c
            ncp = _union_ncp(c, o, lev, anc, toff, nlev, ncost, noff, lo, hi, scale, bits,
                             word_off, n_words, width, head, nxt, big, big_width, seen, tick)
            cost = (size[c] + size[o]) * ncp - size[c] * own[c] - size[o] * own[o]
            if cost < best_cost or (cost == best_cost and o < best):
                best, best_cost, best_ncp = o, cost, ncp
        m = nxt[m]
    m = head[c]
    while m >= 0:                        # clear the marks for the next scan of c
        for e in range(indptr[m], indptr[m + 1]):
            mark[_find(parent, nbr[e])] = -1
        m = nxt[m]
    return best_cost, best, best_ncp


@njit(cache=True)
def _merge(c, o, ncp, parent, size, own, stamp, head, tail, nxt, lev, anc, toff, nlev, lo,
           hi, bits):
    """Cluster ``c`` joins ``o``: ``o`` takes the union's summary."""
    for a in range(lev.shape[1]):
        lev[o, a] = _union_level(anc, toff, nlev, lev, a, c, o)
    for a in range(lo.shape[1]):
        lo[o, a] = min(lo[o, a], lo[c, a])
        hi[o, a] = max(hi[o, a], hi[c, a])
    for w in range(bits.shape[1]):
        bits[o, w] |= bits[c, w]
    size[o] += size[c]
    own[o] = ncp
    parent[c] = o
    nxt[tail[o]] = head[c]
    tail[o] = tail[c]
    stamp[c] += 1
    stamp[o] += 1


@njit(cache=True)
def _agglomerate(indptr, nbr, size, k, lev, anc, toff, nlev, ncost, noff, lo, hi, scale,
                 bits, word_off, n_words, width, head, nxt, big, big_width, seen, tick):
    """Steps 2-3 of the module docstring; returns (root of every tuple, merges, orphans)."""
    u = size.shape[0]
    parent = np.arange(u)
    tail = np.arange(u)
    stamp = np.zeros(u, np.int64)
    mark = np.full(u, -1, np.int64)
    own = np.empty(u)
    for c in range(u):
        own[c] = _union_ncp(c, c, lev, anc, toff, nlev, ncost, noff, lo, hi, scale, bits,
                            word_off, n_words, width, head, nxt, big, big_width, seen, tick)
    heap = [(0.0, 0, 0, 0, 0)]
    heap.pop()
    orphans = [0]
    orphans.pop()
    for c in range(u):
        if size[c] < k:
            cost, o, _ = _best(c, indptr, nbr, parent, size, own, mark, k, lev, anc, toff,
                               nlev, ncost, noff, lo, hi, scale, bits, word_off, n_words,
                               width, head, nxt, big, big_width, seen, tick)
            if o < 0:
                orphans.append(c)
            else:
                heapq.heappush(heap, (cost, c, o, stamp[c], stamp[o]))
    merges = 0
    while len(heap):
        cost, c, o, sc, so = heapq.heappop(heap)
        if parent[c] != c or stamp[c] != sc or size[c] >= k:
            continue
        if parent[o] != o or stamp[o] != so:      # o changed: c looks again
            cost, o, _ = _best(c, indptr, nbr, parent, size, own, mark, k, lev, anc, toff,
                               nlev, ncost, noff, lo, hi, scale, bits, word_off, n_words,
                               width, head, nxt, big, big_width, seen, tick)
            if o < 0:
                orphans.append(c)
            else:
                heapq.heappush(heap, (cost, c, o, stamp[c], stamp[o]))
            continue
        ncp = _union_ncp(c, o, lev, anc, toff, nlev, ncost, noff, lo, hi, scale, bits,
                         word_off, n_words, width, head, nxt, big, big_width, seen, tick)
        _merge(c, o, ncp, parent, size, own, stamp, head, tail, nxt, lev, anc, toff, nlev,
               lo, hi, bits)
        merges += 1
        if size[o] < k:
            cost, p, _ = _best(o, indptr, nbr, parent, size, own, mark, k, lev, anc, toff,
                               nlev, ncost, noff, lo, hi, scale, bits, word_off, n_words,
                               width, head, nxt, big, big_width, seen, tick)
            if p < 0:
                orphans.append(o)
            else:
                heapq.heappush(heap, (cost, o, p, stamp[o], stamp[p]))
    n_orphans = 0
    for c in orphans:                             # a scan of every cluster, rarely needed
        while parent[c] == c and size[c] < k:
            best, best_cost, best_ncp = -1, np.inf, 0.0
            for o in range(u):
                if parent[o] != o or o == c:
                    continue
                ncp = _union_ncp(c, o, lev, anc, toff, nlev, ncost, noff, lo, hi, scale,
                                 bits, word_off, n_words, width, head, nxt, big, big_width,
                                 seen, tick)
                cost = (size[c] + size[o]) * ncp - size[c] * own[c] - size[o] * own[o]
                if cost < best_cost:
                    best, best_cost, best_ncp = o, cost, ncp
            if best < 0:
                break
            _merge(c, best, best_ncp, parent, size, own, stamp, head, tail, nxt, lev, anc,
                   toff, nlev, lo, hi, bits)
            merges += 1
            n_orphans += 1
            c = best
    roots = np.empty(u, np.int64)
    for t in range(u):
        roots[t] = _find(parent, t)
    return roots, merges, n_orphans


def graph_classes(data, tuples, weight, k, *, neighbours=10, window=10):
    """Classes of the tuples with ``weight > 0`` (module docstring, steps 1-3).

    Parameters
    ----------
    data : EncodedTable
    tuples : SDTuples
    weight : ndarray (u,) of int64
        Records of each tuple taking part (all, or one MAGVal cell's).
    k : int
    neighbours, window : int
        Graph neighbours kept per tuple, and the window of each sorted order.

    Returns
    -------
    picks, owner : ndarray of int64
        One entry per record: its tuple and its class (``0..classes-1``,
        numbered by first tuple in SD's order).
    n_classes, merges, orphans : int
    """
    nodes = np.flatnonzero(weight > 0)
    sub = SimpleNamespace(codes=tuples.codes[nodes], num=tuples.num[nodes],
                          weight=weight[nodes].astype(np.int64))
    args, big, big_width, seen = _summary(data, sub)
    head = np.arange(len(nodes), dtype=np.int64)
    nxt = np.full(len(nodes), -1, dtype=np.int64)
    tick = np.zeros(1, np.int64)
    state = args + (head, nxt, big, big_width, seen, tick)
    indptr, nbr = knn_graph(sub, state, neighbours=neighbours, window=window)
    size = sub.weight.copy()
    roots, merges, orphans = _agglomerate(indptr, nbr, size, k, *state)
    _, first, label = np.unique(roots, return_index=True, return_inverse=True)
    rank = np.empty(len(first), np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    label = rank[label.reshape(-1)]
    picks = np.repeat(nodes, sub.weight)
    owner = np.repeat(label, sub.weight)
    return picks, owner, len(first), merges, orphans
