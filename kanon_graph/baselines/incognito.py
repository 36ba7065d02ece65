"""Incognito: every k-anonymous full-domain generalization (LeFevre, DeWitt & Ramakrishnan 2005).

The baseline of paper 000 (Figures 4-5). It runs on the lattice engine of
:mod:`kanon_graph.lattice`: frequency sets come from its
:class:`~kanon_graph.lattice.FrequencyEngine` (with roll-up), results are
recorded in a :class:`~kanon_graph.lattice.StatusMap`, and the final node is
scored by its node metrics. A node over a subset ``Q`` of the
quasi-identifiers is the full node with every attribute outside ``Q`` at its
root: grouping by a root is grouping by nothing, so its frequency set is the
frequency set of ``Q``.

With ``respect_boundaries=True`` (generalization boundaries, Hussien et al.
2016) every node is a capped recoding (each value stops at its MAGVal) and
each attribute's levels end at its boundary level, the highest MAGVal level
among its values (:mod:`kanon_graph.lattice.capped`). An attribute outside
``Q`` then sits at its boundary level, which may still group by MAGVals;
the subset property still holds, because a node over ``Q`` is more specific
than each node over ``Q`` minus one attribute (that attribute raised to its
top) and capped recodings keep the generalization property.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..lattice import FrequencyEngine, StatusMap, node_metric, suppression_budget
from ..lattice.capped import boundary_levels, unreachable_error
from ..registry import K_L_T, Partition, register_algorithm

__all__ = ["incognito"]


def _grid(heights):
    """Every level vector of a sub-lattice, in mixed-radix order (last attribute fastest)."""
    if not heights:
        return np.zeros((1, 0), dtype=np.int64)
    axes = np.meshgrid(*[np.arange(h + 1) for h in heights], indexing="ij")
    return np.column_stack([a.reshape(-1) for a in axes]).astype(np.int64)


def _index(nodes, heights):
    key = np.zeros(len(nodes), dtype=np.int64)
    for j, h in enumerate(heights):
        key = key * (h + 1) + nodes[:, j]
    return key


def incognito(data, model, *, rng=None, suppression=None, metric="loss",
              respect_boundaries=False, progress=None):
    """All anonymous full-domain generalizations by subset and generalization pruning.

    For i = 1, ..., d (d quasi-identifiers), for every subset Q of i
    quasi-identifiers, the candidate nodes of Q are the level vectors whose
    every projection on a subset of i - 1 attributes was found anonymous
    (*subset property*: a table is not anonymous on Q if it is not on a
    subset of Q). Each candidate graph is searched bottom-up, from the least
    generalized node; a node above an anonymous node is anonymous without a
    check (*generalization property*), every other node's frequency set is
    computed by the engine (rolled up from a cached more specific one) and
    checked. After i = d the anonymous nodes of the full lattice are known
    exactly.

    Incognito returns all of them; one release needs one node. Among the
    *minimal* anonymous nodes (no anonymous direct specialization) the one
    with the best ``metric`` is chosen; ties go to the lowest height, then to
    the lexicographically smallest level vector.

    Parameters
    ----------
    data : EncodedTable
        Every quasi-identifier needs a hierarchy.
    model : PrivacyModel
        k, and l-diversity / t-closeness when asked: all satisfy both
        properties, which is all Incognito needs.
    rng : numpy.random.Generator
        Unused: Incognito is deterministic.
    suppression : float, optional
        Fraction of records that may be suppressed (default 0); a node is
        anonymous when the records of its failing classes fit the budget
        (still monotone on subsets and generalizations).
    metric : {"loss", "discernibility", "precision", "height"}
        How the minimal anonymous node is chosen (the lattice's node
        metrics; ARX's definitions).
    respect_boundaries : bool
        Never go past a MAGVal: search the capped lattice (values stop at
        their MAGVals; levels end at each attribute's boundary level) and
        release the capped recoding. When the boundaries make the model
        unreachable the error names the binding attributes.
    progress : None, bool or callable
        ``progress(done, total, text)`` after each subset of
        quasi-identifiers is searched (``2**d - 1`` of them) and once the
        minimal nodes are scored (see :mod:`kanon_graph._progress`).

    Returns
    -------
    Partition
        The chosen level vector, ``-1`` for suppressed records, and
        ``stats``: ``nodes_checked``, ``candidates`` and ``anonymous`` per
        subset size, ``minimal_nodes``, ``frequency_sets``, ``rollups``,
        ``metric_value`` and ``minimal_anonymous`` (the level vectors of the
        minimal anonymous nodes).

    References
    ----------
    LeFevre, DeWitt & Ramakrishnan, "Incognito: Efficient full-domain
    k-anonymity", SIGMOD 2005: the basic Incognito algorithm (Figure 8),
    the subset property (Theorem 3.1) and the generalization property.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.paper_003_table()
    >>> res = kg.anonymize(table, kg.datasets.paper_003_schema(), k=3,
    ...                    algorithm="incognito", metric="height")
    >>> res.levels, res.stats["minimal_nodes"]
    ({'gender': 0, 'age': 3, 'zip': 2}, 3)
    """
    respect_boundaries = bool(respect_boundaries)
    heights = list(boundary_levels(data, respect_boundaries))
    d = len(heights)
    budget = suppression_budget(suppression, data.records)
    fraction = budget / data.records if data.records else 0.0
    engine = FrequencyEngine(data, capped=respect_boundaries)
    full_top = np.asarray(heights, dtype=np.int64)
    from .._progress import reporter

    report = reporter(progress, "incognito")
    steps, step = 2 ** d, 0
    anonymous = {(): np.ones(1, dtype=bool)}
    checked, candidates_by_size, anonymous_by_size = 0, [], []
    for size in range(1, d + 1):
        current = {}
        n_candidates = n_anonymous = 0
        for subset in itertools.combinations(range(d), size):
            nodes = _grid([heights[j] for j in subset])
            candidate = np.ones(len(nodes), dtype=bool)
            for drop in range(size):                       # subset property
                rest = subset[:drop] + subset[drop + 1:]
                keep = [c for c in range(size) if c != drop]
                candidate &= anonymous[rest][_index(nodes[:, keep], [heights[j] for j in rest])]
            status = StatusMap(size)                       # generalization property
            for i in np.argsort(nodes.sum(axis=1), kind="stable"):
                if not candidate[i] or status.is_anonymous(nodes[i]):
                    continue
                full = full_top.copy()
                full[list(subset)] = nodes[i]
                checked += 1
                status.mark(nodes[i], engine.is_anonymous(tuple(int(v) for v in full), model,
                                                          fraction))
            current[subset] = candidate & status.anonymous_mask(nodes)
            n_candidates += int(candidate.sum())
            n_anonymous += int(current[subset].sum())
            step += 1
            report(step, steps, f"subset of {size}/{d} attributes, {checked} nodes checked")
        anonymous.update(current)
        candidates_by_size.append(n_candidates)
        anonymous_by_size.append(n_anonymous)

    # with every attribute in the subset, the StatusMap's frontier is the set of
    # minimal anonymous nodes of the full lattice
    minimal = status.minimal_anonymous
    if not minimal:
        raise unreachable_error("incognito", data, respect_boundaries,
                                engine.suppressed_records(tuple(heights), model), budget)
    scorer = node_metric(metric, data, budget, respect_boundaries)
    candidates = minimal
    if not scorer.monotone:
        # with suppression a more general node may lose less (fewer records
        # suppressed): score every anonymous node, i.e. every node above a minimal one
        grid = _grid(heights)
        above = np.zeros(len(grid), dtype=bool)
        for node in minimal:
            above |= (grid >= np.asarray(node)).all(axis=1)
        candidates = [tuple(int(v) for v in row) for row in grid[above]]
    best, best_key = None, None
    for node in candidates:
        fs = engine.frequency_set(node)
        failing = engine.failing_groups(node, model)
        # ties (all suppressed vs all generalized) go to the fewer suppressed records
        key = (scorer.value(node, fs, failing), int(fs.counts[failing].sum()), sum(node), node)
        if best_key is None or key < best_key:
            best, best_key = node, key
    report(steps, steps, f"{len(candidates)} candidate nodes scored")
    class_of, n_classes = engine.class_of(best)
    if getattr(model, "needs_sensitive", False):
        failing = np.asarray(model.suppressed_classes(class_of, data, n_classes), dtype=bool)
    else:
        failing = np.bincount(class_of, weights=data.weights, minlength=n_classes) < model.k
    class_of = np.where(failing[class_of], -1, class_of).astype(np.int64)
    stats = {
        "lattice_size": int(np.prod([h + 1 for h in heights])),
        "nodes_checked": checked,
        "candidates": candidates_by_size,
        "anonymous": anonymous_by_size,
        "minimal_nodes": len(minimal),
        "frequency_sets": engine.frequency_sets_computed,
        "rollups": engine.rollups,
        "metric": metric,
        "metric_value": float(best_key[0]),
        "minimal_anonymous": [list(node) for node in minimal],
        "boundary_levels": heights,
    }
    return Partition(class_of, best, stats, capped=respect_boundaries)


register_algorithm("incognito", incognito, recoding="global", models=K_L_T, needs_hierarchies=True,
                   supports_suppression=True, supports_boundaries=True, weighted=True,
                   description="LeFevre et al.'s Incognito full-domain search (2005)")
