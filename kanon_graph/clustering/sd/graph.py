"""SD's clusters grown on a k-nearest-neighbour record graph (``variant="graph"``).

The paper's procedure (:mod:`.paper`) grows one class at a time and, for
every record it adds, rescans every remaining tuple (and, with many
categorical values, recomputes an ``m x m`` distance matrix per class): on
20,000 continuous records that is hours. This variant keeps SD's idea --
put each record with its nearest records, hierarchy-free if the schema has
no hierarchies -- but walks a sparse graph:

1. **The record graph, sparsified** (:func:`knn_graph`). Nodes are SD's
   distinct tuples (:mod:`.tuples`). Candidate neighbours come from ``d``
   sorted orders, one per quasi-identifier (that attribute first, the
   others after it in turn): each tuple meets the ``window`` tuples on
   either side in each order. Of these, each tuple keeps its
   ``neighbours`` nearest, the distance of two tuples being the metric's
   cost of releasing the two together (ARX's Loss by default: the numeric
   range over the column's, the share of categorical values, or with a
   hierarchy the lowest common ancestor's). The graph is made symmetric.
   ``O(u d w log(d w))`` for ``u`` tuples.
2. **Nearest-neighbour merging with a priority queue**
   (:func:`~kanon_graph.records.adjacent.merge_adjacent`, shared with
   ``mst``): while a cluster is smaller than ``k`` (or, asked for, fails
   l / t), the pair of graph-adjacent clusters with a small member whose
   union raises the total cost least is merged; a heap of edges with
   lazily refreshed costs, ``O(E log E)`` for ``E`` edges.
3. **Orphans.** A small cluster whose graph neighbours all lie inside it
   (rare) joins the cluster of least cost increase found by a scan of all
   clusters; ``stats["orphans"]`` counts them.
4. **Refinement** (``refine=True``,
   :func:`~kanon_graph.records.refine.refine_classes`, shared with ``mst``):
   tuples move between graph-adjacent classes, and classes of ``2k`` records
   or more split, while the total cost drops and k (l, t) still hold.

Identical tuples always share a class. With generalization boundaries the
procedure runs inside each MAGVal cell.

References
----------
Sarrafi Aghdam & Sonehara, "On enhancing data utility in k-anonymization
for data without hierarchical taxonomies", IJCSI (2016): section 4.2 (the
greedy clustering this follows), eq. (2)-(3) (NCP).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...records.adjacent import merge_adjacent
from ...records.costs import ClassCost, _set_cost
from ...records.cuts import cut_big_classes
from ...records.pairs import resplit_pairs
from ...records.pipeline import PAIR_PASSES
from ...records.refine import refine_classes
from ._contingency import njit

__all__ = ["graph_classes", "knn_graph"]


@njit(cache=True)
def _knn(orders, window, neighbours, codes, tables):
    """Each tuple's ``neighbours`` nearest among its sorted-order windows (edge arrays)."""
    d, u = orders.shape
    where = np.empty((d, u), np.int64)
    for a in range(d):
        for p in range(u):
            where[a, orders[a, p]] = p
    ones = np.ones(u, np.int64)
    pair = np.empty(2, np.int64)
    mark = np.full(u, -1, np.int64)
    cand = np.empty(2 * d * window, np.int64)
    cost = np.empty(2 * d * window)
    eu = np.empty(u * neighbours, np.int64)
    ev = np.empty(u * neighbours, np.int64)
    n_e = 0
    for t in range(u):
        n_c = 0
        pair[0] = t
        for a in range(d):
            p = where[a, t]
            for q in range(max(p - window, 0), min(p + window + 1, u)):
                v = orders[a, q]
                if v != t and mark[v] != t:
                    mark[v] = t
                    cand[n_c] = v
                    pair[1] = v
                    cost[n_c] = _set_cost(pair, 2, codes, ones, tables)
                    n_c += 1
        rank = np.argsort(cost[:n_c], kind="mergesort")   # nearest first, ties: order met
        for i in range(min(neighbours, n_c)):
            eu[n_e] = t
            ev[n_e] = cand[rank[i]]
            n_e += 1
    return eu[:n_e], ev[:n_e]


def knn_graph(tuples, cost, *, neighbours=10, window=10):
    """The sparsified record graph of step 1 (module docstring), as edge arrays.

    Parameters
    ----------
    tuples : SDTuples or namespace with ``codes`` (u, d)
    cost : ClassCost
        The metric's tables over the same nodes.
    neighbours, window : int

    Returns
    -------
    eu, ev : ndarray of int64
        Edges ``(eu[i], ev[i])``: ``ev[i]`` is one of the ``neighbours``
        nearest of ``eu[i]`` (the graph is read as undirected).
    """
    d = tuples.codes.shape[1]
    keys = [tuples.codes[:, a] for a in range(d)]    # numeric codes follow the values
    orders = np.empty((d, len(tuples.codes)), np.int64)
    for a in range(d):
        rotated = [keys[(a + j) % d] for j in range(d)]
        orders[a] = np.lexsort(rotated[::-1])        # attribute a first, the others in turn
    return _knn(orders, window, neighbours, cost.codes, cost.tables)


@njit(cache=True)
def _adopt_orphans(labels, counts, small, k, codes, tables):
    """Each cluster flagged ``small`` joins the cluster of least cost increase (a scan)."""
    n_classes = labels.max() + 1
    order = np.argsort(labels, kind="mergesort")
    start = np.zeros(n_classes + 1, np.int64)
    for x in range(labels.shape[0]):
        start[labels[x] + 1] += 1
    for c in range(n_classes):
        start[c + 1] += start[c]
    into = np.arange(n_classes)
    size = np.zeros(n_classes, np.int64)
    for x in range(labels.shape[0]):
        size[labels[x]] += counts[x]
    members = [order[start[c]:start[c + 1]].copy() for c in range(n_classes)]
    own = np.empty(n_classes)
    for c in range(n_classes):
        own[c] = _set_cost(members[c], members[c].shape[0], codes, counts, tables)
    adopted = 0
    for c in range(n_classes):
        if not small[c] or into[c] != c:
            continue
        while size[c] < k:
            best, best_cost = -1, np.inf
            for o in range(n_classes):
                if o == c or into[o] != o:
                    continue
                both = np.concatenate((members[c], members[o]))
                extra = _set_cost(both, both.shape[0], codes, counts, tables) - own[c] - own[o]
                if extra < best_cost:
                    best, best_cost = o, extra
            if best < 0:
                break
            members[best] = np.concatenate((members[best], members[c]))
            own[best] += own[c] + best_cost
            size[best] += size[c]
            into[c] = best
            adopted += 1
            c = best
    for c in range(n_classes):
        root = c
        while into[root] != root:
            root = into[root]
        into[c] = root
    return into[labels], adopted


def graph_classes(data, tuples, weight, k, *, metric="loss", refine=True, max_rounds=20,
                  neighbours=10, window=10, failing=None, start="graph", start_labels=None):
    """Classes of the tuples with ``weight > 0`` (module docstring, steps 1-4).

    Parameters
    ----------
    data : EncodedTable
    tuples : SDTuples
    weight : ndarray (u,) of int64
        Records of each tuple taking part (all, or one MAGVal cell's).
    k : int
    metric : {"loss", "gcp", "ncp", "discernibility"}
        What the graph, the merging and the refinement minimize.
    refine : bool
    max_rounds : int
        Refinement rounds at most.
    neighbours, window : int
        Graph neighbours kept per tuple, and the window of each sorted order.
    failing : callable, optional
        ``failing(class_of_record) -> bool per class`` (l / t), or None.
    start : {"graph", "mondrian", "best"}
        Where the refinement starts (with ``start_labels`` given): the
        merging above, ``start_labels`` (small classes merged first), or
        both, keeping the lower cost.
    start_labels : ndarray (u,), optional
        A class per tuple to start from (Mondrian's,
        :func:`~kanon_graph.baselines.mondrian.mondrian_seed`); ``None``: only
        the merging.

    Returns
    -------
    picks, owner : ndarray of int64
        One entry per record: its tuple and its class (``0..classes-1``,
        numbered by first tuple in SD's order).
    n_classes : int
    stats : dict
        ``merges``, ``orphans``, ``refine_moves``, ``refine_splits``,
        ``loss_before_refine``, ``loss_after_refine`` (the metric, normalized
        over the whole table), ``neighbour_edges``, ``mondrian_start`` (1 when
        the Mondrian start was kept), ``pair_moves`` (adjacent class pairs
        re-cut after the refinement, :mod:`kanon_graph.records.pairs`; not
        with l / t).
    """
    nodes = np.flatnonzero(weight > 0)
    counts = weight[nodes].astype(np.int64)
    codes = tuples.codes[nodes]
    cost = ClassCost(data, codes, metric)
    eu, ev = knn_graph(SimpleNamespace(codes=codes), cost, neighbours=neighbours, window=window)
    node_failing = None
    if failing is not None:
        record_node = np.repeat(np.arange(len(nodes)), counts)
        record_rows = np.concatenate([tuples.rows[tuples.starts[t]:tuples.starts[t + 1]]
                                      for t in nodes]) if len(nodes) else record_node

        def node_failing(labels):
            class_of = np.full(data.n, -1, dtype=np.int64)
            class_of[record_rows] = labels[record_node]
            return failing(class_of, int(labels.max()) + 1)

    use_start = start_labels is not None and refine and len(nodes) and start != "graph"
    runs = []
    if not use_start or start == "best":
        runs.append(np.arange(len(nodes)))
    if use_start:
        runs.append(np.unique(np.asarray(start_labels)[nodes], return_inverse=True)[1]
                    .reshape(-1).astype(np.int64))
    best = None
    for i, first_labels in enumerate(runs):
        got = _grow_and_refine(cost, first_labels, counts, eu, ev, k, node_failing, refine,
                               max_rounds, len(nodes))
        got[1]["mondrian_start"] = int(use_start and i == len(runs) - 1)
        if best is None or (got[1]["loss_after_refine"] < best[1]["loss_after_refine"] - 1e-12):
            best = got
    labels, stats = best
    stats["pair_moves"] = 0
    if refine and len(nodes) and node_failing is None and PAIR_PASSES:
        labels, cuts = cut_big_classes(cost, labels, counts, k)
        labels, moves = resplit_pairs(cost, labels, counts, eu, ev, k, max_passes=PAIR_PASSES)
        stats["pair_moves"] = moves
        stats["class_cuts"] = cuts
        if moves or cuts:
            labels, again = refine_classes(cost, labels, counts, eu, ev, k,
                                           max_rounds=max_rounds)
            stats["refine_moves"] += again["moves"]
            stats["refine_splits"] += again["splits"]
            stats["loss_after_refine"] = again["loss_after"]
    _, first, label = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    label = rank[label.reshape(-1)]
    return np.repeat(nodes, counts), np.repeat(label, counts), len(first), stats


def _grow_and_refine(cost, labels, counts, eu, ev, k, node_failing, refine, max_rounds, n_nodes):
    """Steps 2-4 of the module docstring from ``labels``: ``(labels, stats)``."""
    labels, merges = merge_adjacent(cost, labels, counts, eu, ev, k, failing=node_failing)
    small = np.bincount(labels, weights=counts) < k
    orphans = 0
    if small.any() and labels.max() > 0:
        labels, orphans = _adopt_orphans(labels, counts, small, k, cost.codes, cost.tables)
        labels = np.unique(labels, return_inverse=True)[1].reshape(-1).astype(np.int64)
    stats = {"merges": merges + orphans, "orphans": orphans, "neighbour_edges": len(eu)}
    if refine and n_nodes:
        labels, info = refine_classes(cost, labels, counts, eu, ev, k, failing=node_failing,
                                      max_rounds=max_rounds)
        stats.update(refine_moves=info["moves"], refine_splits=info["splits"],
                     loss_before_refine=info["loss_before"],
                     loss_after_refine=info["loss_after"])
    else:
        loss = cost.of_labels(labels, counts) / cost.norm if n_nodes else 0.0
        stats.update(refine_moves=0, refine_splits=0, loss_before_refine=loss,
                     loss_after_refine=loss)
    return labels, stats
