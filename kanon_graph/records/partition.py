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
from ..registry import K_L_T, Partition, register_algorithm
from ._split import _cut_between_cells, split_mst, split_mst_feasible
from .costs import METRICS
from .graph import RecordGraph
from .merge import ClassSummaries, merge_small_classes
from .pipeline import finish_mst, spanning_tree
from .seed import STARTS

__all__ = ["mst_local_recoding", "split_mst", "split_mst_feasible", "SPLITS"]

SPLITS = ("feasible", "graph", "paper")
"""The ``split`` variants of :func:`mst_local_recoding`."""


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
        # one cell too (no mark, or every value under one): a cell that fails the model
        # as a whole is suppressed, within the budget, whatever the number of cells
        cells = magval_cells(data)
        single = cells.max(initial=0) == 0
        drop = cells_to_suppress(data, model, cells, suppression, "mst")
        if drop.all():      # every MAGVal cell is suppressed: nothing left to cluster
            return Partition(np.full(full.n, -1, dtype=np.int64), None,
                             {"split": split, "distinct_tuples": 0, "classes": 0})
        if drop.any():
            kept = np.flatnonzero(~drop)
            data, cells = subset_table(data, kept), cells[kept]
        if single:          # one cell: no edge to cut between cells
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


register_algorithm("mst", mst_local_recoding, recoding="local", models=K_L_T,
                   needs_hierarchies=False,
                   supports_suppression=True, supports_boundaries=True,
                   description="MST-partition local recoding (Venkata Ramana & Valli Kumari 2013)")
