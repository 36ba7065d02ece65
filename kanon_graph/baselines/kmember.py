"""Greedy k-member clustering (Byun, Kamra, Bertino & Li 2007).

The baseline of paper 003 (Figures 7-9) and the origin of the information
loss IL that paper 001 uses. It walks the record distance graph
(:class:`~kanon_graph.records.RecordGraph`): records with the same
quasi-identifier tuple are one node with a multiplicity, so the work per step
is proportional to the number of distinct tuples, not of records.

A reference implementation of the method as published, not a fast one: every
one of the n / k clusters starts with a scan of the remaining tuples for the
furthest record and grows by k - 1 scans for the cheapest one (pruned by a
pair-cost bound, :mod:`~kanon_graph.baselines._kmember_kernels`), so a run
costs O(n u d) in the worst case for n records, u distinct tuples and d
attributes -- quadratic when the tuples are all distinct, as on continuous
columns. On 20,000 such rows that is several times mondrian's
time (docs/performance.md, "Continuous columns"); use ``mondrian``
(O(n log n)) for large tables with continuous quasi-identifiers.
"""

from __future__ import annotations

import numpy as np

from ..records import RecordGraph
from ..recoding.boundaries import cells_to_suppress, has_boundaries, magval_cells
from ..registry import Partition, register_algorithm
from ._cost_kernels import leaf_tables
from ..records._groups import GroupCoster, GroupStates
from ._kmember_kernels import PackedDistances, cluster

__all__ = ["k_member"]


def k_member(data, model, *, rng, suppression=None, distance="hdist",
             respect_boundaries=False, progress=None):
    """Build clusters of exactly k records, each grown greedily by least information loss.

    Following Byun et al.'s Figure 2: pick a random record r (from ``rng``);
    while at least k records are left, let r be the remaining record
    furthest from the previous r (distances of the record distance graph),
    start a cluster with it, and add the remaining record whose addition
    gives the cluster the least information loss IL (section 4.1; numeric
    span / range, categorical LCA height / tree height, times the size) until
    the cluster holds k records. The fewer than k records left at the end
    each join the cluster whose IL grows least.

    Records with identical quasi-identifiers are one node of the graph: once
    the best record's tuple is chosen, further copies of it add nothing to
    IL and are taken together (up to k), which gives the same clusters as
    taking them one by one, up to ties. Ties go to the node seen first in the
    table.

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
        Only k is enforced; l-diversity / t-closeness are refused.
    rng : numpy.random.Generator
        Chooses the first record.
    distance : str or dict
        The per-attribute distance of the record graph used to find the
        furthest record (default ``"hdist"``, paper 003's HDist, which orders
        pairs like Byun's distance on categorical attributes); see
        :class:`~kanon_graph.records.RecordGraph`.
    suppression : float, optional
        Budget for suppressing MAGVal cells with boundaries (else unused).
    respect_boundaries : bool, default False
        Generalization boundaries (Hussien et al. 2016, Definitions 3-6):
        only *allowed* additions, i.e. a cluster grows only with records of
        its seed's MAGVal cell, seeds are taken only from cells with at least
        k records left, and a leftover record joins the best cluster of its
        own cell (a class is allowed iff its members share their MAGVal node
        on every attribute, proof in :mod:`kanon_graph.recoding.boundaries`).
        Cells that cannot hold ``k`` records are suppressed within the
        budget, else a ``ValueError`` names their MAGVals.

    progress : None, bool or callable
        ``progress(done, 3, text)`` after the record graph, after the
        clusters are formed (one compiled loop) and after the left-over
        records are placed (see :mod:`kanon_graph._progress`).

    Returns
    -------
    Partition
        ``stats``: ``clusters``, ``first_record``, ``distinct_tuples``.

    References
    ----------
    Byun, Kamra, Bertino & Li, "Efficient k-anonymization using clustering
    techniques", DASFAA 2007: the greedy k-member algorithm (Figure 2),
    information loss (Definition 4), ``find_best_record`` and
    ``find_best_cluster``. Cost O(n^2 / k) distance and IL evaluations.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.paper_003_table()
    >>> res = kg.anonymize(table, kg.datasets.paper_003_schema(), k=3,
    ...                    algorithm="k-member", seed=0)
    >>> sorted(len(c) for c in res.classes)
    [3, 3, 4]
    """
    if model.needs_sensitive:
        raise ValueError("k-member enforces k-anonymity only; it cannot meet the requested "
                         "l-diversity or t-closeness -- use another algorithm")
    from .._progress import reporter

    report = reporter(progress, "k-member")
    k = model.k
    graph = RecordGraph(data, distance=distance)
    report(1, 3, "record graph")
    coster = GroupCoster(data, cost="byun")
    nodes = coster.singletons(graph.first_record)
    remaining = graph.counts.copy()
    order = np.argsort(graph.node_of, kind="stable")
    starts = np.concatenate([[0], np.cumsum(graph.counts)])
    class_of = np.full(data.n, -1, dtype=np.int64)
    cell = np.zeros(graph.n_nodes, dtype=np.int64)      # MAGVal cell of every tuple
    left_in = np.array([data.n])                        # records left per cell
    if respect_boundaries and has_boundaries(data):
        cells = magval_cells(data)
        cells[cells_to_suppress(data, model, cells, suppression, "k-member")] = -1
        cell = cells[graph.first_record]
        remaining[cell < 0] = 0
        cell = np.maximum(cell, 0)
        left_in = np.bincount(cell, weights=remaining, minlength=cells.max() + 1).astype(int)
    first = int(rng.integers(data.n))
    n_clusters, lo, hi, level, leaf, size, cluster_cell, taken = cluster(
        k, int(graph.node_of[first]), graph.codes, *PackedDistances(graph).args(),
        np.ascontiguousarray(nodes.lo), np.ascontiguousarray(nodes.leaf),
        *leaf_tables(coster, nodes.leaf), np.ascontiguousarray(coster.spans, dtype=float),
        remaining, cell, left_in, order, starts, class_of)
    report(2, 3, f"{int(n_clusters)} clusters")
    if remaining.any():
        # the fewer than k records left each join the cluster whose IL grows least
        states = GroupStates(lo[:n_clusters], hi[:n_clusters], level[:n_clusters],
                             leaf[:n_clusters], size[:n_clusters])
        cluster_cell = cluster_cell[:n_clusters]
        rest = np.concatenate([order[starts[v] + taken[v]:starts[v + 1]]
                               for v in np.flatnonzero(remaining > 0)])
        for row in np.sort(rest):
            one = coster.singletons([row])
            merged = coster.merge(one, states)
            growth = coster.loss(merged) - coster.loss(states)
            growth[cluster_cell != cell[graph.node_of[row]]] = np.inf
            best = int(np.argmin(growth))
            states.lo[best], states.hi[best] = merged.lo[best], merged.hi[best]
            states.level[best] = merged.level[best]
            states.size[best] += 1
            class_of[row] = best
    report(3, 3, "left-over records placed")
    return Partition(class_of, None, {"clusters": int(n_clusters), "first_record": first,
                                      "distinct_tuples": graph.n_nodes})


register_algorithm("k-member", k_member, recoding="local", models=("k",), supports_boundaries=True,
                   supports_suppression=True,
                   description="Byun et al.'s greedy k-member clustering (2007)")
