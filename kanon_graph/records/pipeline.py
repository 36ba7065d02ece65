"""From initial MST clusters to final classes: split, adjacent merge, refine.

The data's trip is one way: graph -> MST -> split (:mod:`.partition`) ->
:func:`finish_partition` (this module: component split, graph-adjacent merge,
refinement) -> a ``Partition``. The paper's procedure (``split="paper"``)
does not pass here: it keeps its global NCP merge.
"""

from __future__ import annotations

import time

import numpy as np

from .adjacent import merge_adjacent
from .costs import ClassCost
from .merge import ClassSummaries, merge_small_classes
from .mst import KRUSKAL_MAX_NODES, minimum_spanning_edges, sparse_spanning_edges
from .neighbours import block_edges, component_pairs
from .cuts import cut_big_classes
from .pairs import resplit_pairs
from .refine import refine_classes
from .seed import get_start
from ..registry import Partition

__all__ = ["finish_partition", "finish_mst", "spanning_tree", "BATCH_ROUNDS", "PAIR_PASSES"]

BATCH_ROUNDS = 8
"""Refinement rounds of one move per class before moving tuple by tuple
(:func:`~kanon_graph.records.refine.refine_classes`; measured best on Adult)."""

PAIR_PASSES = 3
"""Passes of :func:`~kanon_graph.records.pairs.resplit_pairs` after the refinement
(0: none), each followed by refinement rounds when a pair was re-cut."""


def spanning_tree(data, graph, method, split, neighbours):
    """The tree the ``mst`` variants start from: ``(u, v, w, method, near)``.

    ``method="auto"`` is the exact Kruskal (up to
    :data:`~kanon_graph.records.mst.KRUSKAL_MAX_NODES` tuples) or Prim;
    ``"sparse"`` (``split="graph"`` / ``"feasible"`` with ``neighbours > 0``
    and per-attribute distances) is the MST of the near-tuple index's edges,
    the index built once, here, and returned as ``near`` for the merge
    (``None`` otherwise). Measured on Adult (k = 5): the sparse tree is
    0.7% heavier and the release's Loss 1% higher, for about 1 s less.
    """
    exact = split == "paper" or neighbours == 0 or graph.record_distance is not None
    if method == "sparse" and exact:
        raise ValueError("The 'method' parameter of the mst algorithm can be 'sparse' only with "
                         "split='graph' or 'feasible', neighbours > 0 and no record_distance. "
                         f"Got 'sparse' with split={split!r}, neighbours={neighbours}.")
    if method == "auto":
        method = "kruskal" if graph.n_nodes <= KRUSKAL_MAX_NODES else "prim"
    if method != "sparse":
        return (*minimum_spanning_edges(graph, method=method), method, None)
    near = block_edges(data, graph.codes, free=neighbours)
    return (*sparse_spanning_edges(graph, *near), method, near)


def finish_partition(data, graph, u, v, initial, model, *, cell_of_node=None, metric="loss",
                     refine=True, max_rounds=20, index=3, near=None, progress=None,
                     start="graph", rng=None):
    """Turn initial clusters of nodes into classes that satisfy ``model``.

    1. **Component split.** Every initial cluster of ``2k`` records or more
       (and at least two tuples) starts again from its single tuples, which
       are merged by :func:`~kanon_graph.records.adjacent.merge_adjacent`
       along the edges inside the cluster: the MST's, the near-tuple index's
       (:func:`~kanon_graph.records.neighbours.block_edges`) and, for small
       clusters, every pair of its tuples (a k-member-style pass).
    2. **Adjacent merge.** Classes still smaller than ``k`` (cut off by MAGVal
       cells) or failing l / t merge with a neighbouring class over all
       edges, least cost increase first; a class with no neighbour it may
       join falls back to paper 003's global least-NCP merge.
    3. **Refinement** (``refine=True``):
       :func:`~kanon_graph.records.refine.refine_classes` over the same edges.

    Parameters
    ----------
    data : EncodedTable
    graph : RecordGraph
    u, v : ndarray
        MST edges over the graph's nodes.
    initial : ndarray (u,)
        Initial cluster of every node (a feasible split, or one cluster).
    model : PrivacyModel
    cell_of_node : ndarray, optional
        MAGVal cells; every initial cluster lies in one.
    metric : {"loss", "gcp", "ncp", "discernibility"}
        What the merge and the refinement minimize.
    refine : bool
    max_rounds : int
        Refinement rounds at most.
    index : int
        The near-tuple index beside the MST links tuples that differ in at
        most this many attributes (:func:`~kanon_graph.records.neighbours.block_edges`
        ``free``); 0: MST edges only.
    near : tuple of ndarray, optional
        That index's edges ``(bu, bv)`` when already built (then ``index``
        only tells whether to use them).
    progress : callable, optional
        ``progress(text)`` once the merge is done, before the refinement.
    start : {"graph", "mondrian", "best"}
        ``"graph"``: steps 1-3 above. ``"mondrian"``: Mondrian's classes
        (:func:`~kanon_graph.baselines.mondrian.mondrian_seed`), small ones merged
        (step 2), then refined (step 3). ``"best"``: both, keeping the lower
        cost (ties: the graph's). Without refinement, with MAGVal cells or
        an l / t model the Mondrian start is not used.

    Returns
    -------
    labels : ndarray of int64 (u,)
        The class of every node.
    stats : dict
        ``component_splits`` (initial clusters split), ``merges``,
        ``global_merges``, ``refine_moves``, ``refine_splits``,
        ``refine_rounds``, ``loss_before_refine``, ``loss_after_refine``
        (the metric, normalized: for ``"loss"`` the arithmetic mean of the
        per-attribute ARX losses, which ``metrics["loss"]``, ARX's geometric
        combination ``prod(1 + l_a) ** (1 / d) - 1``, never exceeds),
        ``metric``, ``neighbour_edges``, ``start`` (the start kept),
        ``pair_moves`` (adjacent class pairs re-cut by
        :func:`~kanon_graph.records.pairs.resplit_pairs` after the
        refinement, when there are no MAGVal cells and no l / t).
    """
    if index and near is None:         # built once for every start and the pair moves
        near = block_edges(data, graph.codes, free=index)
    use_mondrian = start in ("mondrian", "best") and refine and cell_of_node is None \
        and not model.needs_sensitive
    if use_mondrian:        # Mondrian's start, registered by the baselines room
        seeded = get_start("mondrian")(data, graph.node_of, graph.n_nodes, model, rng)
        use_mondrian = seeded is not None
    if start == "mondrian" and use_mondrian:
        labels, stats = _finish(data, graph, u, v, seeded, model, None, metric, refine,
                                max_rounds, index, near, progress, mondrian=True)
        stats["start"] = "mondrian"
    else:
        labels, stats = _finish(data, graph, u, v, initial, model, cell_of_node, metric, refine,
                                max_rounds, index, near, progress)
        stats["start"] = "graph"
    if start == "best" and use_mondrian:
        other, more = _finish(data, graph, u, v, seeded, model, None, metric, refine,
                              max_rounds, index, near, None, mondrian=True)
        stats["loss_graph_start"] = stats["loss_after_refine"]
        stats["loss_mondrian_start"] = more["loss_after_refine"]
        if more["loss_after_refine"] < stats["loss_after_refine"] - 1e-12:
            labels, stats = other, {**more, "start": "mondrian",
                                    "loss_graph_start": stats["loss_after_refine"],
                                    "loss_mondrian_start": more["loss_after_refine"]}
    stats["pair_moves"] = 0
    if refine and PAIR_PASSES and max_rounds > 0 and cell_of_node is None \
            and not model.needs_sensitive:
        labels, stats = _pair_moves(data, graph, u, v, labels, model, metric, max_rounds, index,
                                    near, stats)
    return labels, stats


def _pair_moves(data, graph, u, v, labels, model, metric, max_rounds, index, near, stats):
    """:func:`~kanon_graph.records.pairs.resplit_pairs`, then refinement rounds if it moved."""
    started = time.perf_counter()
    cost = ClassCost(data, graph.codes, metric)
    eu, ev = _edges(data, graph, u, v, index, near)
    labels, cuts = cut_big_classes(cost, labels, graph.counts, model.k)
    labels, moves = resplit_pairs(cost, labels, graph.counts, eu, ev, model.k,
                                  max_passes=PAIR_PASSES)
    stats["pair_moves"] = int(moves)
    stats["class_cuts"] = int(cuts)
    if moves or cuts:
        labels, again = refine_classes(cost, labels, graph.counts, eu, ev, model.k,
                                       max_rounds=max_rounds, batch_rounds=0)
        stats["refine_moves"] += again["moves"]
        stats["refine_splits"] += again["splits"]
        stats["loss_after_refine"] = again["loss_after"]
    stats["pair_seconds"] = time.perf_counter() - started
    return labels.astype(np.int64), stats


def _edges(data, graph, u, v, index, near):
    """The MST's edges and the near-tuple index's (built again when not given)."""
    if index and near is not None:
        bu, bv = near
    elif index:
        bu, bv = block_edges(data, graph.codes, free=index)
    else:
        bu = bv = np.zeros(0, dtype=np.int64)
    return np.concatenate([u, bu]).astype(np.int64), np.concatenate([v, bv]).astype(np.int64)


def _finish(data, graph, u, v, initial, model, cell_of_node, metric, refine, max_rounds, index,
            near, progress, mondrian=False):
    """Steps 1-3 of :func:`finish_partition` from ``initial`` (a Mondrian start skips step 1)."""
    k = model.k
    counts = graph.counts
    cost = ClassCost(data, graph.codes, metric)
    if index and near is not None:
        bu, bv = near
    elif index:
        bu, bv = block_edges(data, graph.codes, free=index)
    else:
        bu = bv = np.zeros(0, dtype=np.int64)
    sizes = np.bincount(initial, weights=counts)
    tuples = np.bincount(initial)
    big = (sizes[initial] >= 2 * k) & (tuples[initial] >= 2) & (not mondrian)
    pu, pv = component_pairs(initial, big)
    eu = np.concatenate([u, bu, pu]).astype(np.int64)
    ev = np.concatenate([v, bv, pv]).astype(np.int64)
    inside = initial[eu] == initial[ev]
    start = np.where(big, np.arange(len(initial)) + int(initial.max()) + 1, initial)
    labels, merges = merge_adjacent(cost, start, counts, eu[inside], ev[inside], k,
                                    cell_of_node=cell_of_node)

    failing = None
    if model.needs_sensitive:
        def failing(lab):
            return model.failing(lab[graph.node_of], data, int(lab.max()) + 1)

    labels, more = merge_adjacent(cost, labels, counts, eu, ev, k, cell_of_node=cell_of_node,
                                  failing=failing)
    merges += more
    global_merges = 0
    small = np.bincount(labels, weights=counts) < k
    if failing is not None:
        small |= np.asarray(failing(labels), dtype=bool)
    if small.any() and labels.max() > 0:
        summary = ClassSummaries(data, graph.codes, labels, counts, cell_of_node)
        n_start = int(labels.max()) + 1

        def failing_final(final):
            flagged = np.zeros(n_start, dtype=bool)
            out = np.asarray(failing(final[labels]), dtype=bool)
            flagged[:len(out)] = out
            return flagged

        final, global_merges = merge_small_classes(
            summary, k, failing=None if failing is None else failing_final)
        labels = np.unique(final[labels], return_inverse=True)[1].reshape(-1)
    if progress is not None:
        progress(f"merge: {int(labels.max()) + 1} classes")
    stats = {"component_splits": int(np.unique(initial[big]).size), "merges": int(merges),
             "global_merges": int(global_merges), "metric": metric,
             "neighbour_edges": int(len(eu))}
    if refine:
        started = time.perf_counter()
        labels, info = refine_classes(cost, labels, counts, eu, ev, k, cell_of_node=cell_of_node,
                                      failing=failing, max_rounds=max_rounds,
                                      batch_rounds=BATCH_ROUNDS)
        stats.update(refine_moves=info["moves"], refine_splits=info["splits"],
                     refine_rounds=info["rounds"], refine_undone=info["undone"],
                     loss_before_refine=info["loss_before"],
                     loss_after_refine=info["loss_after"],
                     refine_seconds=time.perf_counter() - started)
    else:
        loss = cost.of_labels(labels, counts) / cost.norm
        stats.update(refine_moves=0, refine_splits=0, refine_rounds=0, refine_undone=0,
                     loss_before_refine=loss, loss_after_refine=loss)
    return labels.astype(np.int64), stats


def finish_mst(data, full, kept, graph, u, v, w, cluster_of, removed, model, method, split,
               cell_of_node, metric, refine, budget, times, report=None, start="graph", rng=None):
    """The ``feasible`` / ``graph`` variants of ``mst``: finish, gather stats, wrap.

    ``budget`` is ``(max_rounds, index, near)``; ``times`` the perf counters taken
    before the graph, after it and after the MST; ``kept`` the records left
    after boundary suppression (``None``: all of ``full``); ``report`` the
    run's :class:`~kanon_graph._progress.Reporter`, told of steps 4 (merge)
    and 5 (refinement) of 5.
    """
    merged = None if not report else (lambda text: report(4, 5, text))
    labels, info = finish_partition(data, graph, u, v, cluster_of, model,
                                    cell_of_node=cell_of_node, metric=metric, refine=refine,
                                    max_rounds=budget[0], index=budget[1], near=budget[2],
                                    progress=merged, start=start, rng=rng)
    if report:
        report(5, 5, "refined" if refine else "done")
    class_of = labels[graph.node_of]
    if kept is not None:
        class_of = np.full(full.n, -1, dtype=np.int64)
        class_of[kept] = labels[graph.node_of]
    t0, t1, t2 = times
    stats = {"mst_weight": float(w.sum()), "mst_method": method, "split": split,
             "distinct_tuples": graph.n_nodes, "edges_removed": removed, "cuts": removed,
             "initial_clusters": int(len(np.unique(cluster_of))), **info,
             "classes": int(labels.max()) + 1, "graph_seconds": t1 - t0,
             "mst_seconds": t2 - t1, "partition_seconds": time.perf_counter() - t2}
    return Partition(class_of, None, stats)
