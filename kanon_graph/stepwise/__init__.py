"""``stepwise``: local recoding by full-domain steps, hierarchy cuts and graph moves.

The algorithm (``kg.anonymize(..., algorithm="stepwise")``) runs three steps:

1. **Full-domain steps** (:mod:`._steps`), the scheme of ARX's local
   recoding: release the records that form classes of ``k`` at the node of
   least generalization loss that releases at least :data:`~._steps.STEP`
   of the records, then do the same with the records left, until none is
   left that could be released; the few left over join the class they widen
   least (:func:`~._split.place_leftovers`).
2. **Hierarchy cuts** (:mod:`._split`): a class of ``2k`` records or more is
   cut into the children of its common ancestor that hold ``k`` records,
   while that lowers its loss.
3. **Graph moves** (:mod:`._polish`): single distinct tuples move between
   neighbouring classes of the record graph while that lowers the loss.

The algorithm releases k-anonymous tables; l-diversity and t-closeness are
refused with a clear error (``auto`` then tries the other algorithms).

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
"""

from __future__ import annotations

import numpy as np

from ..registry import Partition, register_algorithm
from ._polish import polish
from ._split import place_leftovers, split_classes
from ._steps import STEP, release_steps

__all__ = ["stepwise", "STEP"]


def stepwise(data, model, *, rng=None, suppression=None, step=STEP, combine="mean",
             cuts=True, moves=True, progress=None):
    """Local recoding by full-domain steps, hierarchy cuts and graph moves.

    Parameters
    ----------
    data : EncodedTable
        Every quasi-identifier has a hierarchy.
    model : PrivacyModel
    rng : numpy.random.Generator, optional
        Unused: the algorithm is deterministic.
    suppression : float, optional
        Unused: no record is suppressed (the records no step releases join
        the class they widen least).
    step : float
        The least fraction of all records each full-domain step releases,
        in (0, 1] (ARX uses 0.01).
    combine : {"mean", "geometric"}
        How a step's search combines the per-attribute losses of a node:
        their mean (the loss the suite reports), or ARX's geometric form.
    cuts, moves : bool
        Run step 2 (hierarchy cuts) and step 3 (graph moves); k only.
    progress : None, bool or callable
        ``progress(done, total, text)`` with the records released so far of
        all records, after each full-domain step and before steps 2 and 3.

    Returns
    -------
    Partition
        ``stats``: ``steps`` (full-domain steps), ``left_over`` (records
        placed or suppressed after the steps), ``cuts``, ``polish_moves``.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    >>> res = kg.anonymize(table, schema, k=3, algorithm="stepwise")
    >>> res.verification.holds, min(len(c) for c in res.classes) >= 3
    (True, True)
    """
    if not 0 < step <= 1:
        raise ValueError(f"The 'step' parameter of stepwise must be a fraction in (0, 1]. "
                         f"Got {step!r}.")
    if combine not in ("mean", "geometric"):
        raise ValueError(f"The 'combine' parameter of stepwise must be 'mean' or 'geometric'. "
                         f"Got {combine!r}.")
    if model.needs_sensitive:
        raise ValueError("stepwise enforces k-anonymity only; it cannot meet the requested "
                         "l-diversity or t-closeness -- use 'mst', 'sd', 'mondrian' or "
                         "'optimal'")
    from .._progress import reporter

    report = reporter(progress, "stepwise")
    class_of, stats = release_steps(data, model, step=step, combine=combine, progress=report)
    stats = {"steps": len(stats["steps"]), "left_over": stats["left"],
             "nodes_checked": stats["nodes_checked"]}
    class_of = place_leftovers(data, class_of)
    report(data.records - stats["left_over"], data.records, "stepwise: hierarchy cuts")
    if cuts:
        class_of, stats["cuts"] = split_classes(data, class_of, model.k)
    report(data.records - stats["left_over"], data.records, "stepwise: graph moves")
    if moves:
        class_of, more = polish(data, class_of, model.k)
        stats.update(more)
    report(data.records, data.records, "stepwise: done")
    return Partition(np.asarray(class_of, dtype=np.int64), stats=stats)


register_algorithm("stepwise", stepwise, recoding="local", needs_hierarchies=True,
                   supports_suppression=True,
                   description="full-domain steps (ARX's local recoding scheme), hierarchy "
                               "cuts and record-graph moves")
