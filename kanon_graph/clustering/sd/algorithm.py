"""SpatialDistance (SD), registered as ``algorithm="sd"``: the two variants, one path.

The data's trip is one way::

    tuples.sd_tuples            distinct tuples in SD's order (Figure 3, step 1)
      -> paper.paper_classes    Figure 3 steps 2-4, as the paper gives it, or
         graph.graph_classes    nearest-neighbour merging on a kNN record graph
      -> centres.SDClassCentres failing classes merged for l / t (if asked)
      -> Partition              class of every record, and the stats

``VARIANTS`` maps each name to its step-2 function, so a variant is chosen
by name: ``kg.anonymize(..., algorithm="sd", variant="paper")``.

References
----------
Sarrafi Aghdam & Sonehara, "On enhancing data utility in k-anonymization
for data without hierarchical taxonomies", IJCSI (2016): section 4.2,
Figure 3.
"""

from __future__ import annotations

import time

import numpy as np

from ...recoding.boundaries import cells_to_suppress, has_boundaries, magval_cells
from ...records.costs import METRICS
from ...records.failing import merge_failing_classes
from ...registry import K_L_T, Partition, register_algorithm
from .centres import SDClassCentres
from .graph import graph_classes
from .paper import paper_classes
from .tuples import records_to_classes, sd_tuples
from ...records.seed import STARTS, get_start

__all__ = ["VARIANTS", "spatial_distance"]


def _paper(data, model, tuples, weight, options):
    picks, owner, n_classes, leftovers = paper_classes(tuples, weight, int(model.k))
    return picks, owner, n_classes, {"leftovers": leftovers}


def _graph(data, model, tuples, weight, options):
    failing = None
    if model.needs_sensitive:
        def failing(class_of, n_classes):
            return model.failing(class_of, data, n_classes)
    return graph_classes(data, tuples, weight, int(model.k), failing=failing, **options)


VARIANTS = {"graph": _graph, "paper": _paper}
"""Variant name -> ``fn(data, model, tuples, weight, options) -> (picks, owner, classes, stats)``."""


def _positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"The {name!r} parameter of the sd algorithm must be a positive "
                         f"integer. Got {value!r}.")
    return int(value)


def spatial_distance(data, model, *, rng=None, suppression=None, respect_boundaries=False,
                     variant="graph", metric="loss", refine=True, max_rounds=20,
                     neighbours=10, window=10, start="best", progress=None):
    """SpatialDistance: put every record with its nearest records, hierarchy-free.

    Local recoding: the released values are ``[min-max]`` ranges and value
    sets (or, when the schema does give hierarchies, the core's lowest
    common ancestors).

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
        Classes are built for ``model.k``. With l-diversity or t-closeness
        asked for (not in the paper), each class that fails is then merged
        with its nearest class, in SD's distance between class centres
        (:mod:`.centres`), until every class passes
        (:func:`~kanon_graph.records.merge_failing_classes`; never across
        MAGVal cells). Without l / t the variant's result is unchanged.
    rng : numpy.random.Generator
        Unused: SD is deterministic.
    suppression : float, optional
        SD never suppresses, except whole MAGVal cells with boundaries.
    respect_boundaries : bool, default False
        Generalization boundaries (Hussien et al. 2016, Definitions 3-6):
        a class is allowed iff its members share their MAGVal node on every
        attribute (proof in :mod:`kanon_graph.recoding.boundaries`), so
        either variant runs cell by cell (the remaining table T of Figure 3
        read as the remaining records of the cell); numeric ranges stay
        those of the whole column. Cells that cannot hold ``k`` records are
        suppressed within the ``suppression`` budget, else a ``ValueError``
        names their MAGVals. Without marked MAGVals the result is the
        unconstrained one.
    variant : {"graph", "paper"}, default "graph"
        ``"paper"``: Figure 3 exactly as the paper gives it, with SD's
        contingency-table distances (:mod:`.paper`; quadratic in the
        records, cubic with many categorical values). ``"graph"``: clusters
        merged nearest-neighbour first, with a priority queue, on a
        k-nearest-neighbour record graph, by the least increase of the
        release's cost, then refined (:mod:`.graph`; about ``n log n``).
    metric : {"loss", "gcp", "ncp", "discernibility"}, default "loss"
        ``"graph"`` only: what the graph, the merging and the refinement
        minimize (ARX's Loss by default).
    refine : bool, default True
        ``"graph"`` only: run the refinement (tuples move between adjacent
        classes, large classes split, while the cost drops).
    max_rounds : int, default 20
        ``"graph"`` only: refinement rounds at most.
    neighbours, window : int, default 10
        ``"graph"`` only: graph neighbours kept per distinct tuple, and the
        window of the sorted orders they are drawn from.
    start : {"best", "graph", "mondrian"}, default "best"
        ``"graph"`` only: where the refinement starts -- the graph's
        nearest-neighbour merging, Mondrian's classes
        (:mod:`kanon_graph.records.seed`), or both, keeping the lower loss.
        The Mondrian start is skipped with boundaries, l / t or
        ``refine=False``.

    progress : None, bool or callable
        ``progress(done, total, text)`` after each MAGVal cell is clustered
        (the whole table is one cell without boundaries) and once the
        classes are joined (see :mod:`kanon_graph._progress`).

    Returns
    -------
    Partition
        ``class_of`` per record; ``stats`` holds ``variant``,
        ``sort_attribute``, ``distinct_tuples``, ``classes``, ``l_t_merges``
        (classes merged for l / t by SD's centre distance), ``seconds``, and
        per variant ``leftovers`` (paper: records placed by step 4) or
        (graph) ``merges``, ``orphans`` (small clusters placed by a scan),
        ``neighbour_edges``, ``refine_moves``, ``refine_splits``,
        ``loss_before_refine`` and ``loss_after_refine`` (the metric,
        normalized: mean per-attribute loss for ``"loss"``).

    Examples
    --------
    >>> import pandas as pd, kanon_graph as kg
    >>> table = pd.DataFrame({"age": [25, 27, 31, 45, 48, 52],
    ...                       "sex": ["F", "F", "M", "M", "F", "M"]})
    >>> schema = kg.Schema(quasi_identifiers=["age", "sex"])
    >>> res = kg.anonymize(table, schema, k=2, algorithm="sd", variant="paper")
    >>> res.table["age"].tolist()
    ['[25-27]', '[25-27]', '[31-45]', '[31-45]', '[48-52]', '[48-52]']

    References
    ----------
    Sarrafi Aghdam & Sonehara, "On enhancing data utility in
    k-anonymization for data without hierarchical taxonomies" (2016),
    section 4.2, Figure 3.
    """
    if variant not in VARIANTS:
        raise ValueError(f"The 'variant' parameter of the sd algorithm must be one of "
                         f"{sorted(VARIANTS)}. Got {variant!r}.")
    options = {}
    if variant == "graph":
        if metric not in METRICS:
            raise ValueError(f"The 'metric' parameter of the sd algorithm must be one of "
                             f"{list(METRICS)}. Got {metric!r}.")
        if not isinstance(refine, (bool, np.bool_)):
            raise ValueError(f"The 'refine' parameter of the sd algorithm must be True or "
                             f"False. Got {refine!r}.")
        options = {"neighbours": _positive_int(neighbours, "neighbours"),
                   "window": _positive_int(window, "window"),
                   "max_rounds": _positive_int(max_rounds, "max_rounds"),
                   "metric": metric, "refine": bool(refine)}
        if start not in STARTS:
            raise ValueError(f"The 'start' parameter of the sd algorithm must be one of "
                             f"{list(STARTS)}. Got {start!r}.")
        options["start"] = start
    elif start != "best":
        raise ValueError("The 'start' parameter of the sd algorithm applies to "
                         f"variant='graph' only; got variant={variant!r}.")
    elif not refine or metric != "loss" or max_rounds != 20 or neighbours != 10 \
            or window != 10:
        raise ValueError("The 'metric', 'refine', 'max_rounds', 'neighbours' and 'window' "
                         "parameters of the sd algorithm apply to variant='graph' only; "
                         f"got variant={variant!r}.")
    from ..._progress import reporter

    report = reporter(progress, "sd")
    start = time.perf_counter()
    k = int(model.k)
    tuples = sd_tuples(data)
    weight = tuples.weight
    drop = None
    if respect_boundaries:     # one cell (no mark) too: it is suppressed if it fails whole
        cells = magval_cells(data)
        drop = cells_to_suppress(data, model, cells, suppression, "sd")
    if drop is not None and (has_boundaries(data) or drop.any()):
        tuple_cell = np.where(drop, -1, cells)[tuples.rows[tuples.starts[:-1]]]
        groups = [weight * (tuple_cell == c) for c in np.unique(tuple_cell[tuple_cell >= 0])]
    else:
        groups = [weight]
        if options.get("start", "graph") != "graph" and options["refine"] \
                and not model.needs_sensitive:
            node_of = np.empty(data.n, dtype=np.int64)
            node_of[tuples.rows] = np.repeat(np.arange(len(weight)), np.diff(tuples.starts))
            options["start_labels"] = get_start("mondrian")(data, node_of, len(weight), model,
                                                            rng)
    none = np.zeros(0, dtype=np.int64)         # every cell suppressed: no class at all
    picks, owner, class_cell = [none], [none], [none]
    n_classes = 0
    stats = {}
    for g, group in enumerate(groups):  # one MAGVal cell at a time (all records without)
        got, got_owner, made, extra = VARIANTS[variant](data, model, tuples, group, options)
        picks.append(got)
        owner.append(got_owner + n_classes)
        class_cell.append(np.full(made, g))
        n_classes += made
        for key, value in extra.items():
            stats[key] = stats.get(key, 0) + value      # losses are shares of the table
        report(g + 1, len(groups) + 1, f"cell {g + 1}/{len(groups)}: {n_classes} classes")
    picks = np.concatenate(picks)
    owner = np.concatenate(owner)
    class_of = records_to_classes(tuples, picks, owner, data.n)
    merges = 0
    if model.needs_sensitive and n_classes > 1:
        cell = np.concatenate(class_cell)
        centres = SDClassCentres(tuples.cat, tuples.num, groups, picks, owner, cell, k)
        class_of, merges = merge_failing_classes(
            class_of, lambda labels: model.failing(labels, data, n_classes),
            centres.distances, cell=cell, on_merge=centres.merge)
    report(len(groups) + 1, len(groups) + 1, "classes joined")
    stats.update({"variant": variant, "sort_attribute": tuples.sort_attribute,
                  "distinct_tuples": len(weight), "classes": n_classes - merges,
                  "l_t_merges": merges, "seconds": time.perf_counter() - start})
    return Partition(class_of, None, stats)


register_algorithm("sd", spatial_distance, recoding="local", models=K_L_T, needs_hierarchies=False,
                   supports_suppression=True, supports_boundaries=True,
                   description="SpatialDistance: hierarchy-free clustering of nearest "
                               "records (Sarrafi Aghdam & Sonehara 2016)")
