"""``stepwise``: local recoding by full-domain steps, hierarchy cuts and graph moves.

The algorithm (``kg.anonymize(..., algorithm="stepwise")``) runs three steps:

1. **Full-domain steps** (:mod:`._steps`), the scheme of ARX's local
   recoding: release the records that form classes satisfying the privacy
   model at the node of least generalization loss that releases at least
   :data:`~._steps.STEP` of the records, then do the same with the records
   left, until none is left that could be released; the few left over join
   the class they widen least where the model still holds
   (:func:`~._leftovers.place_leftovers`).
2. **Hierarchy cuts** (:mod:`._split`): a class of ``2k`` records or more is
   cut into the children of its common ancestor that hold ``k`` records
   (and satisfy the model), while that lowers its loss.
3. **Graph moves** (:mod:`._polish`): single distinct tuples move between
   neighbouring classes of the record graph while that lowers the loss and
   both classes still satisfy the model.

Every privacy model the library checks is taken: k-anonymity; distinct,
entropy and recursive (c, l)-diversity (Machanavajjhala et al. 2007);
t-closeness with the equal, hierarchical or ordered distance the model
takes (Li, Li & Venkatasubramanian 2007), each class measured against the
whole table's distribution, which is known before the first step; the
missing-sensitive rule. A class is accepted when the model holds on it
(:class:`~kanon_graph.privacy.ClassCheck`, from the classes' sensitive
histograms). The algorithm runs on the whole table, never in shards (its
steps count distinct tuples); with generalization boundaries it runs inside
each MAGVal cell.

It counts records by weight everywhere (``data.weights``: the step searches'
frequency sets, the cuts' class and child sizes, the left-over units and the
suppression budget, the graph moves' node multiplicities, the model's
histograms), and is registered ``weighted``: the facade runs it on the
table's distinct quasi-identifier tuples (with l or t, the distinct
(quasi-identifier, sensitive) tuples), each weighted by its records
(:mod:`kanon_graph.pipeline.tuples`), and spreads the release back to the rows; so
every copy of a tuple is released alike, and a Dask table's counted tuples
are anonymized without one row per record (:mod:`kanon_graph.scale.dask_input`).

Every class is released at the lowest common ancestors of its values
(:func:`kanon_graph.recoding.recode_partition`), and the facade verifies the
release from its cells, as for every algorithm.

References
----------
Prasser, Eicher, Spengler, Bild & Kuhn, "Flexible data anonymization using
ARX -- current status and challenges ahead", Software: Practice and
Experience 50(7), 2020: ARX's iterative local recoding.
LeFevre, DeWitt & Ramakrishnan, "Mondrian multidimensional k-anonymity",
ICDE 2006: top-down cuts.
Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam, "l-Diversity: privacy
beyond k-anonymity", ACM TKDD 1(1), 2007.
Li, Li & Venkatasubramanian, "t-Closeness: privacy beyond k-anonymity and
l-diversity", ICDE 2007.
"""

from __future__ import annotations

import math

import numpy as np

from .._progress import reporter
from ..privacy import ClassCheck
from ..recoding.boundaries import cells_to_suppress, has_boundaries, magval_cells
from ..registry import K_L_T, Partition, register_algorithm
from ..scale.sharding import subset
from ._rescue import settle
from ._polish import polish
from ._split import split_classes
from ._steps import STEP, release_steps

__all__ = ["stepwise", "STEP"]


def stepwise(data, model, *, rng=None, suppression=None, step=STEP, combine="mean",
             cuts=True, moves=True, respect_boundaries=False, progress=None):
    """Local recoding by full-domain steps, hierarchy cuts and graph moves.

    Parameters
    ----------
    data : EncodedTable
        Every quasi-identifier has a hierarchy.
    model : PrivacyModel
        k, and l-diversity or t-closeness when asked (bound to ``data``).
    rng : numpy.random.Generator, optional
        Unused: the algorithm is deterministic.
    suppression : float, optional
        The fraction of the records that may be suppressed (default none).
        Only records no step releases and no class can take under the model
        are suppressed (with k alone every class takes them, so none is);
        past the budget they merge into classes instead
        (:mod:`._leftovers`).
    step : float
        The least fraction of all records each full-domain step releases,
        in (0, 1] (ARX uses 0.01).
    combine : {"mean", "geometric"}
        How a step's search combines the per-attribute losses of a node:
        their mean (the loss the suite reports), or ARX's geometric form.
    cuts, moves : bool
        Run step 2 (hierarchy cuts) and step 3 (graph moves).
    respect_boundaries : bool
        Never release a value above its MAGVal (Hussien et al. 2016): the
        algorithm runs inside each MAGVal cell (records sharing their MAGVal
        nodes, :func:`kanon_graph.recoding.magval_cells`); a cell the model
        fails as a whole is suppressed within the budget, else a
        ``ValueError`` names it (as ``mst`` does).
    progress : None, bool or callable
        ``progress(done, total, text)`` with the records released so far of
        all records, after each full-domain step and before steps 2 and 3.

    Returns
    -------
    Partition
        ``stats``: ``steps`` (full-domain steps), ``left_over`` (records
        no step released), ``placed``, ``suppressed`` and ``merged`` (how
        the left-over records were settled), ``cuts``, ``polish_moves``.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    >>> res = kg.anonymize(table, schema, k=3, algorithm="stepwise")
    >>> res.verification.holds, min(len(c) for c in res.classes) >= 3
    (True, True)
    >>> res = kg.anonymize(table, schema, k=3, l=3, algorithm="stepwise")
    >>> res.verification.holds, res.verification.l_achieved >= 3
    (True, True)
    """
    if not 0 < step <= 1:
        raise ValueError(f"The 'step' parameter of stepwise must be a fraction in (0, 1]. "
                         f"Got {step!r}.")
    if combine not in ("mean", "geometric"):
        raise ValueError(f"The 'combine' parameter of stepwise must be 'mean' or 'geometric'. "
                         f"Got {combine!r}.")
    budget = int(math.floor((suppression or 0.0) * data.records + 1e-9))
    report = reporter(progress, "stepwise")
    options = dict(step=step, combine=combine, cuts=cuts, moves=moves)
    if not (respect_boundaries and has_boundaries(data)):
        class_of, stats = _run(data, model, ClassCheck(model, data), budget, report=report,
                               **options)
        report(data.records, data.records, "stepwise: done")
        return Partition(class_of, stats=stats)
    cells = magval_cells(data)
    drop = cells_to_suppress(data, model, cells, suppression, "stepwise")
    kept = np.flatnonzero(~drop)
    check = ClassCheck(model, subset(data, kept)) if len(kept) else None
    class_of = np.full(data.n, -1, dtype=np.int64)
    dropped = int(drop.sum()) if data.weights is None else int(data.weights[drop].sum())
    totals = {"cells": 0, "suppressed": dropped}
    # t is verified against every released record, which a cell does not see: a cell
    # merges its left-over records rather than suppress them
    budget = 0 if model.t is not None else budget - dropped
    for cell in np.unique(cells[kept]):
        inside = np.flatnonzero(cells[kept] == cell)
        rows = kept[inside]
        labels, stats = _run(subset(data, rows), model, check.restricted(inside), budget,
                             report=None, **options)
        budget -= stats["suppressed"]
        shift = int(class_of.max()) + 1
        class_of[rows] = np.where(labels >= 0, labels + shift, -1)
        totals["cells"] += 1
        for key, value in stats.items():
            if isinstance(value, (int, np.integer)) and key != "cells":
                totals[key] = totals.get(key, 0) + int(value)
    return Partition(class_of, stats=totals)


def _run(data, model, check, budget, *, step, combine, cuts, moves, report=None):
    """The three steps on ``data`` (one MAGVal cell, or the whole table)."""
    class_of, steps = release_steps(data, model, step=step, combine=combine, check=check,
                                    progress=report)
    stats = {"steps": len(steps["steps"]), "left_over": steps["left"],
             "nodes_checked": steps["nodes_checked"]}
    class_of, settled = settle(data, class_of, check, budget, model)
    stats.update(settled)
    if report is not None:
        report(data.records - stats["left_over"], data.records,
               "stepwise: hierarchy cuts and graph moves")
    kept = np.flatnonzero(class_of >= 0)
    if len(kept) < data.n:              # suppressed: refine the released records alone
        if not len(kept):
            return class_of, stats
        # t is verified against the records released: refine against them too
        inner, more = _refine(subset(data, kept), class_of[kept], model,
                              ClassCheck(model, subset(data, kept)) if model.t is not None
                              else check.restricted(kept), cuts, moves)
        class_of[kept] = inner
        return class_of, {**stats, **more}
    class_of, more = _refine(data, class_of, model, check, cuts, moves)
    stats.update(more)
    return class_of, stats


def _refine(data, class_of, model, check, cuts, moves):
    """Steps 2 and 3 on records that are all placed."""
    stats = {}
    if cuts:
        class_of, stats["cuts"] = split_classes(data, class_of, model.k, check)
    if moves:
        class_of, more = polish(data, class_of, model.k, check)
        stats.update(more)
    return np.asarray(class_of, dtype=np.int64), stats


# weighted: it runs on the distinct (QI[, sensitive]) tuples, each with its records (a Dask
# table's counted tuples as well); its release is then a function of the tuple
register_algorithm("stepwise", stepwise, recoding="local", models=K_L_T, needs_hierarchies=True,
                   supports_suppression=True, supports_boundaries=True, shards=False,
                   weighted=True,
                   description="full-domain steps (ARX's local recoding scheme), hierarchy "
                               "cuts and record-graph moves")
