"""Refinement of a local recoding by moves between neighbouring classes.

The reusable last step of the graph algorithms (MST now, SD next). Its
interface is deliberately small:

* an encoded table's **cost tables** (:class:`~kanon_graph.records.costs.ClassCost`,
  built from the node code tuples and the ``metric``);
* an **initial class assignment of distinct tuples** (``labels``, one per
  node) with their **multiplicities** (``counts``);
* a **neighbour structure**: edges ``(eu, ev)`` between nodes (an MST, a
  nearest-neighbour graph, ...). Two classes are neighbours when an edge
  joins them;
* the **privacy model**: ``k``, the MAGVal ``cell_of_node`` (a class never
  spans two cells) and ``failing(labels) -> bool per class`` for l / t.

Each round computes, for every node, the best move of the node (with all its
records) from its class A to a neighbouring class B of the same cell that
keeps ``|A| >= k`` and lowers the total cost; then applies the best moves
first, at most one per class per round (so every applied gain is exact),
and, with ``failing``, undoes the moves whose classes then fail l / t (and
never tries those nodes again). Classes of ``2k`` records or more made of
several tuples are split when that lowers the cost (the least-cost
agglomeration of :mod:`~kanon_graph.records.adjacent` over all pairs of their
tuples). Rounds stop when no move helps, or at ``max_rounds`` / ``max_moves``
/ ``time_budget``. The total cost never increases.
"""

from __future__ import annotations

import time

import numpy as np

from .adjacent import _agglomerate, _compact
from .costs import _set_cost
from .mst import HAVE_NUMBA

from .._jit import njit  # numba loads on a kernel's first call

__all__ = ["refine_classes", "node_neighbours"]

GAIN = 1e-9
"""A move must lower the total cost by more than this."""


def node_neighbours(eu, ev, n_nodes):
    """CSR ``(ptr, adj)`` of the nodes joined to each node by an edge (both directions)."""
    src = np.concatenate([eu, ev]).astype(np.int64)
    dst = np.concatenate([ev, eu]).astype(np.int64)
    order = np.lexsort((dst, src))
    ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    np.add.at(ptr, src + 1, 1)
    return np.cumsum(ptr), dst[order]


def _summaries(order, start, codes, tables):
    """Per class and attribute: LCA level and a member code (hierarchy) or the range."""
    kind, nlev, width, off, anc = tables[0], tables[1], tables[2], tables[3], tables[4]
    values = tables[6]
    n_classes = start.shape[0] - 1
    d = kind.shape[0]
    lev = np.zeros((n_classes, d), dtype=np.int64)
    ref = np.zeros((n_classes, d), dtype=np.int64)
    lo = np.zeros((n_classes, d))
    hi = np.zeros((n_classes, d))
    for c in range(n_classes):
        if start[c + 1] == start[c]:
            continue
        for a in range(d):
            r = codes[order[start[c]], a]
            ref[c, a] = r
            if kind[a] == 0:
                m = width[a]
                level = 0
                for j in range(start[c] + 1, start[c + 1]):
                    x = codes[order[j], a]
                    while level < nlev[a] - 1 and \
                            anc[off[a] + level * m + x] != anc[off[a] + level * m + r]:
                        level += 1
                lev[c, a] = level
            elif kind[a] == 1:
                low = np.inf
                high = -np.inf
                for j in range(start[c], start[c + 1]):
                    v = values[off[a] + codes[order[j], a]]
                    low = min(low, v)
                    high = max(high, v)
                lo[c, a] = low
                hi[c, a] = high
    return lev, ref, lo, hi


def _plus_cost(b, x, lev, ref, lo, hi, order, start, size, codes, counts, tables):
    """Cost of class ``b`` with node ``x`` added, from ``b``'s summaries: O(d H)."""
    kind, nlev, width, off, anc, cell, values, scale, settab, setoff, mark, mode = tables
    total_size = size[b] + counts[x]
    if mode == 1:
        return float(total_size) * float(total_size)
    total = 0.0
    for a in range(kind.shape[0]):
        cx = codes[x, a]
        if kind[a] == 0:
            m = width[a]
            r = ref[b, a]
            level = lev[b, a]
            while level < nlev[a] - 1 and \
                    anc[off[a] + level * m + cx] != anc[off[a] + level * m + r]:
                level += 1
            total += cell[off[a] + level * m + r]
        elif kind[a] == 1:
            v = values[off[a] + cx]
            total += (max(hi[b, a], v) - min(lo[b, a], v)) * scale[a]
        else:
            mark[0] += 1
            stamp = mark[0]
            distinct = 0
            for j in range(start[b], start[b + 1]):
                slot = 1 + off[a] + codes[order[j], a]
                if mark[slot] != stamp:
                    mark[slot] = stamp
                    distinct += 1
            if mark[1 + off[a] + cx] != stamp:
                distinct += 1
            total += settab[setoff[a] + distinct]
    return total * total_size


def _best_moves_py(labels, counts, ptr, adj, cell, k, tabu, active, best, target, codes, tables):
    """Per node: the gain (lower total cost) of its best move and the target class.

    The candidate classes of node ``x`` are the classes of its neighbours.
    Only ``active`` nodes are evaluated (``best`` / ``target`` are updated in
    place): a node whose class and neighbours' classes did not change keeps
    its best move.
    """
    u = labels.shape[0]
    n_classes = 0
    for x in range(u):
        n_classes = max(n_classes, labels[x] + 1)
    order = np.argsort(labels, kind="mergesort")
    start = np.zeros(n_classes + 1, dtype=np.int64)
    for x in range(u):
        start[labels[x] + 1] += 1
    for c in range(n_classes):
        start[c + 1] += start[c]
    size = np.zeros(n_classes, dtype=np.int64)
    for x in range(u):
        size[labels[x]] += counts[x]
    own = np.zeros(n_classes)
    for c in range(n_classes):
        own[c] = _set_cost(order[start[c]:start[c + 1]], start[c + 1] - start[c], codes,
                           counts, tables)
    lev, ref, lo, hi = _summaries(order, start, codes, tables)
    buf = np.empty(u + 1, dtype=np.int64)
    seen = np.full(n_classes, -1, dtype=np.int64)
    for x in range(u):
        if active[x]:                   # even a node alone in its class: its old move is stale
            best[x] = 0.0
            target[x] = -1
    for c in range(n_classes):
        m = start[c + 1] - start[c]
        if m < 2:
            continue
        for i in range(m):
            x = order[start[c] + i]
            if not active[x]:
                continue
            if tabu[x] or size[c] - counts[x] < k:
                continue
            minus = np.nan
            for q in range(ptr[x], ptr[x + 1]):
                b = labels[adj[q]]
                if b == c or seen[b] == x or cell[b] != cell[c]:
                    continue
                seen[b] = x
                if minus != minus:
                    n = 0
                    for j in range(m):
                        if j != i:
                            buf[n] = order[start[c] + j]
                            n += 1
                    minus = _set_cost(buf, n, codes, counts, tables) - own[c]
                # adding x to b costs at least counts[x] times b's cost per record (cells
                # only widen), so b cannot beat the best move found when even that fails
                bound = -minus - counts[x] * own[b] / size[b]
                if bound + 1e-9 * (1.0 + own[b]) < max(best[x] - GAIN, GAIN):
                    continue
                plus = _plus_cost(b, x, lev, ref, lo, hi, order, start, size, codes, counts,
                                  tables)
                gain = -(minus + plus - own[b])
                if gain > best[x] + GAIN or (gain > GAIN and target[x] >= 0
                                             and abs(gain - best[x]) <= GAIN and b < target[x]):
                    best[x] = gain
                    target[x] = b


if HAVE_NUMBA:
    _summaries = njit(cache=True)(_summaries)
    _plus_cost = njit(cache=True)(_plus_cost)
    _best_moves = njit(cache=True)(_best_moves_py)
else:  # pragma: no cover
    _best_moves = _best_moves_py


SPLIT_PAIRS = 2000
"""Largest number of tuple pairs a class split considers (larger classes use ``eu, ev``)."""


def _split_parts_py(local, members, codes, counts, tables):
    """Compact ``local`` (labels of ``members``) in place; return (parts, cost of the parts).

    Parts are numbered by first appearance; their total cost is the sum of
    :func:`~kanon_graph.records.costs.set_cost` over them.
    """
    m = local.shape[0]
    rename = np.full(m, -1, dtype=np.int64)
    parts = 0
    for i in range(m):
        if rename[local[i]] < 0:
            rename[local[i]] = parts
            parts += 1
        local[i] = rename[local[i]]
    buf = np.empty(m, dtype=np.int64)
    total = 0.0
    for p in range(parts):
        n = 0
        for i in range(m):
            if local[i] == p:
                buf[n] = members[i]
                n += 1
        total += _set_cost(buf, n, codes, counts, tables)
    return parts, total


_split_parts = njit(cache=True)(_split_parts_py) if HAVE_NUMBA else _split_parts_py


def _split_big(labels, counts, k, codes, tables, tried, eu, ev, candidates=None):
    """Split every class of >= 2k records and >= 2 tuples whose least-cost split is cheaper.

    Only the classes in ``candidates`` (all when ``None``) are looked at: a
    class whose members did not change since it was last tried would split
    the same way. ``tried`` holds the member sets already tried without
    success. Returns the labels of the classes split and created.
    """
    changed = []
    sizes = np.bincount(labels, weights=counts)
    nodes_per = np.bincount(labels)
    big = (sizes >= 2 * k) & (nodes_per >= 2)
    if candidates is not None:
        keep = np.zeros(len(big), dtype=bool)
        keep[np.asarray(candidates, dtype=np.int64)] = True
        big &= keep
    if not big.any():
        return changed
    order = np.argsort(labels, kind="stable")
    start = np.concatenate([[0], np.cumsum(nodes_per)])
    local_of = None
    for c in np.flatnonzero(big):
        members = order[start[c]:start[c + 1]]
        key = members.tobytes()
        if key in tried or counts[members].max() >= sizes[c] - k + 1:
            continue                                   # one tuple leaves no room for a second class
        tried.add(key)
        m = len(members)
        if m * (m - 1) // 2 <= SPLIT_PAIRS:
            i, j = _pairs(m)
        else:
            if local_of is None:
                local_of = np.full(len(labels), -1, dtype=np.int64)
            local_of[members] = np.arange(m)
            inside = (local_of[eu] >= 0) & (local_of[ev] >= 0)
            i, j = local_of[eu[inside]], local_of[ev[inside]]
            local_of[members] = -1
        sub_codes = codes[members]
        sub_counts = counts[members]
        local, _ = _agglomerate(np.arange(m, dtype=np.int64), i, j, np.zeros(m, dtype=np.bool_),
                                int(k), np.zeros(m, dtype=np.int64), sub_codes, sub_counts,
                                tables)
        n_parts, parts = _split_parts(local, np.arange(m, dtype=np.int64), sub_codes,
                                      sub_counts, tables)
        if n_parts < 2 or np.bincount(local, weights=sub_counts).min() < k:
            continue
        whole = _set_cost(np.arange(m, dtype=np.int64), m, sub_codes, sub_counts, tables)
        if parts < whole - GAIN:
            top = labels.max() + 1
            labels[members] = np.where(local == 0, c, top + local - 1)
            changed += [c] + list(range(top, top + n_parts - 1))
    return changed


_PAIRS = {}


def _pairs(m):
    """``np.triu_indices(m, 1)`` as int64, cached (classes are split again and again)."""
    if m not in _PAIRS:
        i, j = np.triu_indices(m, 1)
        _PAIRS[m] = (i.astype(np.int64), j.astype(np.int64))
    return _PAIRS[m]


def refine_classes(cost, labels, counts, eu, ev, k, *, cell_of_node=None, failing=None,
                   max_rounds=100, max_moves=None, time_budget=None):
    """Local search over class assignments of distinct tuples (see the module docstring).

    Parameters
    ----------
    cost : ClassCost
        Cost tables of the metric to lower.
    labels : ndarray of int (u,)
        Initial class of every node; every class must already satisfy the model.
    counts : ndarray of int (u,)
        Records per node.
    eu, ev : ndarray of int (E,)
        Neighbour structure over nodes.
    k : int
    cell_of_node : ndarray (u,), optional
        MAGVal cells: a node only moves to a class of its own cell.
    failing : callable, optional
        ``failing(labels) -> bool per class``; moves that make a class fail
        are undone.
    max_rounds, max_moves : int, optional
        Budgets in rounds and in applied moves.
    time_budget : float, optional
        Seconds; checked between rounds.

    Returns
    -------
    labels : ndarray of int64 (u,)
        Classes numbered by their smallest node.
    stats : dict
        ``moves``, ``splits``, ``rounds``, ``undone`` and the normalized
        ``loss_before`` / ``loss_after`` (total cost / ``cost.norm``: the
        mean per-attribute ARX Loss, GCP, or the discernibility).

    Examples
    --------
    >>> import kanon_graph as kg, numpy as np
    >>> from kanon_graph.records import RecordGraph, minimum_spanning_edges
    >>> from kanon_graph.records.costs import ClassCost
    >>> data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    >>> g = RecordGraph(data)
    >>> u, v, w = minimum_spanning_edges(g)
    >>> start = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 2])   # r7 put with r8-r10
    >>> labels, stats = refine_classes(ClassCost(data, g.codes), start, g.counts, u, v, 3)
    >>> labels.tolist(), stats["moves"], stats["loss_after"] < stats["loss_before"]
    ([0, 0, 0, 1, 1, 1, 1, 2, 2, 2], 1, True)
    """
    started = time.perf_counter()
    labels = _compact(np.asarray(labels, dtype=np.int64))
    counts = np.asarray(counts, dtype=np.int64)
    eu, ev = np.asarray(eu, dtype=np.int64), np.asarray(ev, dtype=np.int64)
    codes, tables = cost.codes, cost.tables
    node_cell = (np.zeros(len(labels), dtype=np.int64) if cell_of_node is None
                 else np.asarray(cell_of_node, dtype=np.int64))
    tabu = np.zeros(len(labels), dtype=np.bool_)
    active = np.ones(len(labels), dtype=np.bool_)
    gain = np.zeros(len(labels))
    target = np.full(len(labels), -1, dtype=np.int64)
    tried = set()
    last_split = np.zeros(0, dtype=np.int64)
    ptr, adj = node_neighbours(eu, ev, len(labels))
    before = cost.of_labels(labels, counts) / cost.norm
    moves = splits = undone = rounds = 0
    while rounds < max_rounds:
        if time_budget is not None and time.perf_counter() - started > time_budget:
            break
        if max_moves is not None and moves >= max_moves:
            break
        rounds += 1
        n_classes = int(labels.max()) + 1
        cell = np.zeros(n_classes, dtype=np.int64)
        cell[labels] = node_cell
        _best_moves(labels, counts, ptr, adj, cell, int(k), tabu, active, gain, target, codes,
                    tables)
        touched = np.zeros(n_classes, dtype=bool)
        applied = []
        for x in np.lexsort((np.arange(len(gain)), -gain)):
            if gain[x] <= GAIN or (max_moves is not None and moves + len(applied) >= max_moves):
                break
            a, b = labels[x], target[x]
            if touched[a] or touched[b]:
                continue
            touched[a] = touched[b] = True
            applied.append((x, a, b))
        for x, a, b in applied:
            labels[x] = b
        if failing is not None and applied:
            bad = np.asarray(failing(labels), dtype=bool)
            for x, a, b in applied:
                if bad[a] or bad[b]:
                    labels[x] = a
                    tabu[x] = True
                    undone += 1
        moves += len(applied)
        split_now = []
        if failing is None:
            split_now = _split_big(labels, counts, k, codes, tables, tried, eu, ev,
                                   None if rounds == 1 else
                                   np.concatenate([touched.nonzero()[0], last_split]))
            last_split = np.asarray(split_now, dtype=np.int64)
            splits += sum(1 for c in split_now if c < n_classes)
        if not applied and not split_now:
            break
        changed = np.zeros(max(n_classes, int(labels.max()) + 1), dtype=bool)
        changed[touched.nonzero()[0]] = True
        changed[np.asarray(split_now, dtype=np.int64)] = True
        hit = changed[labels]
        active = hit.copy()
        active[eu[hit[ev]]] = True
        active[ev[hit[eu]]] = True
    labels = _compact(labels)
    moves -= undone
    after = cost.of_labels(labels, counts) / cost.norm
    return labels, {"moves": int(moves), "splits": int(splits), "rounds": int(rounds),
                    "undone": int(undone), "loss_before": float(before),
                    "loss_after": float(after),
                    "refine_seconds": time.perf_counter() - started}
