"""MST-partition local recoding (paper 003): ``algorithm="mst"``.

References
----------
.. [003] Venkata Ramana & Valli Kumari, "Graph based local recoding for data
   anonymization", International Journal of Database Management Systems 5(6),
   2013: sections 4.2-4.4 and the algorithm of section 6.
"""

from __future__ import annotations

import time

import numpy as np

from ..recoding.boundaries import cells_to_suppress, magval_cells, subset_table
from ..registry import Partition, register_algorithm
from .costs import METRICS
from .graph import RecordGraph
from .merge import ClassSummaries, merge_small_classes
from .mst import HAVE_NUMBA
from .pipeline import finish_mst, spanning_tree
from .seed import STARTS

from .._jit import njit  # numba loads on a kernel's first call

__all__ = ["mst_local_recoding", "split_mst", "split_mst_feasible", "SPLITS"]

SPLITS = ("feasible", "graph", "paper")
"""The ``split`` variants of :func:`mst_local_recoding`."""


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


def mst_local_recoding(data, model, *, rng=None, suppression=None, distance=None,
                       record_distance=None, method="auto", split="graph", refine=None,
                       metric="loss", max_rounds=20, neighbours=3, respect_boundaries=False,
                       start="best", progress=None):
    """k-anonymity by partitioning the minimum spanning tree of the record graph.

    Three variants (``split``); the paper's exact procedure is ``"paper"``:

    1. Build the record graph over distinct quasi-identifier tuples with
       multiplicities (HDist by default, [003] Definitions 4-7) and its exact
       minimum spanning tree (section 4.2; :func:`minimum_spanning_edges`).
    2. Remove the ``floor(n/k) - 1`` longest tree edges (section 4.3, see
       :func:`split_mst` for the choice and the tie rule); each sub-tree is
       an initial cluster, generalized to its lowest common ancestors
       (section 4.4).
    3. While some class has fewer than ``k`` records, merge it into the class
       C' minimizing NCP(C u C') (section 6, lines 15-21;
       :func:`~kanon_graph.records.merge.merge_small_classes`). Classes that
       fail l-diversity / t-closeness, when asked for, are merged the same
       way afterwards.

    Clusters are sets of distinct tuples; a class's size is the sum of its
    tuples' multiplicities, so the k test and NCP are exactly those of the
    records. No record is suppressed (except, with boundaries, as below).

    ``split="feasible"`` replaces steps 2-3 by Laszlo & Mukherjee's feasible
    cuts (:func:`split_mst_feasible`), splits every component of ``2k``
    records or more again, merges what is left small with *adjacent*
    classes and refines (:func:`~kanon_graph.records.pipeline.finish_partition`).
    ``split="graph"`` (the default, the lowest loss measured on Adult) skips
    the cuts: single tuples are merged along the MST and a near-tuple index,
    least increase of ``metric`` first, then refined. Both minimize
    ``metric`` (ARX's Loss by default) instead of NCP.

    **Generalization boundaries** (``respect_boundaries=True``, Hussien et
    al. 2016, Definitions 3-6). A class may be released iff all its members
    share their MAGVal node on every attribute (the MAGVal *cells* of
    :mod:`kanon_graph.recoding.boundaries`, where this equivalence is
    proved). So: (a) cells that cannot satisfy the model even as one class
    are suppressed when the ``suppression`` budget allows, else a
    ``ValueError`` names their MAGVals; (b) the graph and MST are built over
    the remaining records; (c) after the usual split, every remaining tree
    edge whose endpoints lie in different cells is cut as well (a sub-tree
    spanning two cells would release a value above some member's MAGVal);
    (d) lines 15-21 merge each small class into the best *allowed* class,
    the least-NCP class of its own cell. Every cell has at least ``k``
    records, so every small class has an allowed partner. Without marked
    MAGVals this is exactly the unconstrained algorithm.

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
    rng : numpy.random.Generator
        Unused: the algorithm is deterministic.
    suppression : float, optional
        Ignored (nothing is suppressed).
    distance : str, callable or dict, optional
        Per-attribute distance(s), see :class:`RecordGraph`. Default:
        ``"hdist"`` (the paper's) with ``split="paper"``, ``"loss"``
        (:func:`~kanon_graph.records.distances.loss_distance`: the ARX Loss
        of the pair's lowest common ancestor, the cost the release is scored
        by) otherwise.
    record_distance : callable, optional
        A whole-record distance, see :class:`RecordGraph`.
    method : {"auto", "kruskal", "prim", "sparse"}
        Spanning-tree algorithm. ``"auto"``: the exact MST (Kruskal up to
        500 tuples, Prim above). ``"sparse"`` (not with ``split="paper"``,
        needs ``neighbours > 0`` and per-attribute distances): the MST of
        the near-tuple index's edges
        (:func:`~kanon_graph.records.mst.sparse_spanning_edges`), faster
        (Adult: about 1 s less) but slightly higher loss (+1% at k = 5).
    split : {"graph", "feasible", "paper"}
        ``"paper"``: remove the ``floor(n/k) - 1`` longest edges and merge
        small classes by NCP (paper 003, exact). ``"feasible"``: cut, longest
        first, only edges that leave ``k`` records on both sides
        (:func:`split_mst_feasible`, Laszlo & Mukherjee 2005), then split,
        merge and refine as above. ``"graph"`` (default): no cuts, least-cost
        merging of tuples along the MST and the near-tuple index, then refine.
    refine : bool, optional
        Run the refinement (:func:`~kanon_graph.records.refine.refine_classes`);
        default True except for ``split="paper"``, which refuses it.
    metric : {"loss", "gcp", "ncp", "discernibility"}
        What merging and refinement minimize (not used by ``"paper"``).
    max_rounds : int, default 20
        Refinement rounds at most (the result stays deterministic).
    neighbours : int, default 3
        The near-tuple index links tuples differing in at most this many
        attributes (0: the MST's edges only); more finds lower loss, slower.
    respect_boundaries : bool, default False
        Never release a value above a member's MAGVal (see above).
    start : {"best", "graph", "mondrian"}
        Not with ``split="paper"``. Where the refinement starts: the graph's
        least-cost merging (``"graph"``), Mondrian's classes (``"mondrian"``,
        :mod:`~kanon_graph.records.seed`), or both, keeping the lower loss
        (``"best"``, the default; the Mondrian start is skipped with
        boundaries, l / t or ``refine=False``).
    progress : None, bool or callable
        ``progress(done, total, text)`` after each phase: the record graph,
        the spanning tree, the split, the merge and (``"feasible"`` /
        ``"graph"``) the refinement (see :mod:`kanon_graph._progress`).

    Returns
    -------
    Partition
        ``stats`` (besides those of
        :func:`~kanon_graph.records.pipeline.finish_partition` for the other
        variants: ``cuts``, ``merges``, refinement moves and the loss before
        and after it): ``mst_weight``, ``mst_method``, ``distinct_tuples``,
        ``edges_removed``, ``initial_clusters``, ``merges``, ``classes``
        (before coinciding released tuples are joined), and phase timings.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.paper_003_table()
    >>> res = kg.anonymize(table, kg.datasets.paper_003_schema(), k=3, algorithm="mst",
    ...                    split="paper")
    >>> [sorted((c + 1).tolist()) for c in res.classes]
    [[1, 2, 3], [4, 5, 6, 7], [8, 9, 10]]
    >>> res.table[["gender", "age", "zip"]].drop_duplicates().values.tolist()
    [['Male', '[20-25]', '535280'], ['Female', '[20-40]', '5352**'], ['Male', '[36-40]', '53529*']]
    >>> res.stats["edges_removed"], res.stats["merges"], round(res.stats["mst_weight"], 2)
    (2, 0, 15.67)
    """
    if split not in SPLITS:
        raise ValueError(f"The 'split' parameter of the mst algorithm must be one of "
                         f"{list(SPLITS)}. Got {split!r}.")
    if refine is None:
        refine = split != "paper"
    if metric not in METRICS:
        raise ValueError(f"The 'metric' parameter of the mst algorithm must be one of "
                         f"{list(METRICS)}. Got {metric!r}.")
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, (int, np.integer)) \
            or max_rounds < 0:
        raise ValueError(f"The 'max_rounds' parameter of the mst algorithm must be an integer "
                         f">= 0. Got {max_rounds!r}.")
    if isinstance(neighbours, bool) or not isinstance(neighbours, (int, np.integer)) \
            or neighbours < 0:
        raise ValueError(f"The 'neighbours' parameter of the mst algorithm must be an integer "
                         f">= 0. Got {neighbours!r}.")
    if start not in STARTS:
        raise ValueError(f"The 'start' parameter of the mst algorithm must be one of "
                         f"{list(STARTS)}. Got {start!r}.")
    if distance is None:
        distance = "hdist" if split == "paper" else "loss"
    if split == "paper" and refine:
        raise ValueError("The 'refine' parameter of the mst algorithm must be False with "
                         "split='paper' (the paper's exact procedure). Got True.")
    full, kept, cells = data, None, None
    if respect_boundaries:
        cells = magval_cells(data)
        if cells.max(initial=0) > 0:
            drop = cells_to_suppress(data, model, cells, suppression, "mst")
            if drop.all():      # every MAGVal cell is suppressed: nothing left to cluster
                return Partition(np.full(full.n, -1, dtype=np.int64), None,
                                 {"split": split, "distinct_tuples": 0, "classes": 0})
            if drop.any():
                kept = np.flatnonzero(~drop)
                data, cells = subset_table(data, kept), cells[kept]
        else:
            cells = None
    from .._progress import reporter

    report = reporter(progress, "mst")
    steps = 4 if split == "paper" else 5
    t0 = time.perf_counter()
    graph = RecordGraph(data, distance, record_distance=record_distance)
    report(1, steps, "record graph")
    t1 = time.perf_counter()
    u, v, w, method, near = spanning_tree(data, graph, method, split, neighbours)
    report(2, steps, "spanning tree")
    t2 = time.perf_counter()
    if split == "paper":
        cluster_of, removed = split_mst(u, v, w, graph.n_nodes, graph.n_records, model.k)
    elif split == "feasible":
        cluster_of, removed = split_mst_feasible(u, v, w, graph.counts, model.k)
    else:
        cluster_of, removed = np.zeros(graph.n_nodes, dtype=np.int64), 0
    cell_of_node = None
    if cells is not None:
        cell_of_node = np.empty(graph.n_nodes, dtype=np.int64)
        cell_of_node[graph.node_of] = cells
        cluster_of = _cut_between_cells(u, v, cluster_of, cell_of_node)
    report(3, steps, "split")
    if split != "paper":
        return finish_mst(data, full, kept, graph, u, v, w, cluster_of, removed, model, method,
                          split, cell_of_node, metric, refine, (max_rounds, neighbours, near),
                          (t0, t1, t2), report, start=start, rng=rng)
    summary = ClassSummaries(data, graph.codes, cluster_of, graph.counts, cell_of_node)
    n_initial = len(summary.size)

    failing = None
    if model.needs_sensitive:
        def failing(final):
            class_of = final[cluster_of][graph.node_of]
            return model.failing(class_of, data, n_initial)

    final, merges = merge_small_classes(summary, model.k, failing=failing)
    report(4, steps, "merge")
    class_of = final[cluster_of][graph.node_of].astype(np.int64)
    if kept is not None:
        class_of = np.full(full.n, -1, dtype=np.int64)
        class_of[kept] = final[cluster_of][graph.node_of]
    t3 = time.perf_counter()
    stats = {
        "mst_weight": float(w.sum()),
        "mst_method": method,
        "split": split,
        "distinct_tuples": graph.n_nodes,
        "edges_removed": removed,
        "initial_clusters": n_initial,
        "merges": int(merges),
        "classes": int(len(np.unique(final))),
        "graph_seconds": t1 - t0,
        "mst_seconds": t2 - t1,
        "partition_seconds": t3 - t2,
    }
    return Partition(class_of, None, stats)


register_algorithm("mst", mst_local_recoding, recoding="local", needs_hierarchies=False,
                   supports_suppression=True, supports_boundaries=True,
                   description="MST-partition local recoding (Venkata Ramana & Valli Kumari 2013)")
